// Approvals of sectors' gates: operators approve and revoke; an API token scoped to
// `approvals:write` (a CI job) may approve and do nothing else.
import { z } from 'zod';
import { APPROVAL_KINDS } from '@/server/domain/plan/sector-gates';
import { identifierSchema } from '../identifier-schema';
import { approverProcedure, createTRPCRouter, operatorProcedure, viewerProcedure } from '../trpc';

export const ZGateInput = z.object({
  sector: identifierSchema(200),
  version: z.string().min(1).max(100),
  kind: z.enum(APPROVAL_KINDS).default('before'),
  reason: z.string().max(500).optional(),
});

export const approvalsRouter = createTRPCRouter({
  list: viewerProcedure
    .input(z.object({ includeRevoked: z.boolean().default(false) }).default({ includeRevoked: false }))
    .query(async ({ ctx, input }) => await ctx.services.approvals.list(input)),
  approve: approverProcedure
    .input(ZGateInput)
    .mutation(async ({ ctx, input }) => await ctx.services.approvals.approve({ ...input, actor: ctx.actor })),
  revoke: operatorProcedure
    .input(ZGateInput)
    .mutation(async ({ ctx, input }) => await ctx.services.approvals.revoke({ ...input, actor: ctx.actor })),
});
