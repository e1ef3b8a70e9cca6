// The decision engine on the stored fleet (read-only): decisions now, one cluster's "why", lint.
import { z } from 'zod';
import { createTRPCRouter, viewerProcedure } from '../trpc';

export const plansRouter = createTRPCRouter({
  evaluate: viewerProcedure
    .input(z.object({ at: z.string().max(40).optional() }).default({}))
    .query(async ({ ctx, input }) => await ctx.services.plans.evaluate(input)),
  explainCluster: viewerProcedure
    .input(z.object({ name: z.string().min(1).max(253) }))
    .query(async ({ ctx, input }) => await ctx.services.plans.explainCluster(input.name)),
  lint: viewerProcedure.query(async ({ ctx }) => await ctx.services.plans.lint()),
});
