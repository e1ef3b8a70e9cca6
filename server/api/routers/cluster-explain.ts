// clusters.explain: the "why not?" view of one cluster (merged into the clusters router).
import { z } from 'zod';
import { viewerProcedure } from '../trpc';

export const clusterExplainProcedures = {
  explain: viewerProcedure
    .input(z.object({ name: z.string().min(1).max(253) }))
    .query(async ({ ctx, input }) => await ctx.services.clusterExplain.explain(input.name)),
};
