import { createTRPCRouter, viewerProcedure } from '../trpc';

export const sectorsRouter = createTRPCRouter({
  overview: viewerProcedure.query(({ ctx }) => ctx.services.sectors.overview()),
});
