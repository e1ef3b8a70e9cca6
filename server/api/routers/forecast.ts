import { z } from 'zod';
import { createTRPCRouter, viewerProcedure } from '../trpc';

const name = z.string().min(1).max(200);

export const ZForecastOverrides = z.object({
  sectorSoakDays: z
    .array(z.object({ sector: name, soakDays: z.number().min(0).max(365).nullable() }))
    .max(100)
    .optional(),
  sectorMaxParallel: z
    .array(z.object({ sector: name, value: z.string().max(10).nullable() }))
    .max(100)
    .optional(),
  blockVersions: z.array(z.string().min(1).max(200)).max(50).optional(),
  unblockPatterns: z.array(z.string().min(1).max(200)).max(50).optional(),
  ignoreFreeze: z.boolean().optional(),
  ignoreExclusions: z.boolean().optional(),
});

export const forecastRouter = createTRPCRouter({
  run: viewerProcedure
    .input(
      z.object({
        targetVersion: z.string().min(1).max(100).optional(),
        horizonDays: z.number().int().min(1).max(120).default(60),
        upgradeMinutes: z
          .number()
          .int()
          .min(5)
          .max(24 * 60)
          .default(90),
        overrides: ZForecastOverrides.optional(),
        sector: z.string().max(200).optional(),
        search: z.string().max(200).optional(),
        offset: z.number().int().min(0).max(1_000_000).default(0),
        limit: z.number().int().min(1).max(200).default(50),
      }),
    )
    .query(({ ctx, input }) => ctx.services.forecast.run(input)),
});
