import { z } from 'zod';
import { HOOK_STAGES, MAX_HOOK_TIMEOUT_SECONDS } from '@/server/services/hooks/hook-service';
import { identifierSchema } from '../identifier-schema';
import { adminProcedure, createTRPCRouter, viewerProcedure } from '../trpc';

// Hooks gate upgrades, so everyone who reads the Scheduler page sees them and their last answers
// (the list shows where they point without the URL's query, which may carry a token); only
// admins add or change them, as with webhooks: they send signed requests to a URL of their choosing.
export const hooksRouter = createTRPCRouter({
  list: viewerProcedure.query(async ({ ctx }) => await ctx.services.hooks.list()),
  create: adminProcedure
    .input(
      z.object({
        name: identifierSchema(100),
        url: z.string().min(1).max(2000),
        stage: z.enum(HOOK_STAGES),
        sector: z.union([z.literal(''), identifierSchema(200)]).nullish(),
        /** only clusters this label selector matches (blank: every cluster) */
        selector: z.string().max(4096).nullish(),
        timeoutSeconds: z.number().int().min(1).max(MAX_HOOK_TIMEOUT_SECONDS).optional(),
        secret: z.string().min(16).max(200).optional(),
      }),
    )
    .mutation(({ ctx, input }) => ctx.services.hooks.create({ ...input, actor: ctx.actor })),
  setEnabled: adminProcedure
    .input(z.object({ id: z.number().int().positive(), enabled: z.boolean() }))
    .mutation(async ({ ctx, input }) => await ctx.services.hooks.setEnabled({ ...input, actor: ctx.actor })),
  delete: adminProcedure
    .input(z.object({ id: z.number().int().positive() }))
    .mutation(async ({ ctx, input }) => await ctx.services.hooks.delete({ id: input.id, actor: ctx.actor })),
});
