import { z } from 'zod';
import { ORGANIZATION_PROVIDER_KINDS } from '@/server/integrations/providers/create-provider';
import { instanceAdminProcedure, createTRPCRouter, instanceViewerProcedure } from '../trpc';

const name = z.string().min(1).max(100);

export const organizationsRouter = createTRPCRouter({
  list: instanceViewerProcedure.query(({ ctx }) => ctx.services.organizations.list(ctx.actor)),
  /** remembers the user's organization (the top bar's switcher) */
  select: instanceViewerProcedure
    .input(z.object({ name }))
    .mutation(({ ctx, input }) => ctx.services.organizations.select({ name: input.name, actor: ctx.actor })),
  /** each organization's own provider settings (a kind and a credentials reference; never a secret) */
  providers: instanceAdminProcedure.query(({ ctx }) => ctx.services.organizations.providers()),
  setProvider: instanceAdminProcedure
    .input(
      z.object({
        organization: name,
        kind: z.enum(ORGANIZATION_PROVIDER_KINDS).nullable(),
        credentialsRef: z.string().max(4096).nullable().optional(),
      }),
    )
    .mutation(({ ctx, input }) => ctx.services.organizations.setProvider({ ...input, actor: ctx.actor })),
  create: instanceAdminProcedure
    .input(z.object({ name }))
    .mutation(({ ctx, input }) => ctx.services.organizations.create({ name: input.name, actor: ctx.actor })),
});
