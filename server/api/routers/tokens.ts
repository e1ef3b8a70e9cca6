// API tokens: everyone manages their own; admins also see and revoke everyone's.
import { z } from 'zod';
import { TOKEN_SCOPES } from '@/server/auth/actor';
import { DEFAULT_TOKEN_DAYS, MAX_TOKEN_DAYS } from '@/server/services/token-service';
import { identifierSchema } from '../identifier-schema';
import { createTRPCRouter, instanceViewerProcedure } from '../trpc';

export const tokensRouter = createTRPCRouter({
  list: instanceViewerProcedure
    .input(z.object({ all: z.boolean().default(false) }).default({ all: false }))
    .query(async ({ ctx, input }) => await ctx.services.tokens.list({ ...input, actor: ctx.actor })),
  create: instanceViewerProcedure
    .input(
      z.object({
        name: z.string().trim().pipe(identifierSchema(80)),
        scope: z.enum(TOKEN_SCOPES),
        expiresInDays: z.number().int().min(1).max(MAX_TOKEN_DAYS).default(DEFAULT_TOKEN_DAYS),
      }),
    )
    .mutation(async ({ ctx, input }) => await ctx.services.tokens.create({ ...input, actor: ctx.actor })),
  revoke: instanceViewerProcedure
    .input(
      z.object({
        id: z
          .number()
          .int()
          .positive()
          .max(2 ** 31),
      }),
    )
    .mutation(async ({ ctx, input }) => await ctx.services.tokens.revoke({ ...input, actor: ctx.actor })),
});
