import { z } from 'zod';
import { identifierSchema } from '../identifier-schema';
import { createTRPCRouter, operatorProcedure, viewerProcedure } from '../trpc';

export const ZCreateExclusionInput = z.object({
  scope: z.enum(['organization', 'sector', 'cluster', 'selector']),
  // empty: the service answers 'name the sector' at this path; a selector (spaces inside allowed)
  // passes the same character rule as names, then the service's parser
  subject: z.union([z.literal(''), identifierSchema(4096)]).nullish(),
  startsAt: z.iso.datetime({ offset: true }),
  endsAt: z.iso.datetime({ offset: true }),
  reason: z.string().min(1).max(500),
});

export const exclusionsRouter = createTRPCRouter({
  list: viewerProcedure
    .input(z.object({ includePast: z.boolean().default(false) }).default({ includePast: false }))
    .query(async ({ ctx, input }) => await ctx.services.exclusions.list(input)),
  create: operatorProcedure.input(ZCreateExclusionInput).mutation(
    async ({ ctx, input }) =>
      await ctx.services.exclusions.create({
        ...input,
        startsAt: new Date(input.startsAt),
        endsAt: new Date(input.endsAt),
        actor: ctx.actor,
      }),
  ),
  delete: operatorProcedure
    .input(z.object({ id: z.number().int().positive() }))
    .mutation(async ({ ctx, input }) => await ctx.services.exclusions.delete({ id: input.id, actor: ctx.actor })),
});
