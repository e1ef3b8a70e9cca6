import { z } from 'zod';
import { createTRPCRouter, viewerProcedure } from '../trpc';

export const soakRouter = createTRPCRouter({
  versions: viewerProcedure.query(({ ctx }) => ctx.services.soak.versions()),
  series: viewerProcedure
    .input(z.object({ version: z.string().min(1).max(100), workload: z.string().min(1).max(200) }))
    .query(({ ctx, input }) => ctx.services.soak.series(input)),
});
