import { z } from 'zod';
import { createTRPCRouter, operatorProcedure, viewerProcedure } from '../trpc';

export const ZCreateExclusionInput = z.object({
  scope: z.enum(['organization', 'sector', 'cluster', 'selector']),
  // empty: the service answers 'name the sector' at this path; names must exist and a selector
  // must parse (the service checks both, so a selector may carry spaces)
  subject: z.string().max(4096).nullish(),
  startsAt: z.iso.datetime({ offset: true }),
  endsAt: z.iso.datetime({ offset: true }),
  reason: z.string().min(1).max(500),
});

export const exclusionsRouter = createTRPCRouter({
  list: viewerProcedure
    .input(z.object({ includePast: z.boolean().default(false) }).default({ includePast: false }))
    .query(({ ctx, input }) => ctx.services.exclusions.list(input)),
  create: operatorProcedure
    .input(ZCreateExclusionInput)
    .mutation(({ ctx, input }) =>
      ctx.services.exclusions.create({ ...input, startsAt: new Date(input.startsAt), endsAt: new Date(input.endsAt), actor: ctx.actor }),
    ),
  delete: operatorProcedure
    .input(z.object({ id: z.number().int().positive() }))
    .mutation(({ ctx, input }) => ctx.services.exclusions.delete({ id: input.id, actor: ctx.actor })),
});
