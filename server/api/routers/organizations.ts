import { z } from 'zod';
import { instanceAdminProcedure, createTRPCRouter, instanceViewerProcedure } from '../trpc';

const name = z.string().min(1).max(100);

export const organizationsRouter = createTRPCRouter({
  list: instanceViewerProcedure.query(({ ctx }) => ctx.services.organizations.list(ctx.actor)),
  /** remembers the user's organization (the top bar's switcher) */
  select: instanceViewerProcedure
    .input(z.object({ name }))
    .mutation(({ ctx, input }) => ctx.services.organizations.select({ name: input.name, actor: ctx.actor })),
  create: instanceAdminProcedure
    .input(z.object({ name }))
    .mutation(({ ctx, input }) => ctx.services.organizations.create({ name: input.name, actor: ctx.actor })),
});
