import { createTRPCRouter, viewerProcedure } from '../trpc';

export const sectorsRouter = createTRPCRouter({
  overview: viewerProcedure.query(async ({ ctx }) => await ctx.services.sectors.overview()),
});
