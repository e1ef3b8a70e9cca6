// The PostgreSQL twin of db/schema.ts: the same tables, columns, keys and indexes, with columns
// whose TypeScript types are the same (db/schema-dialects.test.ts compares the two, and checks the
// row types), so one repository code can run on either database. What each column means is said
// in db/schema.ts. Edit both, then `npm run db:generate` (migrations for both under
// db/migrations and db/pg-migrations).
//
// The mappings: SQLite's integer timestamp_ms ↔ timestamptz(3) (both a Date, milliseconds kept);
// integer boolean ↔ boolean; JSON in text ↔ jsonb; real ↔ double precision; an autoincrement
// integer key ↔ an identity column "by default" (explicit ids can still be inserted, as
// `fleetplan migrate-db` does).
import {
  pgTable,
  text,
  integer,
  doublePrecision,
  boolean,
  jsonb,
  timestamp as pgTimestamp,
  index,
  uniqueIndex,
  primaryKey,
} from 'drizzle-orm/pg-core';
import {
  APPROVAL_KIND_VALUES,
  type RoleValue,
  type TokenScopeValue,
  type OrganizationRoleSourceValue,
  type ClusterUpgradeStateValue,
  type UpgradeHistoryStateValue,
  type PolicyRevisionScopeValue,
  type TickStatusValue,
  type ActionIntentKindValue,
  type LifecycleStateValue,
  type OperatorApprovalsValue,
  type EusProcedureValue,
  type ActionIntentStatusValue,
  type ExclusionScopeValue,
  type WebhookDeliveryStatusValue,
  type HookStageValue,
  type HookCallStatusValue,
  type DecisionActionValue,
  type ClusterProviderValue,
  type WebhookEventValue,
} from './schema';

const timestamp = (name: string) => pgTimestamp(name, { mode: 'date', precision: 3, withTimezone: true });
const json = <T>(name: string) => jsonb(name).$type<T>();

export const organizations = pgTable('organizations', {
  id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
  name: text('name').notNull().unique(),
  allowedWorkloads: json<string[] | null>('allowed_workloads'),
  allowedMutexes: json<string[] | null>('allowed_mutexes'),
  frozen: boolean('frozen').notNull().default(false),
  frozenReason: text('frozen_reason'),
  soakCheckIn: timestamp('soak_check_in'),
  targetVersion: text('target_version'),
  maxVersion: text('max_version'),
  revision: integer('revision').notNull().default(1),
  updatedAt: timestamp('updated_at').notNull(),
  providerKind: text('provider_kind'),
  providerCredentialsRef: text('provider_credentials_ref'),
  oidcRoleGroups: text('oidc_role_groups'),
});

export const instanceBlockedVersions = pgTable('instance_blocked_versions', {
  id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
  pattern: text('pattern').notNull().unique(),
  reason: text('reason').notNull().default(''),
  createdBy: text('created_by').notNull(),
  createdAt: timestamp('created_at').notNull(),
});

export const sectors = pgTable(
  'sectors',
  {
    id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
    organizationId: integer('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    position: integer('position').notNull().default(0),
    maxParallelUpgrades: text('max_parallel_upgrades'),
    maxConcurrentUpgrades: text('max_concurrent_upgrades'),
    targetVersion: text('target_version'),
    maxVersion: text('max_version'),
    approvalBefore: boolean('approval_before').notNull().default(false),
    approvalAfter: boolean('approval_after').notNull().default(false),
    notBefore: text('not_before'),
    canary: json<Record<string, unknown> | null>('canary'),
    selector: text('selector'),
    dependencies: json<string[]>('dependencies')
      .notNull()
      .$defaultFn(() => []),
  },
  (t) => [uniqueIndex('sectors_org_name').on(t.organizationId, t.name)],
);

export const blockedVersions = pgTable(
  'blocked_versions',
  {
    id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
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

export const clusters = pgTable(
  'clusters',
  {
    id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
    organizationId: integer('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    externalId: text('external_id').notNull(),
    provider: text('provider').$type<ClusterProviderValue>().notNull().default('simulator'),
    position: integer('position').notNull().default(0),
    version: text('version').notNull(),
    channel: text('channel').notNull(),
    region: text('region').notNull().default(''),
    nodeCount: integer('node_count').notNull().default(3),
    labels: json<Record<string, string>>('labels')
      .notNull()
      .$defaultFn(() => ({})),
    fleetplanLabels: json<Record<string, string>>('fleetplan_labels')
      .notNull()
      .$defaultFn(() => ({})),
    cloud: text('cloud'),
    pendingVersionGates: json<{ id: string; minor: string; description: string; documentationUrl: string | null }[]>(
      'pending_version_gates',
    )
      .notNull()
      .$defaultFn(() => []),
    inhibitors: json<{
      operators: { name: string; namespace: string; maxOpenShiftVersion: string | null }[];
      removedApis: { resource: string; removedInRelease: string; requestCount: number; users: string[] }[];
    }>('inhibitors'),
    availableUpgrades: json<string[]>('available_upgrades')
      .notNull()
      .$defaultFn(() => []),
    healthy: boolean('healthy').notNull().default(true),
    healthIssues: json<string[]>('health_issues')
      .notNull()
      .$defaultFn(() => []),
    upgradePolicy: json<Record<string, unknown> | null>('upgrade_policy'),
    sector: text('sector'),
    upgradeState: text('upgrade_state').$type<ClusterUpgradeStateValue>().notNull().default('idle'),
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
    changedAtRevision: integer('changed_at_revision').notNull().default(0),
  },
  (t) => [
    uniqueIndex('clusters_org_name').on(t.organizationId, t.name),
    index('clusters_sector').on(t.sector),
    index('clusters_external_id').on(t.externalId),
    index('clusters_version').on(t.version),
    index('clusters_state').on(t.upgradeState),
    index('clusters_changed_at_revision').on(t.changedAtRevision),
  ],
);

export const clusterWorkloads = pgTable(
  'cluster_workloads',
  {
    clusterId: integer('cluster_id')
      .notNull()
      .references(() => clusters.id, { onDelete: 'cascade' }),
    workload: text('workload').notNull(),
  },
  (t) => [primaryKey({ columns: [t.clusterId, t.workload] }), index('cluster_workloads_workload').on(t.workload)],
);

export const versionSoak = pgTable(
  'version_soak',
  {
    organizationId: integer('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    version: text('version').notNull(),
    workload: text('workload').notNull(),
    soakDays: doublePrecision('soak_days').notNull().default(0),
    reporting: json<string[]>('reporting')
      .notNull()
      .$defaultFn(() => []),
    firstSeenAt: timestamp('first_seen_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.version, t.workload] })],
);

export const soakSamples = pgTable(
  'soak_samples',
  {
    organizationId: integer('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    at: timestamp('at').notNull(),
    version: text('version').notNull(),
    workload: text('workload').notNull(),
    soakDays: doublePrecision('soak_days').notNull(),
    reportingCount: integer('reporting_count').notNull(),
  },
  (t) => [index('soak_samples_lookup').on(t.organizationId, t.version, t.workload, t.at)],
);

export const clusterUpgrades = pgTable(
  'cluster_upgrades',
  {
    id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
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

export const policyRevisions = pgTable(
  'policy_revisions',
  {
    id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
    organizationId: integer('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    scope: text('scope').$type<PolicyRevisionScopeValue>().notNull(),
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

export const auditLog = pgTable(
  'audit_log',
  {
    id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
    at: timestamp('at').notNull(),
    actor: text('actor').notNull(),
    action: text('action').notNull(),
    target: text('target').notNull(),
    before: json<unknown>('before'),
    after: json<unknown>('after'),
    organizationId: integer('organization_id'),
  },
  (t) => [index('audit_log_at').on(t.at), index('audit_log_organization_at').on(t.organizationId, t.at)],
);

export const approvals = pgTable(
  'approvals',
  {
    id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
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

export const decisions = pgTable(
  'decisions',
  {
    id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
    tickId: integer('tick_id'),
    at: timestamp('at').notNull(),
    organizationId: integer('organization_id').references(() => organizations.id, { onDelete: 'cascade' }),
    clusterName: text('cluster_name').notNull(),
    action: text('action').$type<DecisionActionValue>().notNull(),
    version: text('version'),
    reason: text('reason'),
    message: text('message'),
  },
  (t) => [index('decisions_at').on(t.at), index('decisions_cluster').on(t.clusterName, t.at)],
);

export const updateGraphs = pgTable('update_graphs', {
  id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
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

export const schedulerTicks = pgTable(
  'scheduler_ticks',
  {
    id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
    startedAt: timestamp('started_at').notNull(),
    finishedAt: timestamp('finished_at'),
    status: text('status').$type<TickStatusValue>().notNull(),
    dryRun: boolean('dry_run').notNull().default(false),
    holder: text('holder').notNull(),
    summary: json<Record<string, number>>('summary'),
    error: text('error'),
  },
  (t) => [index('scheduler_ticks_started').on(t.startedAt)],
);

export const actionIntents = pgTable(
  'action_intents',
  {
    id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
    idempotencyKey: text('idempotency_key').notNull().unique(),
    tickId: integer('tick_id'),
    kind: text('kind').$type<ActionIntentKindValue>().notNull(),
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

export const upgradeLifecycles = pgTable(
  'upgrade_lifecycles',
  {
    id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
    clusterId: integer('cluster_id')
      .notNull()
      .references(() => clusters.id, { onDelete: 'cascade' }),
    clusterName: text('cluster_name').notNull(),
    sector: text('sector'),
    fromVersion: text('from_version').notNull(),
    toVersion: text('to_version').notNull(),
    slot: timestamp('slot').notNull(),
    channel: text('channel'),
    state: text('state').$type<LifecycleStateValue>().notNull(),
    reason: text('reason'),
    message: text('message'),
    haltsOnFailure: boolean('halts_on_failure').notNull().default(true),
    createdAt: timestamp('created_at').notNull(),
    updatedAt: timestamp('updated_at').notNull(),
    noticeAt: timestamp('notice_at'),
    startRequestedAt: timestamp('start_requested_at'),
    startConfirmedAt: timestamp('start_confirmed_at'),
    runningAt: timestamp('running_at'),
    providerDoneAt: timestamp('provider_done_at'),
    finishedAt: timestamp('finished_at'),
    operatorApprovals: json<OperatorApprovalsValue>('operator_approvals'),
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

export const upgradeLifecycleTransitions = pgTable(
  'upgrade_lifecycle_transitions',
  {
    id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
    lifecycleId: integer('lifecycle_id')
      .notNull()
      .references(() => upgradeLifecycles.id, { onDelete: 'cascade' }),
    at: timestamp('at').notNull(),
    fromState: text('from_state').$type<LifecycleStateValue>(),
    toState: text('to_state').$type<LifecycleStateValue>().notNull(),
    reason: text('reason'),
    message: text('message').notNull(),
    actor: text('actor').notNull(),
    tickId: integer('tick_id'),
  },
  (t) => [index('upgrade_lifecycle_transitions_lifecycle').on(t.lifecycleId, t.at), index('upgrade_lifecycle_transitions_at').on(t.at)],
);

export const metricCounters = pgTable(
  'metric_counters',
  {
    name: text('name').notNull(),
    labels: text('labels').notNull(),
    value: doublePrecision('value').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.name, t.labels] })],
);

export const schedulerLeases = pgTable('scheduler_leases', {
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

export const maintenanceExclusions = pgTable('maintenance_exclusions', {
  id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
  organizationId: integer('organization_id')
    .notNull()
    .references(() => organizations.id, { onDelete: 'cascade' }),
  scope: text('scope').$type<ExclusionScopeValue>().notNull(),
  subject: text('subject'),
  startsAt: timestamp('starts_at').notNull(),
  endsAt: timestamp('ends_at').notNull(),
  reason: text('reason').notNull(),
  createdBy: text('created_by').notNull(),
  createdAt: timestamp('created_at').notNull(),
});

export const webhooks = pgTable('webhooks', {
  id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
  name: text('name').notNull(),
  url: text('url').notNull(),
  secret: text('secret').notNull(),
  events: json<string[]>('events')
    .notNull()
    .$defaultFn(() => []),
  enabled: boolean('enabled').notNull().default(true),
  createdAt: timestamp('created_at').notNull(),
  organizationId: integer('organization_id').references(() => organizations.id, { onDelete: 'cascade' }),
  selector: text('selector'),
});

export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
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
    claimedBy: text('claimed_by'),
    claimedUntil: timestamp('claimed_until'),
  },
  (t) => [index('webhook_deliveries_status').on(t.status, t.nextAttemptAt)],
);

export const hooks = pgTable(
  'hooks',
  {
    id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
    organizationId: integer('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    sector: text('sector'),
    selector: text('selector'),
    stage: text('stage').$type<HookStageValue>().notNull(),
    name: text('name').notNull(),
    url: text('url').notNull(),
    secret: text('secret').notNull(),
    timeoutSeconds: integer('timeout_seconds').notNull().default(300),
    enabled: boolean('enabled').notNull().default(true),
    createdBy: text('created_by').notNull(),
    createdAt: timestamp('created_at').notNull(),
  },
  (t) => [index('hooks_org_stage').on(t.organizationId, t.stage)],
);

export const hookCalls = pgTable(
  'hook_calls',
  {
    id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
    hookId: integer('hook_id')
      .notNull()
      .references(() => hooks.id, { onDelete: 'cascade' }),
    lifecycleId: text('lifecycle_id').notNull(),
    stage: text('stage').$type<HookStageValue>().notNull(),
    payload: json<unknown>('payload').notNull(),
    status: text('status').$type<HookCallStatusValue>().notNull(),
    reason: text('reason'),
    answerStatusCode: integer('answer_status_code'),
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

export const planRevisions = pgTable('plan_revisions', {
  scope: text('scope').primaryKey(),
  revision: integer('revision').notNull(),
});

export const users = pgTable('users', {
  id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
  username: text('username').notNull().unique(),
  passwordHash: text('password_hash').notNull(),
  role: text('role').$type<RoleValue>().notNull(),
  disabled: boolean('disabled').notNull().default(false),
  mustChangePassword: boolean('must_change_password').notNull().default(false),
  createdAt: timestamp('created_at').notNull(),
  externalSubject: text('external_subject').unique(),
  selectedOrganizationId: integer('selected_organization_id').references(() => organizations.id, { onDelete: 'set null' }),
  organizationsOnly: boolean('organizations_only').notNull().default(false),
});

export const organizationRoles = pgTable(
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
    source: text('source').$type<OrganizationRoleSourceValue>().notNull().default('manual'),
  },
  (t) => [primaryKey({ columns: [t.userId, t.organizationId] })],
);

export const signInThrottle = pgTable('sign_in_throttle', {
  key: text('key').primaryKey(),
  failures: integer('failures').notNull(),
  lastFailureAt: timestamp('last_failure_at').notNull(),
  blockedUntil: timestamp('blocked_until'),
});

export const sessions = pgTable('sessions', {
  idHash: text('id_hash').primaryKey(),
  userId: integer('user_id')
    .notNull()
    .references(() => users.id, { onDelete: 'cascade' }),
  csrfToken: text('csrf_token').notNull(),
  createdAt: timestamp('created_at').notNull(),
  expiresAt: timestamp('expires_at').notNull(),
});

export const apiTokens = pgTable('api_tokens', {
  id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
  name: text('name').notNull(),
  userId: integer('user_id')
    .notNull()
    .references(() => users.id, { onDelete: 'cascade' }),
  tokenHash: text('token_hash').notNull().unique(),
  prefix: text('prefix').notNull(),
  scope: text('scope').$type<TokenScopeValue>().notNull(),
  createdAt: timestamp('created_at').notNull(),
  lastUsedAt: timestamp('last_used_at'),
  expiresAt: timestamp('expires_at'),
  revokedAt: timestamp('revoked_at'),
});

export const settings = pgTable('settings', {
  key: text('key').primaryKey(),
  value: json<unknown>('value').notNull(),
  updatedAt: timestamp('updated_at').notNull(),
});
