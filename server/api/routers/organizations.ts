import { z } from 'zod';
import { ORGANIZATION_PROVIDER_KINDS } from '@/server/integrations/providers/create-provider';
import { instanceAdminProcedure, createTRPCRouter, instanceViewerProcedure } from '../trpc';

const name = z.string().min(1).max(100);

export const organizationsRouter = createTRPCRouter({
  list: instanceViewerProcedure.query(async ({ ctx }) => await ctx.services.organizations.list(ctx.actor)),
  /** remembers the user's organization (the top bar's switcher) */
  select: instanceViewerProcedure
    .input(z.object({ name }))
    .mutation(async ({ ctx, input }) => await ctx.services.organizations.select({ name: input.name, actor: ctx.actor })),
  /** each organization's own provider settings (a kind and a credentials reference; never a secret) */
  providers: instanceAdminProcedure.query(async ({ ctx }) => await ctx.services.organizations.providers()),
  setProvider: instanceAdminProcedure
    .input(
      z.object({
        organization: name,
        kind: z.enum(ORGANIZATION_PROVIDER_KINDS).nullable(),
        credentialsRef: z.string().max(4096).nullable().optional(),
      }),
    )
    .mutation(async ({ ctx, input }) => await ctx.services.organizations.setProvider({ ...input, actor: ctx.actor })),
  create: instanceAdminProcedure
    .input(z.object({ name }))
    .mutation(async ({ ctx, input }) => await ctx.services.organizations.create({ name: input.name, actor: ctx.actor })),
});
