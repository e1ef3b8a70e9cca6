import { z } from 'zod';
import { createTRPCRouter, viewerProcedure } from '../trpc';

export const soakRouter = createTRPCRouter({
  versions: viewerProcedure.query(async ({ ctx }) => await ctx.services.soak.versions()),
  series: viewerProcedure
    .input(z.object({ version: z.string().min(1).max(100), workload: z.string().min(1).max(200) }))
    .query(async ({ ctx, input }) => await ctx.services.soak.series(input)),
});
