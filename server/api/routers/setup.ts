// Bringing a real fleet in (the Set-up page): where the installation stands, naming the
// organization, testing the provider's connection. Importing the policies is policies.importOrganization.
import { z } from 'zod';
import { createTRPCRouter, instanceAdminProcedure, viewerProcedure } from '../trpc';

export const setupRouter = createTRPCRouter({
  status: viewerProcedure.query(async ({ ctx }) => await ctx.services.setup.status()),
  nameOrganization: instanceAdminProcedure
    .input(z.object({ name: z.string().min(1).max(100) }))
    .mutation(async ({ ctx, input }) => await ctx.services.setup.nameOrganization(ctx.actor.name, input.name)),
  // a mutation although it writes nothing: it reaches out to the provider, on demand only
  testConnection: instanceAdminProcedure.mutation(({ ctx }) => ctx.services.setup.testConnection()),
});
