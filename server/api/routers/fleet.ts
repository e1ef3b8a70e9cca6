import { createTRPCRouter, viewerProcedure } from '../trpc';

export const fleetRouter = createTRPCRouter({
  status: viewerProcedure.query(async ({ ctx }) => await ctx.services.fleet.status()),
});
