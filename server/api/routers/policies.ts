// Upgrade policies: read (viewer) and edit (operator). Inputs are size-limited here; what the
// values mean (crons, regexes, sectors, allow-lists) is checked by the engine's validator in
// the service, which reports problems at paths of these inputs.
import { z } from 'zod';
import { createTRPCRouter, operatorProcedure, viewerProcedure } from '../trpc';

const name = z.string().min(1).max(253);
// Sector, workload and mutex names: the engine's validator checks them (identifier rule
// included) and reports each problem at its path, which the editors show beside the field.
const label = z.string().max(200);
const reason = z.string().max(1000);
const revision = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
const MAX_EXTRA_JSON = 50_000;
const extra = z
  .record(z.string().max(200), z.unknown())
  .refine((v) => JSON.stringify(v).length <= MAX_EXTRA_JSON, `extra keys must stay under ${MAX_EXTRA_JSON} characters of JSON`)
  .optional();

export const ZScheduleSpec = z.union([
  z.string().max(200),
  z.object({
    cron: z.string().max(200),
    location: z.string().max(100).optional(),
    isoWeek: z.union([z.string().max(400), z.number().int().min(-1000).max(1000)]).optional(),
    suspend: z.boolean().optional(),
    extra,
  }),
]);

export const ZUpgradePolicySpec = z.object({
  workloads: z.array(label).max(100),
  schedule: ZScheduleSpec,
  conditions: z
    .object({
      soakDays: z.number().finite().min(-1e9).max(1e9).optional(),
      mutexes: z.array(label).max(100).optional(),
      sector: label.optional(),
      blockedVersions: z.array(z.string().max(500)).max(200).optional(),
      targetVersion: z.string().max(100).optional(),
      maxVersion: z.string().max(100).optional(),
      extra,
    })
    .optional(),
  // the lifecycle options (operator approvals, health checks, timeouts) as written: the domain
  // validates them with the fleet (server/domain/lifecycle/options.ts), problems at their paths
  lifecycle: z.record(z.string(), z.unknown()).optional(),
  extra,
});

export const ZOrganizationSettings = z.object({
  sectors: z
    .array(
      z.object({
        name: label,
        maxParallelUpgrades: z.string().max(20).nullable().optional(),
        maxConcurrentUpgrades: z.string().max(20).nullable().optional(),
        targetVersion: z.string().max(100).nullable().optional(),
        maxVersion: z.string().max(100).nullable().optional(),
        approval: z.object({ before: z.boolean().optional(), after: z.boolean().optional() }).strict().nullable().optional(),
        notBefore: z.string().max(100).nullable().optional(),
        canary: z
          .object({
            count: z.number().finite().optional(),
            percent: z.number().finite().optional(),
            soakHours: z.number().finite().optional(),
            selector: z.string().max(4096).optional(),
          })
          .strict()
          .nullable()
          .optional(),
        selector: z.string().max(4096).nullable().optional(),
        dependencies: z.array(label).max(100),
      }),
    )
    .max(200),
  blockedVersions: z.array(z.object({ pattern: z.string().max(500), reason })).max(500),
  upgradePolicyAllowedWorkloads: z.array(label).max(1000).nullable(),
  upgradePolicyAllowedMutexes: z.array(label).max(1000).nullable(),
  targetVersion: z.string().max(100).nullable().optional(),
  maxVersion: z.string().max(100).nullable().optional(),
});

export const ZPolicyDraft = z.object({
  organization: ZOrganizationSettings.optional(),
  clusters: z
    .array(z.object({ name, policy: ZUpgradePolicySpec.nullable() }))
    .max(5000)
    .optional(),
});

/** why a change was saved or reverted, kept in the revision's summary (history, Activity); optional */
const saveReason = z.string().trim().max(500).optional();

export const policiesRouter = createTRPCRouter({
  organization: viewerProcedure.query(async ({ ctx }) => await ctx.services.policies.getOrganization()),
  clusterPolicies: viewerProcedure.query(async ({ ctx }) => await ctx.services.policies.listClusterPolicies()),
  clusterPolicy: viewerProcedure
    .input(z.object({ name }))
    .query(async ({ ctx, input }) => await ctx.services.policies.getClusterPolicy(input.name)),
  validateDraft: viewerProcedure.input(ZPolicyDraft).query(async ({ ctx, input }) => await ctx.services.policies.validateDraft(input)),
  previewImpact: viewerProcedure.input(ZPolicyDraft).query(async ({ ctx, input }) => await ctx.services.policies.previewImpact(input)),
  previewForecastImpact: viewerProcedure
    .input(ZPolicyDraft)
    .query(async ({ ctx, input }) => await ctx.services.policies.previewForecastImpact(input)),
  history: viewerProcedure
    .input(
      z.object({
        scope: z.enum(['organization', 'cluster']).optional(),
        subject: name.optional(),
        offset: z.number().int().min(0).max(10_000_000).default(0),
        limit: z.number().int().min(1).max(200).default(50),
      }),
    )
    .query(async ({ ctx, input }) => await ctx.services.policies.history(input)),
  exportOrganization: viewerProcedure.query(async ({ ctx }) => await ctx.services.policies.exportOrganizationYaml()),
  exportCluster: viewerProcedure
    .input(z.object({ name }))
    .query(async ({ ctx, input }) => await ctx.services.policies.exportClusterYaml(input.name)),

  updateOrganization: operatorProcedure
    .input(z.object({ expectedRevision: revision, organization: ZOrganizationSettings, reason: saveReason }))
    .mutation(async ({ ctx, input }) => await ctx.services.policies.updateOrganization(ctx.actor.name, input)),
  updateClusterPolicy: operatorProcedure
    .input(z.object({ name, expectedRevision: revision, policy: ZUpgradePolicySpec.nullable(), reason: saveReason }))
    .mutation(async ({ ctx, input }) => await ctx.services.policies.updateClusterPolicy(ctx.actor.name, input)),
  setFreeze: operatorProcedure
    .input(z.object({ frozen: z.boolean(), reason, expectedRevision: revision.optional() }))
    .mutation(async ({ ctx, input }) => await ctx.services.policies.setFreeze(ctx.actor.name, input)),
  addBlockedVersion: operatorProcedure
    .input(z.object({ pattern: z.string().min(1).max(500), reason, expectedRevision: revision.optional() }))
    .mutation(async ({ ctx, input }) => await ctx.services.policies.addBlockedVersion(ctx.actor.name, input)),
  removeBlockedVersion: operatorProcedure
    .input(z.object({ pattern: z.string().min(1).max(500), reason: reason.default(''), expectedRevision: revision.optional() }))
    .mutation(async ({ ctx, input }) => await ctx.services.policies.removeBlockedVersion(ctx.actor.name, input)),
  revert: operatorProcedure
    .input(
      z.object({
        revisionId: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER),
        expectedRevision: revision,
        reason: saveReason,
      }),
    )
    .mutation(async ({ ctx, input }) => await ctx.services.policies.revert(ctx.actor.name, input)),
  importOrganization: operatorProcedure
    .input(z.object({ yaml: z.string().max(5_000_000), dryRun: z.boolean().default(false), expectedRevision: revision.optional() }))
    .mutation(async ({ ctx, input }) => await ctx.services.policies.importOrganizationYaml(ctx.actor.name, input)),
});
