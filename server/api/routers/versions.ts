// The version history (soak per version and workload, clusters running it, blocks).
import { createTRPCRouter, viewerProcedure } from '../trpc';

export const versionsRouter = createTRPCRouter({
  history: viewerProcedure.query(async ({ ctx }) => await ctx.services.versions.history()),
});
