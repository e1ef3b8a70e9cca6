// Update graphs: stored Cincinnati graphs, the channels they hold, and upgrade paths through them.
import { z } from 'zod';
import { MAX_GRAPH_BYTES } from '@/lib/graph-document-limit';
import { identifierSchema } from '../identifier-schema';
import { createTRPCRouter, instanceOperatorProcedure, instanceViewerProcedure } from '../trpc';

const version = z.string().trim().min(1).max(64);
const channel = z.string().trim().max(64);

export const graphsRouter = createTRPCRouter({
  list: instanceViewerProcedure.query(async ({ ctx }) => await ctx.services.graphs.list()),
  channels: instanceViewerProcedure.query(async ({ ctx }) => await ctx.services.graphs.channels()),
  clusterOptions: instanceViewerProcedure
    .input(z.object({ search: z.string().max(100).optional(), limit: z.number().int().min(1).max(100).default(50) }))
    .query(async ({ ctx, input }) => await ctx.services.graphs.clusterOptions(input.search, input.limit)),
  solve: instanceViewerProcedure
    .input(
      z
        .object({
          from: version.optional(),
          clusterName: z.string().trim().min(1).max(200).optional(),
          channel: channel.nullish(),
          to: version.nullish(),
          allowConditional: z.boolean().default(false),
          workerNodes: z.number().int().min(0).max(100_000).optional(),
          controlPlaneNodes: z.number().int().min(1).max(15).optional(),
        })
        .refine((v) => v.from || v.clusterName, { message: 'Give a source version or a cluster', path: ['from'] }),
    )
    .query(async ({ ctx, input }) => await ctx.services.graphs.solve(input)),
  view: instanceViewerProcedure
    .input(
      z.object({
        channel: channel.nullish(),
        path: z.array(version).max(200).optional(),
        from: version.nullish(),
        to: version.nullish(),
      }),
    )
    .query(async ({ ctx, input }) => await ctx.services.graphs.graphView(input)),
  import: instanceOperatorProcedure
    .input(
      z.object({
        fileName: z.string().trim().min(1).max(255),
        text: z.string().max(MAX_GRAPH_BYTES),
        // empty: named after the file
        name: z
          .string()
          .trim()
          .pipe(z.union([z.literal(''), identifierSchema(120)]))
          .optional(),
        channel: channel.nullish(),
        architecture: z.string().trim().max(32).nullish(),
        capturedAt: z.coerce.date().nullish(),
      }),
    )
    .mutation(async ({ ctx, input }) => await ctx.services.graphs.import(input, ctx.actor.name)),
  delete: instanceOperatorProcedure
    .input(z.object({ id: z.number().int().positive() }))
    .mutation(async ({ ctx, input }) => await ctx.services.graphs.delete(input.id, ctx.actor.name)),
  /** the update service the graphs are refreshed from (FLEETPLAN_UPDATE_SERVICE_*), or null */
  updateService: instanceViewerProcedure.query(({ ctx }) => ctx.services.graphRefresh.settings()),
  /** fetch every configured channel now (the scheduler does it every refreshHours) */
  refreshFromUpdateService: instanceOperatorProcedure.mutation(({ ctx }) => ctx.services.graphRefresh.refresh(ctx.actor.name)),
});
