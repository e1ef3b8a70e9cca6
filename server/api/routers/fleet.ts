import { createTRPCRouter, viewerProcedure } from '../trpc';

export const fleetRouter = createTRPCRouter({
  status: viewerProcedure.query(({ ctx }) => ctx.services.fleet.status()),
});
