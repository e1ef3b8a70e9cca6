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

const page = <Row extends z.ZodType>(row: Row) => z.object({ total: z.number(), rows: z.array(row) });

// Output types are allow-lists: a column added to a table does not reach every viewer by accident.
const ZDecisionRow = z.object({
  id: z.number(),
  tickId: z.number().nullable(),
  at: z.string(),
  clusterName: z.string(),
  action: z.string(),
  version: z.string().nullable(),
  reason: z.string().nullable(),
  message: z.string().nullable(),
  dryRun: z.boolean(),
});

const ZActionRow = z.object({
  id: z.number(),
  key: z.string(),
  tickId: z.number().nullable(),
  kind: z.string(),
  clusterName: z.string(),
  version: z.string().nullable(),
  nextRun: z.string().nullable(),
  status: z.string(),
  attempts: z.number(),
  note: z.string().nullable(),
  createdAt: z.string(),
  doneAt: z.string().nullable(),
});

const ZUpgradeRow = z.object({
  id: z.number(),
  lifecycleId: z.number(),
  at: z.string(),
  clusterName: z.string(),
  fromVersion: z.string(),
  toVersion: z.string(),
  fromState: z.string().nullable(),
  toState: z.string(),
  reason: z.string().nullable(),
  reasonText: z.string().nullable(),
  message: z.string().nullable(),
  actor: z.string(),
});

const ZFieldValue = z.union([z.string(), z.number(), z.boolean(), z.null()]);
const ZFieldChange = z.object({
  kind: z.enum(['added', 'removed', 'changed']),
  path: z.string(),
  before: ZFieldValue.optional(),
  after: ZFieldValue.optional(),
});

const ZChangeRow = z.object({
  kind: z.enum(['policy', 'audit']),
  id: z.string(),
  at: z.string(),
  actor: z.string(),
  action: z.string(),
  target: z.string(),
  /** the organization the change belongs to; null = the instance's own (users, tokens, graphs, …) */
  organization: z.string().nullable(),
  summary: z.string().nullable(),
  changes: z.array(ZFieldChange),
  /** changes past the shown ones */
  omitted: z.number(),
});

export const activityRouter = createTRPCRouter({
  decisions: viewerProcedure
    .input(ZActivityInput)
    .output(page(ZDecisionRow))
    .query(async ({ ctx, input }) => await ctx.services.activity.decisions(toFilter(input))),
  actions: viewerProcedure
    .input(ZActivityInput)
    .output(page(ZActionRow))
    .query(async ({ ctx, input }) => await ctx.services.activity.actions(toFilter(input))),
  /** upgrade lifecycle transitions; `action` filters by the state moved to */
  upgrades: viewerProcedure
    .input(ZActivityInput)
    .output(
      page(ZUpgradeRow).extend({
        states: z.array(z.string()),
        reasons: z.array(z.object({ code: z.string(), text: z.string() })),
      }),
    )
    .query(async ({ ctx, input }) => await ctx.services.activity.upgrades(toFilter(input))),
  /** policy changes and audit rows: the request's organization's and the instance's; `allOrganizations` (global admins) every organization's */
  changes: viewerProcedure
    .input(ZActivityInput.extend({ allOrganizations: z.boolean().optional() }))
    .output(page(ZChangeRow))
    .query(async ({ ctx, input }) => await ctx.services.activity.changes({ ...toFilter(input), reader: ctx.actor })),
});
