import { z } from 'zod';
import { identifierSchema } from '../identifier-schema';
import { createTRPCRouter, operatorProcedure, viewerProcedure } from '../trpc';

export const lifecycleRouter = createTRPCRouter({
  /** the cluster's recent upgrade attempts with their transitions */
  forCluster: viewerProcedure
    .input(z.object({ cluster: identifierSchema(200), limit: z.number().int().min(1).max(50).default(10) }))
    .query(async ({ ctx, input }) => await ctx.services.lifecycle.forCluster(input.cluster, input.limit)),
  /** an operator acknowledges a failed or timed-out upgrade (audited): its halt is lifted */
  acknowledge: operatorProcedure
    .input(z.object({ id: z.number().int().positive(), comment: z.string().max(1000) }))
    .mutation(
      async ({ ctx, input }) => await ctx.services.lifecycle.acknowledge({ id: input.id, comment: input.comment, actor: ctx.actor }),
    ),
});
