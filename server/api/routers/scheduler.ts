import { z } from 'zod';
import { createTRPCRouter, operatorProcedure, viewerProcedure } from '../trpc';

export const schedulerRouter = createTRPCRouter({
  status: viewerProcedure.query(({ ctx }) => ctx.services.scheduler.status()),
  recentTicks: viewerProcedure
    .input(z.object({ limit: z.number().int().min(1).max(200).default(20) }).default({ limit: 20 }))
    .query(({ ctx, input }) => ctx.services.scheduler.recentTicks(input.limit)),
  runNow: operatorProcedure
    .input(z.object({ dryRun: z.boolean().default(false) }))
    .mutation(({ ctx, input }) => ctx.services.scheduler.runNow({ dryRun: input.dryRun, actor: ctx.actor })),
  pause: operatorProcedure.mutation(({ ctx }) => ctx.services.scheduler.setPaused({ paused: true, actor: ctx.actor })),
  resume: operatorProcedure.mutation(({ ctx }) => ctx.services.scheduler.setPaused({ paused: false, actor: ctx.actor })),
  setHealthGate: operatorProcedure
    .input(z.object({ enabled: z.boolean() }))
    .mutation(({ ctx, input }) => ctx.services.scheduler.setHealthGate({ enabled: input.enabled, actor: ctx.actor })),
  clock: viewerProcedure.query(({ ctx }) => ctx.services.scheduler.clock()),
  setClockSpeed: operatorProcedure
    .input(z.object({ speed: z.number().min(0).max(100_000) }))
    .mutation(({ ctx, input }) => ctx.services.scheduler.setClockSpeed({ speed: input.speed, actor: ctx.actor })),
  pauseClock: operatorProcedure
    .input(z.object({ paused: z.boolean() }))
    .mutation(({ ctx, input }) => ctx.services.scheduler.pauseClock({ paused: input.paused, actor: ctx.actor })),
  advanceClock: operatorProcedure
    .input(
      z.object({
        seconds: z
          .number()
          .int()
          .min(1)
          .max(90 * 86_400),
      }),
    )
    .mutation(({ ctx, input }) => ctx.services.scheduler.advanceClock({ seconds: input.seconds, actor: ctx.actor })),
});
