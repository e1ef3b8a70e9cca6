// All tables. Edit here, then `npm run db:generate` to add a migration under db/migrations.
// Plain text/integer/real columns only, so the same model maps onto PostgreSQL.
import { sqliteTable, text, integer, real, index, uniqueIndex, primaryKey } from 'drizzle-orm/sqlite-core';
import type { UpgradeEvent } from '@/lib/upgrade-events';

const timestamp = (name: string) => integer(name, { mode: 'timestamp_ms' });
const json = <T>(name: string) => text(name, { mode: 'json' }).$type<T>();

// The values the enum-like text columns hold. Typed with $type only (no CHECK constraint, no
// migration): the database stays plain text, the code that reads and writes rows is checked.
/** server/auth/actor.ts's Role (schema-types.test.ts keeps them equal) */
export type RoleValue = 'viewer' | 'operator' | 'admin';
/** an API token's scope: a role, or one narrow permission (server/auth/actor.ts) */
export type TokenScopeValue = RoleValue | 'approvals:write';
/** where a grant on an organization came from: an admin, or the organization's OIDC group mapping */
export type OrganizationRoleSourceValue = 'manual' | 'oidc';
export const APPROVAL_KIND_VALUES = ['before', 'after'] as const;
export type ClusterUpgradeStateValue = 'idle' | 'scheduled' | 'upgrading' | 'failed' | 'gone';
export type UpgradeHistoryStateValue = 'scheduled' | 'started' | 'completed' | 'failed' | 'cancelled';
export type PolicyRevisionScopeValue = 'organization' | 'cluster';
export type TickStatusValue = 'running' | 'succeeded' | 'failed';
export type ActionIntentKindValue =
  | 'schedule-upgrade'
  | 'cancel-upgrade'
  | 'start-upgrade'
  | 'approve-installplan'
  | 'set-channel'
  | 'pause-pool'
  | 'unpause-pool'
  | 'admin-ack';
/** server/domain/lifecycle/machine.ts's LifecycleState (schema-types.test.ts keeps them equal) */
export type LifecycleStateValue =
  | 'scheduled'
  | 'pre-checks'
  | 'pre-hook'
  | 'started'
  | 'upgrading'
  | 'pausing-workers'
  | 'control-plane-hop'
  | 'unpausing-workers'
  | 'workers-rolling'
  | 'operator-approvals'
  | 'post-hook'
  | 'post-checks'
  | 'completed'
  | 'skipped'
  | 'cancelled'
  | 'failed'
  | 'timed-out';
/** server/domain/lifecycle/operator-approvals.ts's OperatorApprovalsProgress (schema-types.test.ts keeps them equal) */
export interface OperatorApprovalsValue {
  since: number;
  approved: {
    namespace: string;
    name: string;
    operators: string[];
    csvNames: string[];
    requestedAt: number;
    confirmedAt: number | null;
    completedAt: number | null;
  }[];
  left: { namespace: string; name: string; operators: string[]; csvNames: string[]; why: string }[];
  doneAt: number | null;
}
/** server/domain/lifecycle/eus-procedure.ts's EusProcedureProgress (schema-types.test.ts keeps them equal) */
export interface EusProcedureValue {
  route: string[];
  hops: {
    version: string;
    channel: string | null;
    requestedAt: number | null;
    confirmedAt: number | null;
    runningAt: number | null;
    doneAt: number | null;
  }[];
  pausedByUs: string[] | null;
  pausedBefore: string[];
  pausedAt: number | null;
  acks: { gate: string; requestedAt: number; confirmedAt: number | null }[];
  unpauseRequestedAt: number | null;
  unpausedAt: number | null;
  rolledOutAt: number | null;
  phaseSince: number | null;
  holding: string | null;
}
export type ActionIntentStatusValue = 'pending' | 'done' | 'failed';
/** `selector`: every cluster whose labels match the label selector kept in `subject` */
export type ExclusionScopeValue = 'organization' | 'sector' | 'cluster' | 'selector';
export type WebhookDeliveryStatusValue = 'pending' | 'delivered' | 'failed';
export type HookStageValue = 'pre-upgrade' | 'post-upgrade';
export type HookCallStatusValue = 'pending' | 'allowed' | 'refused';
/** server/domain/plan/types.ts's DecisionAction */
export type DecisionActionValue = 'upgrade' | 'skip' | 'cancel';
/**
 * server/env.ts's ProviderName, plus `fake`: the scripted provider of the scheduler's tests and
 * crash checks (server/integrations/providers/fake-provider.ts) stores its clusters too.
 */
export type ClusterProviderValue = 'simulator' | 'ocm' | 'kubernetes' | 'fake';
/** the upgrade events a tick sends (lib/upgrade-events.ts) */
export type WebhookEventValue = UpgradeEvent;

export const organizations = sqliteTable('organizations', {
  id: integer('id').primaryKey({ autoIncrement: true }),
  name: text('name').notNull().unique(),
  /** allow-lists: null = no list (anything allowed) */
  allowedWorkloads: json<string[] | null>('allowed_workloads'),
  allowedMutexes: json<string[] | null>('allowed_mutexes'),
  /** organization-wide freeze: no new upgrades start while set */
  frozen: integer('frozen', { mode: 'boolean' }).notNull().default(false),
  frozenReason: text('frozen_reason'),
  /** last soak accumulation (versionData.checkIn) */
  soakCheckIn: timestamp('soak_check_in'),
  /** where every cluster's upgrades stop: a release (4.16.3) or a minor (4.16.*); null = none (beyond the reference) */
  targetVersion: text('target_version'),
  /** never past this: a release or a minor; null = none */
  maxVersion: text('max_version'),
  /** optimistic-concurrency counter for the organization policy */
  revision: integer('revision').notNull().default(1),
  updatedAt: timestamp('updated_at').notNull(),
  /**
   * the organization's own provider (simulator | ocm | kubernetes); null: the instance's
   * (FLEETPLAN_PROVIDER) for the first organization, none for the others
   */
  providerKind: text('provider_kind'),
  /** where the provider's credentials are (an environment variable's name or a file path), never the secret itself */
  providerCredentialsRef: text('provider_credentials_ref'),
  /**
   * which groups at the OIDC provider get which role on this organization, in
   * FLEETPLAN_OIDC_ROLE_GROUPS's syntax (`admin=a;viewer=*`, server/auth/oidc/role-mapping.ts);
   * null = none. Applied to the user's grants here at each of their OIDC sign-ins.
   */
  oidcRoleGroups: text('oidc_role_groups'),
});

/**
 * Blocked versions of the whole instance (the upgrade service's OCM-wide `blockedVersions`):
 * applied to every organization beside its own list.
 */
export const instanceBlockedVersions = sqliteTable('instance_blocked_versions', {
  id: integer('id').primaryKey({ autoIncrement: true }),
  pattern: text('pattern').notNull().unique(),
  reason: text('reason').notNull().default(''),
  createdBy: text('created_by').notNull(),
  createdAt: timestamp('created_at').notNull(),
});

export const sectors = sqliteTable(
  'sectors',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    organizationId: integer('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    position: integer('position').notNull().default(0),
    maxParallelUpgrades: text('max_parallel_upgrades'),
    /** "N" or "P%": the sector's clusters upgrading at once, whatever their mutexes (beyond the reference) */
    maxConcurrentUpgrades: text('max_concurrent_upgrades'),
    /** where the sector's clusters stop / never past: a release or a minor (beyond the reference) */
    targetVersion: text('target_version'),
    maxVersion: text('max_version'),
    /** approval gates (server/domain/plan/sector-gates.ts): before the sector, and after it for the sectors that follow */
    approvalBefore: integer('approval_before', { mode: 'boolean' }).notNull().default(false),
    approvalAfter: integer('approval_after', { mode: 'boolean' }).notNull().default(false),
    /** no upgrade of the sector starts before: `2026-11-29T20:00 Europe/Zurich` or an instant with its offset; null = none */
    notBefore: text('not_before'),
    /** canaries go first (server/domain/plan/canaries.ts): `{count: N}` or `{percent: P}` with `soakHours`, as written; null = none */
    canary: json<Record<string, unknown> | null>('canary'),
    /** a label selector: managed clusters whose policy names no sector join the first sector selecting them (sector-selectors.ts) */
    selector: text('selector'),
    dependencies: json<string[]>('dependencies')
      .notNull()
      .$defaultFn(() => []),
  },
  (t) => [uniqueIndex('sectors_org_name').on(t.organizationId, t.name)],
);

export const blockedVersions = sqliteTable(
  'blocked_versions',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    organizationId: integer('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    pattern: text('pattern').notNull(),
    reason: text('reason').notNull().default(''),
    createdBy: text('created_by').notNull().default('system'),
    createdAt: timestamp('created_at').notNull(),
  },
  (t) => [uniqueIndex('blocked_versions_org_pattern').on(t.organizationId, t.pattern)],
);

export const clusters = sqliteTable(
  'clusters',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    organizationId: integer('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    /** id of the cluster at its provider (OCM id, kubeconfig context, simulator id) */
    externalId: text('external_id').notNull(),
    provider: text('provider').$type<ClusterProviderValue>().notNull().default('simulator'),
    /** position in the organization file: the engine's last tie-break */
    position: integer('position').notNull().default(0),
    version: text('version').notNull(),
    channel: text('channel').notNull(),
    region: text('region').notNull().default(''),
    nodeCount: integer('node_count').notNull().default(3),
    /** discovery: the provider's labels of the cluster (OCM subscription labels) */
    labels: json<Record<string, string>>('labels')
      .notNull()
      .$defaultFn(() => ({})),
    /**
     * labels operators set in fleetplan (the cluster page, `fleetplan label`); they overlay the
     * provider's (server/domain/labels/effective-labels.ts) and discovery never touches them
     */
    fleetplanLabels: json<Record<string, string>>('fleetplan_labels')
      .notNull()
      .$defaultFn(() => ({})),
    /** discovery: aws, gcp, … ; null = not reported */
    cloud: text('cloud'),
    /** version gates the cluster has not agreed to, per minor (OCM); they hold upgrades to that minor (VERSION_GATE) */
    pendingVersionGates: json<{ id: string; minor: string; description: string; documentationUrl: string | null }[]>(
      'pending_version_gates',
    )
      .notNull()
      .$defaultFn(() => []),
    /**
     * installed operators and removed-API use (Kubernetes provider: OLM CSVs, APIRequestCount);
     * they hold some upgrades (OPERATOR_INCOMPATIBLE, REMOVED_API_IN_USE); null = not reported
     */
    inhibitors: json<{
      operators: { name: string; namespace: string; maxOpenShiftVersion: string | null }[];
      removedApis: { resource: string; removedInRelease: string; requestCount: number; users: string[] }[];
    }>('inhibitors'),
    availableUpgrades: json<string[]>('available_upgrades')
      .notNull()
      .$defaultFn(() => []),
    healthy: integer('healthy', { mode: 'boolean' }).notNull().default(true),
    healthIssues: json<string[]>('health_issues')
      .notNull()
      .$defaultFn(() => []),
    /** the upgrade policy in the upgrade service's shape; null = not managed */
    upgradePolicy: json<Record<string, unknown> | null>('upgrade_policy'),
    sector: text('sector'),
    upgradeState: text('upgrade_state').$type<ClusterUpgradeStateValue>().notNull().default('idle'),
    /** provider snapshots in a row that did not list the cluster (gone at GONE_AFTER_MISSED_SNAPSHOTS) */
    missedSnapshots: integer('missed_snapshots').notNull().default(0),
    currentUpgrade: json<{
      version: string;
      nextRun: string;
      state: 'scheduled' | 'started';
      startedAt?: string;
      progress?: number;
    } | null>('current_upgrade'),
    policyRevision: integer('policy_revision').notNull().default(1),
    lastDecisionAction: text('last_decision_action').$type<DecisionActionValue>(),
    lastDecisionReason: text('last_decision_reason'),
    lastDecisionMessage: text('last_decision_message'),
    lastDecisionVersion: text('last_decision_version'),
    nextRun: timestamp('next_run'),
    observedAt: timestamp('observed_at').notNull(),
    /**
     * the 'cluster_rows' plan revision (plan_revisions) at which a column the engine plans with
     * last changed, set by a trigger (migration 0022): the stored fleet's cache re-reads only the
     * rows past the revision it loaded (server/services/stored-fleet-evaluation.ts)
     */
    changedAtRevision: integer('changed_at_revision').notNull().default(0),
  },
  (t) => [
    uniqueIndex('clusters_org_name').on(t.organizationId, t.name),
    index('clusters_sector').on(t.sector),
    // the simulator's (and providers') lookups of one cluster by the provider's id, thousands per tick
    index('clusters_external_id').on(t.externalId),
    index('clusters_version').on(t.version),
    index('clusters_state').on(t.upgradeState),
    index('clusters_changed_at_revision').on(t.changedAtRevision),
  ],
);

/** one row per (cluster, workload): lets list queries filter by workload on the server */
export const clusterWorkloads = sqliteTable(
  'cluster_workloads',
  {
    clusterId: integer('cluster_id')
      .notNull()
      .references(() => clusters.id, { onDelete: 'cascade' }),
    workload: text('workload').notNull(),
  },
  (t) => [primaryKey({ columns: [t.clusterId, t.workload] }), index('cluster_workloads_workload').on(t.workload)],
);

/** accumulated soak (the upgrade service's version history) */
export const versionSoak = sqliteTable(
  'version_soak',
  {
    organizationId: integer('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    version: text('version').notNull(),
    workload: text('workload').notNull(),
    soakDays: real('soak_days').notNull().default(0),
    reporting: json<string[]>('reporting')
      .notNull()
      .$defaultFn(() => []),
    firstSeenAt: timestamp('first_seen_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.version, t.workload] })],
);

/** daily samples of soak, for the soak-over-time charts */
export const soakSamples = sqliteTable(
  'soak_samples',
  {
    organizationId: integer('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    at: timestamp('at').notNull(),
    version: text('version').notNull(),
    workload: text('workload').notNull(),
    soakDays: real('soak_days').notNull(),
    reportingCount: integer('reporting_count').notNull(),
  },
  (t) => [index('soak_samples_lookup').on(t.organizationId, t.version, t.workload, t.at)],
);

/** a cluster's upgrade history (from ClusterVersion history or OCM) */
export const clusterUpgrades = sqliteTable(
  'cluster_upgrades',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    clusterId: integer('cluster_id')
      .notNull()
      .references(() => clusters.id, { onDelete: 'cascade' }),
    fromVersion: text('from_version').notNull(),
    toVersion: text('to_version').notNull(),
    state: text('state').$type<UpgradeHistoryStateValue>().notNull(),
    scheduledFor: timestamp('scheduled_for'),
    startedAt: timestamp('started_at'),
    completedAt: timestamp('completed_at'),
    message: text('message'),
  },
  (t) => [index('cluster_upgrades_cluster').on(t.clusterId, t.startedAt)],
);

/** every change to a policy: who, when, before/after, for history, diff and revert */
export const policyRevisions = sqliteTable(
  'policy_revisions',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    organizationId: integer('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    scope: text('scope').$type<PolicyRevisionScopeValue>().notNull(),
    /** cluster name for cluster scope, organization name otherwise */
    subject: text('subject').notNull(),
    revision: integer('revision').notNull(),
    actor: text('actor').notNull(),
    at: timestamp('at').notNull(),
    summary: text('summary').notNull(),
    before: json<unknown>('before'),
    after: json<unknown>('after'),
  },
  (t) => [index('policy_revisions_subject').on(t.organizationId, t.scope, t.subject, t.revision)],
);

/** append-only audit log of every change made through the app */
export const auditLog = sqliteTable(
  'audit_log',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    at: timestamp('at').notNull(),
    actor: text('actor').notNull(),
    action: text('action').notNull(),
    target: text('target').notNull(),
    before: json<unknown>('before'),
    after: json<unknown>('after'),
    /**
     * the organization the change belongs to; null = the instance's (users, tokens, graphs, …).
     * No foreign key on purpose: a removed organization's rows keep its id, so they never become
     * instance-wide rows that every reader sees.
     */
    organizationId: integer('organization_id'),
  },
  (t) => [index('audit_log_at').on(t.at), index('audit_log_organization_at').on(t.organizationId, t.at)],
);

/**
 * Approvals of sectors' gates (issue 14): the rollout of `version` into `sector` (kind before) or
 * past it (kind after) may go on. One row per (organization, sector, version, kind): approving
 * again after a revocation clears `revokedAt`; the audit log keeps every approval and revocation.
 */
export const approvals = sqliteTable(
  'approvals',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    organizationId: integer('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    sector: text('sector').notNull(),
    version: text('version').notNull(),
    kind: text('kind', { enum: APPROVAL_KIND_VALUES }).notNull(),
    approvedBy: text('approved_by').notNull(),
    approvedAt: timestamp('approved_at').notNull(),
    reason: text('reason').notNull().default(''),
    revokedAt: timestamp('revoked_at'),
    revokedBy: text('revoked_by'),
  },
  (t) => [uniqueIndex('approvals_gate').on(t.organizationId, t.sector, t.version, t.kind)],
);

/** engine decisions recorded by scheduler ticks */
export const decisions = sqliteTable(
  'decisions',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    tickId: integer('tick_id'),
    at: timestamp('at').notNull(),
    /** the cluster's organization (names are unique per organization only); migration 0011 gave older rows the first */
    organizationId: integer('organization_id').references(() => organizations.id, { onDelete: 'cascade' }),
    clusterName: text('cluster_name').notNull(),
    action: text('action').$type<DecisionActionValue>().notNull(),
    version: text('version'),
    reason: text('reason'),
    message: text('message'),
  },
  (t) => [index('decisions_at').on(t.at), index('decisions_cluster').on(t.clusterName, t.at)],
);

/** imported Cincinnati update graphs */
export const updateGraphs = sqliteTable('update_graphs', {
  id: integer('id').primaryKey({ autoIncrement: true }),
  name: text('name').notNull().unique(),
  channel: text('channel'),
  architecture: text('architecture').notNull().default('amd64'),
  capturedAt: timestamp('captured_at'),
  source: text('source').notNull().default(''),
  nodeCount: integer('node_count').notNull(),
  edgeCount: integer('edge_count').notNull(),
  document: text('document').notNull(),
  importedAt: timestamp('imported_at').notNull(),
});

/** one row per scheduler tick: when, how long, what it decided, whether it failed */
export const schedulerTicks = sqliteTable(
  'scheduler_ticks',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    startedAt: timestamp('started_at').notNull(),
    finishedAt: timestamp('finished_at'),
    status: text('status').$type<TickStatusValue>().notNull(),
    dryRun: integer('dry_run', { mode: 'boolean' }).notNull().default(false),
    holder: text('holder').notNull(),
    summary: json<Record<string, number>>('summary'),
    error: text('error'),
  },
  (t) => [index('scheduler_ticks_started').on(t.startedAt)],
);

/**
 * Actions on the fleet, written as intents in the same transaction as the decision that caused
 * them, executed against the provider, then marked done: a crash between the steps is
 * reconciled on restart and the idempotency key keeps an upgrade from being triggered twice.
 */
export const actionIntents = sqliteTable(
  'action_intents',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    idempotencyKey: text('idempotency_key').notNull().unique(),
    tickId: integer('tick_id'),
    kind: text('kind').$type<ActionIntentKindValue>().notNull(),
    /** the cluster's organization; migration 0011 gave older rows the first */
    organizationId: integer('organization_id').references(() => organizations.id, { onDelete: 'cascade' }),
    clusterName: text('cluster_name').notNull(),
    version: text('version').notNull(),
    nextRun: timestamp('next_run'),
    status: text('status').$type<ActionIntentStatusValue>().notNull(),
    attempts: integer('attempts').notNull().default(0),
    error: text('error'),
    createdAt: timestamp('created_at').notNull(),
    doneAt: timestamp('done_at'),
  },
  (t) => [index('action_intents_status').on(t.status)],
);

/**
 * One row per upgrade attempt (cluster, target version, slot): its lifecycle state
 * (server/domain/lifecycle/machine.ts), the reason of its exit, and for failures the operator's
 * acknowledgement (an unacknowledged failure halts its version; see lifecycle/halts.ts).
 */
export const upgradeLifecycles = sqliteTable(
  'upgrade_lifecycles',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    clusterId: integer('cluster_id')
      .notNull()
      .references(() => clusters.id, { onDelete: 'cascade' }),
    clusterName: text('cluster_name').notNull(),
    sector: text('sector'),
    fromVersion: text('from_version').notNull(),
    toVersion: text('to_version').notNull(),
    slot: timestamp('slot').notNull(),
    /** the channel the start switches the cluster to first (a route's hop into another minor's channel); null: none */
    channel: text('channel'),
    state: text('state').$type<LifecycleStateValue>().notNull(),
    reason: text('reason'),
    message: text('message'),
    /** the cluster's policy said onFailure: halt when this attempt was created */
    haltsOnFailure: integer('halts_on_failure', { mode: 'boolean' }).notNull().default(true),
    createdAt: timestamp('created_at').notNull(),
    updatedAt: timestamp('updated_at').notNull(),
    noticeAt: timestamp('notice_at'),
    startRequestedAt: timestamp('start_requested_at'),
    startConfirmedAt: timestamp('start_confirmed_at'),
    runningAt: timestamp('running_at'),
    providerDoneAt: timestamp('provider_done_at'),
    finishedAt: timestamp('finished_at'),
    /** the operator-approvals phase's record: plans approved (requested, confirmed, Complete) and left pending */
    operatorApprovals: json<OperatorApprovalsValue>('operator_approvals'),
    /** the EUS-to-EUS control-plane-only procedure's record (eus-procedure.ts); null: an ordinary attempt */
    eusProcedure: json<EusProcedureValue>('eus_procedure'),
    acknowledgedBy: text('acknowledged_by'),
    acknowledgedAt: timestamp('acknowledged_at'),
    acknowledgeComment: text('acknowledge_comment'),
  },
  (t) => [
    uniqueIndex('upgrade_lifecycles_attempt').on(t.clusterId, t.toVersion, t.slot),
    index('upgrade_lifecycles_state').on(t.state),
    index('upgrade_lifecycles_cluster').on(t.clusterId, t.createdAt),
  ],
);

/** every lifecycle transition: who/what moved it, when, from and to which state, and why */
export const upgradeLifecycleTransitions = sqliteTable(
  'upgrade_lifecycle_transitions',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    lifecycleId: integer('lifecycle_id')
      .notNull()
      .references(() => upgradeLifecycles.id, { onDelete: 'cascade' }),
    at: timestamp('at').notNull(),
    /** null for the row that creates the attempt */
    fromState: text('from_state').$type<LifecycleStateValue>(),
    toState: text('to_state').$type<LifecycleStateValue>().notNull(),
    reason: text('reason'),
    message: text('message').notNull(),
    /** `scheduler:<holder>` for the tick, the user for an acknowledgement */
    actor: text('actor').notNull(),
    tickId: integer('tick_id'),
  },
  (t) => [index('upgrade_lifecycle_transitions_lifecycle').on(t.lifecycleId, t.at), index('upgrade_lifecycle_transitions_at').on(t.at)],
);

/**
 * Prometheus counters kept in the database (server/metrics/counters.ts), so every replica that
 * shares it serves the same values. One row per metric name and label set; only ever increased.
 */
export const metricCounters = sqliteTable(
  'metric_counters',
  {
    name: text('name').notNull(),
    /** the label set as canonical JSON: an object with its keys sorted */
    labels: text('labels').notNull(),
    value: real('value').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.name, t.labels] })],
);

/** at most one scheduler acts at a time, across processes sharing the database */
export const schedulerLeases = sqliteTable('scheduler_leases', {
  name: text('name').primaryKey(),
  holder: text('holder').notNull(),
  expiresAt: timestamp('expires_at').notNull(),
  /**
   * The fencing token: raised each time the lease changes hands (or is taken again after it lapsed),
   * never by a renewal. The holder checks it, with its expiry, before every provider write and in the
   * transaction that records the write, so a replica that lost the lease mid-tick stops before acting.
   */
  fencingToken: integer('fencing_token').notNull().default(0),
});

/** date ranges during which nothing starts: organization-wide, per sector or per cluster */
export const maintenanceExclusions = sqliteTable('maintenance_exclusions', {
  id: integer('id').primaryKey({ autoIncrement: true }),
  organizationId: integer('organization_id')
    .notNull()
    .references(() => organizations.id, { onDelete: 'cascade' }),
  scope: text('scope').$type<ExclusionScopeValue>().notNull(),
  /** sector or cluster name, or the label selector; null for the organization */
  subject: text('subject'),
  startsAt: timestamp('starts_at').notNull(),
  endsAt: timestamp('ends_at').notNull(),
  reason: text('reason').notNull(),
  createdBy: text('created_by').notNull(),
  createdAt: timestamp('created_at').notNull(),
});

export const webhooks = sqliteTable('webhooks', {
  id: integer('id').primaryKey({ autoIncrement: true }),
  name: text('name').notNull(),
  url: text('url').notNull(),
  /** HMAC-SHA256 key; never returned to the browser */
  secret: text('secret').notNull(),
  events: json<string[]>('events')
    .notNull()
    .$defaultFn(() => []),
  enabled: integer('enabled', { mode: 'boolean' }).notNull().default(true),
  createdAt: timestamp('created_at').notNull(),
  /** the organization whose events it receives (migration 0011 gave existing webhooks the first organization) */
  organizationId: integer('organization_id').references(() => organizations.id, { onDelete: 'cascade' }),
  /** a label selector: only events of clusters it matches are delivered (null = every cluster) */
  selector: text('selector'),
});

export const webhookDeliveries = sqliteTable(
  'webhook_deliveries',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    webhookId: integer('webhook_id')
      .notNull()
      .references(() => webhooks.id, { onDelete: 'cascade' }),
    event: text('event').$type<WebhookEventValue>().notNull(),
    payload: json<unknown>('payload').notNull(),
    status: text('status').$type<WebhookDeliveryStatusValue>().notNull(),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: timestamp('next_attempt_at'),
    lastStatusCode: integer('last_status_code'),
    lastError: text('last_error'),
    createdAt: timestamp('created_at').notNull(),
    /** the process sending it now (`host:pid`): a delivery is claimed before it is sent, so two processes never both send it */
    claimedBy: text('claimed_by'),
    /** the claim lapses then (a process that died mid-send): another process may retry it */
    claimedUntil: timestamp('claimed_until'),
  },
  (t) => [index('webhook_deliveries_status').on(t.status, t.nextAttemptAt)],
);

/**
 * Blocking hooks: an HTTP endpoint that must allow an upgrade (`pre-upgrade`: `{"allow": true}`)
 * or confirm it healthy (`post-upgrade`: `{"healthy": true}`) for clusters of an organization,
 * or of one sector of it (`sector` null = every sector).
 */
export const hooks = sqliteTable(
  'hooks',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    organizationId: integer('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    sector: text('sector'),
    /** a label selector: the hook applies only to clusters it matches (null = every cluster) */
    selector: text('selector'),
    stage: text('stage').$type<HookStageValue>().notNull(),
    name: text('name').notNull(),
    url: text('url').notNull(),
    /** HMAC-SHA256 key (encrypted at rest like webhook secrets); never returned to the browser */
    secret: text('secret').notNull(),
    /** how long fleetplan waits for the answer */
    timeoutSeconds: integer('timeout_seconds').notNull().default(300),
    enabled: integer('enabled', { mode: 'boolean' }).notNull().default(true),
    createdBy: text('created_by').notNull(),
    createdAt: timestamp('created_at').notNull(),
  },
  (t) => [index('hooks_org_stage').on(t.organizationId, t.stage)],
);

/** One call of one hook for one upgrade lifecycle and stage, and its answer (the verdict). */
export const hookCalls = sqliteTable(
  'hook_calls',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    hookId: integer('hook_id')
      .notNull()
      .references(() => hooks.id, { onDelete: 'cascade' }),
    lifecycleId: text('lifecycle_id').notNull(),
    stage: text('stage').$type<HookStageValue>().notNull(),
    payload: json<unknown>('payload').notNull(),
    status: text('status').$type<HookCallStatusValue>().notNull(),
    /** why it was refused (the hook's answer, or what went wrong); null while pending or allowed */
    reason: text('reason'),
    answerStatusCode: integer('answer_status_code'),
    /** the answer's body as received (at most a few KiB) */
    answer: text('answer'),
    requestedAt: timestamp('requested_at').notNull(),
    answeredAt: timestamp('answered_at'),
    claimedBy: text('claimed_by'),
    claimedUntil: timestamp('claimed_until'),
  },
  (t) => [
    uniqueIndex('hook_calls_lifecycle_stage_hook').on(t.lifecycleId, t.stage, t.hookId),
    index('hook_calls_status').on(t.status),
    index('hook_calls_hook').on(t.hookId, t.id),
  ],
);

/**
 * Moves when the structure of the stored fleet's plan input changes: a cluster's planned fields
 * (name, version, channel, available upgrades, health, policy, current upgrade, order), sectors,
 * blocked versions, the organization's name and allow-lists. SQLite triggers bump it (migration
 * 0006), so every writer counts, on any connection or process. Soak figures, exclusions, halts and
 * settings, which every tick rewrites or which are cheap to read, are not part of it
 * (server/services/stored-fleet-evaluation.ts reloads those whenever anything was written).
 */
export const planRevisions = sqliteTable('plan_revisions', {
  scope: text('scope').primaryKey(),
  revision: integer('revision').notNull(),
});

export const users = sqliteTable('users', {
  id: integer('id').primaryKey({ autoIncrement: true }),
  username: text('username').notNull().unique(),
  /** scrypt hash with its parameters and salt */
  passwordHash: text('password_hash').notNull(),
  /** viewer | operator | admin */
  role: text('role').$type<RoleValue>().notNull(),
  disabled: integer('disabled', { mode: 'boolean' }).notNull().default(false),
  /** set for a printed or admin-reset password: nothing but changing it works until it is changed */
  mustChangePassword: integer('must_change_password', { mode: 'boolean' }).notNull().default(false),
  createdAt: timestamp('created_at').notNull(),
  /**
   * `<provider id>:<subject>` for a user who signs in through an OIDC provider (server/auth/oidc);
   * null for local users. Such a user has an unusable password and its role follows its groups.
   */
  externalSubject: text('external_subject').unique(),
  /** the organization the user last chose (the switcher); where the next visit lands */
  selectedOrganizationId: integer('selected_organization_id').references(() => organizations.id, { onDelete: 'set null' }),
  /**
   * no global role: the user reaches only the organizations it holds a grant on (an OIDC identity
   * that no FLEETPLAN_OIDC_ROLE_GROUPS group matches but an organization's mapping does); `role`
   * is then `viewer`, for the instance's own read-only pages
   */
  organizationsOnly: integer('organizations_only', { mode: 'boolean' }).notNull().default(false),
});

/** A user's role on one organization; for requests on that organization it replaces the global role (global admins stay admins). */
export const organizationRoles = sqliteTable(
  'organization_roles',
  {
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    organizationId: integer('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    role: text('role').$type<RoleValue>().notNull(),
    createdBy: text('created_by').notNull(),
    createdAt: timestamp('created_at').notNull(),
    /** `manual`: granted by an admin; `oidc`: from the organization's group mapping, recomputed at each OIDC sign-in */
    source: text('source').$type<OrganizationRoleSourceValue>().notNull().default('manual'),
  },
  (t) => [primaryKey({ columns: [t.userId, t.organizationId] })],
);

/**
 * Failed sign-ins per account (`user:<name>`) and per client address (`addr:<ip>`), for
 * back-off (server/auth/sign-in-throttle.ts). In the database, not in memory, so every replica
 * sharing the database sees the same counts.
 */
export const signInThrottle = sqliteTable('sign_in_throttle', {
  key: text('key').primaryKey(),
  failures: integer('failures').notNull(),
  lastFailureAt: timestamp('last_failure_at').notNull(),
  blockedUntil: timestamp('blocked_until'),
});

export const sessions = sqliteTable('sessions', {
  /** SHA-256 of the session token; the token itself lives only in the cookie */
  idHash: text('id_hash').primaryKey(),
  userId: integer('user_id')
    .notNull()
    .references(() => users.id, { onDelete: 'cascade' }),
  csrfToken: text('csrf_token').notNull(),
  createdAt: timestamp('created_at').notNull(),
  expiresAt: timestamp('expires_at').notNull(),
});

export const apiTokens = sqliteTable('api_tokens', {
  id: integer('id').primaryKey({ autoIncrement: true }),
  name: text('name').notNull(),
  userId: integer('user_id')
    .notNull()
    .references(() => users.id, { onDelete: 'cascade' }),
  /** SHA-256 of the token; shown once at creation */
  tokenHash: text('token_hash').notNull().unique(),
  prefix: text('prefix').notNull(),
  /** viewer | operator | admin, at most the owner's role */
  scope: text('scope').$type<TokenScopeValue>().notNull(),
  createdAt: timestamp('created_at').notNull(),
  lastUsedAt: timestamp('last_used_at'),
  /** chosen at creation; null only for tokens made before expiry existed */
  expiresAt: timestamp('expires_at'),
  revokedAt: timestamp('revoked_at'),
});

/** small key/value state: simulator clock, scheduler settings */
export const settings = sqliteTable('settings', {
  key: text('key').primaryKey(),
  value: json<unknown>('value').notNull(),
  updatedAt: timestamp('updated_at').notNull(),
});
