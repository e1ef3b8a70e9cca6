// The version history (soak per version and workload, clusters running it, blocks).
import { createTRPCRouter, viewerProcedure } from '../trpc';

export const versionsRouter = createTRPCRouter({
  history: viewerProcedure.query(({ ctx }) => ctx.services.versions.history()),
});
