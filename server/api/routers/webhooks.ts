import { z } from 'zod';
import { WEBHOOK_EVENTS } from '@/server/services/webhook-service';
import { identifierSchema } from '../identifier-schema';
import { adminProcedure, createTRPCRouter } from '../trpc';

export const webhooksRouter = createTRPCRouter({
  list: adminProcedure.query(async ({ ctx }) => await ctx.services.webhooks.list()),
  create: adminProcedure
    .input(
      z.object({
        name: identifierSchema(100),
        url: z.string().min(1).max(2000),
        secret: z.string().min(16).max(200).optional(),
        events: z.array(z.enum(WEBHOOK_EVENTS)).max(WEBHOOK_EVENTS.length).default([]),
        /** only events of clusters this label selector matches (blank: every cluster) */
        selector: z.string().max(4096).nullish(),
      }),
    )
    .mutation(({ ctx, input }) => ctx.services.webhooks.create({ ...input, actor: ctx.actor })),
  delete: adminProcedure
    .input(z.object({ id: z.number().int().positive() }))
    .mutation(async ({ ctx, input }) => await ctx.services.webhooks.delete({ id: input.id, actor: ctx.actor })),
  deliveries: adminProcedure
    .input(
      z.object({
        webhookId: z.number().int().positive().optional(),
        offset: z.number().int().min(0).max(1_000_000).default(0),
        limit: z.number().int().min(1).max(200).default(50),
      }),
    )
    .query(async ({ ctx, input }) => await ctx.services.webhooks.deliveries(input)),
});
