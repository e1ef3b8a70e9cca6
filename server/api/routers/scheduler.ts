import { z } from 'zod';
import { createTRPCRouter, instanceOperatorProcedure, instanceViewerProcedure } from '../trpc';

export const schedulerRouter = createTRPCRouter({
  status: instanceViewerProcedure.query(async ({ ctx }) => await ctx.services.scheduler.status()),
  recentTicks: instanceViewerProcedure
    .input(z.object({ limit: z.number().int().min(1).max(200).default(20) }).default({ limit: 20 }))
    .query(async ({ ctx, input }) => await ctx.services.scheduler.recentTicks(input.limit)),
  runNow: instanceOperatorProcedure
    .input(z.object({ dryRun: z.boolean().default(false) }))
    .mutation(({ ctx, input }) => ctx.services.scheduler.runNow({ dryRun: input.dryRun, actor: ctx.actor })),
  pause: instanceOperatorProcedure.mutation(async ({ ctx }) => await ctx.services.scheduler.setPaused({ paused: true, actor: ctx.actor })),
  resume: instanceOperatorProcedure.mutation(
    async ({ ctx }) => await ctx.services.scheduler.setPaused({ paused: false, actor: ctx.actor }),
  ),
  setHealthGate: instanceOperatorProcedure
    .input(z.object({ enabled: z.boolean() }))
    .mutation(async ({ ctx, input }) => await ctx.services.scheduler.setHealthGate({ enabled: input.enabled, actor: ctx.actor })),
  clock: instanceViewerProcedure.query(async ({ ctx }) => await ctx.services.scheduler.clock()),
  setClockSpeed: instanceOperatorProcedure
    .input(z.object({ speed: z.number().min(0).max(100_000) }))
    .mutation(async ({ ctx, input }) => await ctx.services.scheduler.setClockSpeed({ speed: input.speed, actor: ctx.actor })),
  pauseClock: instanceOperatorProcedure
    .input(z.object({ paused: z.boolean() }))
    .mutation(async ({ ctx, input }) => await ctx.services.scheduler.pauseClock({ paused: input.paused, actor: ctx.actor })),
  advanceClock: instanceOperatorProcedure
    .input(
      z.object({
        seconds: z
          .number()
          .int()
          .min(1)
          .max(90 * 86_400),
      }),
    )
    .mutation(async ({ ctx, input }) => await ctx.services.scheduler.advanceClock({ seconds: input.seconds, actor: ctx.actor })),
});
