import { z } from 'zod';
import { createTRPCRouter, viewerProcedure } from '../trpc';

const ZActivityInput = z.object({
  cluster: z.string().max(200).optional(),
  action: z.string().max(100).optional(),
  reason: z.string().max(100).optional(),
  status: z.string().max(50).optional(),
  from: z.iso.datetime({ offset: true }).optional(),
  to: z.iso.datetime({ offset: true }).optional(),
  offset: z.number().int().min(0).max(10_000_000).default(0),
  limit: z.number().int().min(1).max(200).default(50),
});

const toFilter = (i: z.infer<typeof ZActivityInput>) => ({
  ...i,
  from: i.from ? new Date(i.from) : undefined,
  to: i.to ? new Date(i.to) : undefined,
});

export const activityRouter = createTRPCRouter({
  decisions: viewerProcedure.input(ZActivityInput).query(({ ctx, input }) => ctx.services.activity.decisions(toFilter(input))),
  actions: viewerProcedure.input(ZActivityInput).query(({ ctx, input }) => ctx.services.activity.actions(toFilter(input))),
  changes: viewerProcedure.input(ZActivityInput).query(({ ctx, input }) => ctx.services.activity.changes(toFilter(input))),
});
