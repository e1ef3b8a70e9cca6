// Update graphs: stored Cincinnati graphs, the channels they hold, and upgrade paths through them.
import { z } from 'zod';
import { MAX_GRAPH_BYTES } from '@/lib/graph-document-limit';
import { identifierSchema } from '../identifier-schema';
import { createTRPCRouter, operatorProcedure, viewerProcedure } from '../trpc';

const version = z.string().trim().min(1).max(64);
const channel = z.string().trim().max(64);

export const graphsRouter = createTRPCRouter({
  list: viewerProcedure.query(({ ctx }) => ctx.services.graphs.list()),
  channels: viewerProcedure.query(({ ctx }) => ctx.services.graphs.channels()),
  clusterOptions: viewerProcedure
    .input(z.object({ search: z.string().max(100).optional(), limit: z.number().int().min(1).max(100).default(50) }))
    .query(({ ctx, input }) => ctx.services.graphs.clusterOptions(input.search, input.limit)),
  solve: viewerProcedure
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
    .query(({ ctx, input }) => ctx.services.graphs.solve(input)),
  view: viewerProcedure
    .input(
      z.object({
        channel: channel.nullish(),
        path: z.array(version).max(200).optional(),
        from: version.nullish(),
        to: version.nullish(),
      }),
    )
    .query(({ ctx, input }) => ctx.services.graphs.graphView(input)),
  import: operatorProcedure
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
    .mutation(({ ctx, input }) => ctx.services.graphs.import(input, ctx.actor.name)),
  delete: operatorProcedure
    .input(z.object({ id: z.number().int().positive() }))
    .mutation(({ ctx, input }) => ctx.services.graphs.delete(input.id, ctx.actor.name)),
  /** the update service the graphs are refreshed from (FLEETPLAN_UPDATE_SERVICE_*), or null */
  updateService: viewerProcedure.query(({ ctx }) => ctx.services.graphRefresh.settings()),
  /** fetch every configured channel now (the scheduler does it every refreshHours) */
  refreshFromUpdateService: operatorProcedure.mutation(({ ctx }) => ctx.services.graphRefresh.refresh(ctx.actor.name)),
});
