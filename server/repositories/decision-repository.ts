// Per-tick persistence: cluster snapshots, decisions, intents and upgrade history rows.
// Prepared statements on the raw handle: a tick writes up to one row per cluster.
import type { ClusterInhibitorFacts } from '@/server/domain/lifecycle/inhibitors';
import { and, desc, eq, gte, lte, sql, type SQL } from 'drizzle-orm';
import type { Db } from '@/db/open-database';
import type { ActionIntentKindValue } from '@/db/schema';
import { actionIntents, clusters, decisions, schedulerTicks, type DecisionActionValue } from '@/db/schema';
import type { DecisionRecord } from '@/server/domain/scheduling/tick-decisions';
import { readSetting, writeSetting } from './scheduler-repository';
import { connectionHeld, connectionReleased, withTransaction } from './transaction';

const statements = new WeakMap<object, Map<string, import('better-sqlite3').Statement>>();
/** Prepared statements cached per connection: a tick runs the same few statements thousands of times. */
export async function cachedStatement(db: Db, text: string): Promise<import('better-sqlite3').Statement> {
  while (connectionHeld(db)) await connectionReleased(db);
  let byText = statements.get(db.$client);
  if (!byText) {
    byText = new Map();
    statements.set(db.$client, byText);
  }
  let stmt = byText.get(text);
  if (!stmt) {
    stmt = db.$client.prepare(text);
    byText.set(text, stmt);
  }
  return stmt;
}

type ClusterUpgradeJson = NonNullable<(typeof clusters.$inferSelect)['currentUpgrade']>;
type PendingVersionGatesJson = (typeof clusters.$inferSelect)['pendingVersionGates'];

/** What the provider reported of where and what the cluster is; null fields are unknown. */
export interface SnapshotDiscovery {
  labels: Record<string, string>;
  cloud: string | null;
  region: string | null;
  nodeCount: number | null;
}

export interface StoredClusterState {
  id: number;
  name: string;
  externalId: string;
  version: string;
  sector: string | null;
  managed: boolean;
  currentUpgrade: ClusterUpgradeJson | null;
  upgradeState: string;
  healthy: boolean;
  healthIssues: string[];
  lastDecisionAction: DecisionActionValue | null;
  lastDecisionReason: string | null;
  lastDecisionVersion: string | null;
  nextRun: number | null;
  missedSnapshots: number;
}

export async function loadClusterStates(db: Db, organizationId: number): Promise<StoredClusterState[]> {
  while (connectionHeld(db)) await connectionReleased(db);
  const rows = db.$client
    .prepare(
      `select id, name, external_id as externalId, version, sector, upgrade_policy is not null as managed, current_upgrade as currentUpgrade, upgrade_state as upgradeState,
              healthy, health_issues as healthIssues, last_decision_action as lastDecisionAction, last_decision_reason as lastDecisionReason,
              last_decision_version as lastDecisionVersion, next_run as nextRun, missed_snapshots as missedSnapshots
       from clusters where organization_id = ? order by position, id`,
    )
    .all(organizationId) as (Omit<StoredClusterState, 'currentUpgrade' | 'healthIssues' | 'managed' | 'healthy'> & {
    currentUpgrade: string | null;
    healthIssues: string;
    managed: number;
    healthy: number;
  })[];
  return rows.map((r) => ({
    ...r,
    managed: r.managed === 1,
    healthy: r.healthy === 1,
    currentUpgrade: r.currentUpgrade ? (JSON.parse(r.currentUpgrade) as ClusterUpgradeJson) : null,
    healthIssues: JSON.parse(r.healthIssues) as string[],
  }));
}

export interface SnapshotUpdate {
  id: number;
  version: string;
  channel: string;
  availableUpgrades: string[];
  healthy: boolean;
  healthIssues: string[];
  currentUpgrade: ClusterUpgradeJson | null;
  upgradeState: string;
  /** null: not reported this time (the stored labels, cloud, region and nodes stay) */
  discovery: SnapshotDiscovery | null;
  pendingVersionGates: PendingVersionGatesJson;
  /** null: not read this time (the stored facts stay) */
  inhibitors: ClusterInhibitorFacts | null;
}

export interface SnapshotInsert {
  name: string;
  externalId: string;
  provider: string;
  version: string;
  channel: string;
  availableUpgrades: string[];
  healthy: boolean;
  healthIssues: string[];
  currentUpgrade: ClusterUpgradeJson | null;
  upgradeState: string;
  discovery: SnapshotDiscovery | null;
  pendingVersionGates: PendingVersionGatesJson;
  inhibitors: ClusterInhibitorFacts | null;
}

/**
 * How many snapshots in a row missed each cluster, and those now gone: kept with their history,
 * state `gone` (left out of the plan input).
 */
export async function markMissedAndGone(
  db: Db,
  missed: readonly { id: number; count: number }[],
  goneIds: readonly number[],
): Promise<void> {
  while (connectionHeld(db)) await connectionReleased(db);
  const count = db.$client.prepare('update clusters set missed_snapshots = ? where id = ?');
  for (const m of missed) count.run(m.count, m.id);
  const mark = db.$client.prepare("update clusters set upgrade_state = 'gone' where id = ?");
  for (const id of goneIds) mark.run(id);
}

/** When the provider's last snapshot was stored (ms): every cluster it listed was seen then, changed or not. */
export const SNAPSHOT_OBSERVED_AT_SETTING = 'snapshot.observedAt';

/** The instant of the last stored snapshot, or null before the first. */
export async function readSnapshotObservedAt(db: Db): Promise<Date | null> {
  while (connectionHeld(db)) await connectionReleased(db);
  const at = await readSetting<number>(db, SNAPSHOT_OBSERVED_AT_SETTING);
  return at === undefined ? null : new Date(at);
}

export async function writeSnapshots(
  db: Db,
  organizationId: number,
  updates: SnapshotUpdate[],
  inserts: SnapshotInsert[],
  observedAt: Date,
): Promise<void> {
  while (connectionHeld(db)) await connectionReleased(db);
  const client = db.$client;
  // Only rows whose observed values changed are written (on a 10,000-cluster fleet most ticks
  // change a handful): the others keep their observed_at, and the tick's instant is recorded
  // once for the whole snapshot (SNAPSHOT_OBSERVED_AT_SETTING) for the pages to show.
  // Discovery is written only when reported (@discovered), each value only when known: a provider
  // that could not read labels this time, or knows no node count, erases nothing stored.
  const upd = client.prepare(
    `update clusters set version = @version, channel = @channel, available_upgrades = @availableUpgrades, healthy = @healthy,
       health_issues = @healthIssues, current_upgrade = @currentUpgrade, upgrade_state = @upgradeState,
       pending_version_gates = @pendingVersionGates, inhibitors = iif(@inhibitors is null, inhibitors, @inhibitors),
       labels = iif(@discovered, @labels, labels), cloud = iif(@discovered, @cloud, cloud),
       region = iif(@discovered and @region is not null, @region, region),
       node_count = iif(@discovered and @nodeCount is not null, @nodeCount, node_count), observed_at = @at
     where id = @id and (version is not @version or channel is not @channel or available_upgrades is not @availableUpgrades
       or healthy is not @healthy or health_issues is not @healthIssues or current_upgrade is not @currentUpgrade
       or upgrade_state is not @upgradeState or pending_version_gates is not @pendingVersionGates
       or (@inhibitors is not null and inhibitors is not @inhibitors)
       or (@discovered and (labels is not @labels or cloud is not @cloud or (@region is not null and region is not @region)
         or (@nodeCount is not null and node_count is not @nodeCount))))`,
  );
  const ins = client.prepare(
    `insert into clusters (organization_id, name, external_id, provider, position, version, channel, available_upgrades, healthy, health_issues,
       current_upgrade, upgrade_state, pending_version_gates, inhibitors, labels, cloud, region, node_count, observed_at)
     values (?, ?, ?, ?, (select coalesce(max(position), 0) + 1 from clusters where organization_id = ?), ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,
       coalesce(?, ''), coalesce(?, 3), ?)`,
  );
  // labels are stored with sorted keys: the same labels in another order are no change
  const labelsJson = (d: SnapshotDiscovery | null) =>
    d ? JSON.stringify(Object.fromEntries(Object.entries(d.labels).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))) : null;
  const at = observedAt.getTime();
  for (const u of updates) {
    upd.run({
      version: u.version,
      channel: u.channel,
      availableUpgrades: JSON.stringify(u.availableUpgrades),
      healthy: u.healthy ? 1 : 0,
      healthIssues: JSON.stringify(u.healthIssues),
      currentUpgrade: u.currentUpgrade ? JSON.stringify(u.currentUpgrade) : null,
      upgradeState: u.upgradeState,
      pendingVersionGates: JSON.stringify(u.pendingVersionGates),
      inhibitors: u.inhibitors ? JSON.stringify(u.inhibitors) : null,
      discovered: u.discovery ? 1 : 0,
      labels: labelsJson(u.discovery),
      cloud: u.discovery?.cloud ?? null,
      region: u.discovery?.region ?? null,
      nodeCount: u.discovery?.nodeCount ?? null,
      at,
      id: u.id,
    });
  }
  for (const i of inserts) {
    ins.run(
      organizationId,
      i.name,
      i.externalId,
      i.provider,
      organizationId,
      i.version,
      i.channel,
      JSON.stringify(i.availableUpgrades),
      i.healthy ? 1 : 0,
      JSON.stringify(i.healthIssues),
      i.currentUpgrade ? JSON.stringify(i.currentUpgrade) : null,
      i.upgradeState,
      JSON.stringify(i.pendingVersionGates),
      i.inhibitors ? JSON.stringify(i.inhibitors) : null,
      labelsJson(i.discovery) ?? '{}',
      i.discovery?.cloud ?? null,
      i.discovery?.region ?? null,
      i.discovery?.nodeCount ?? null,
      at,
    );
  }
  await writeSetting(db, SNAPSHOT_OBSERVED_AT_SETTING, at, observedAt);
}

/** Upgrade history: move the open row for (cluster, target) forward, or open one. */
export async function recordUpgradeTransition(
  db: Db,
  v: {
    clusterId: number;
    fromVersion: string;
    toVersion: string;
    state: 'scheduled' | 'started' | 'completed' | 'failed' | 'cancelled';
    at: number;
    scheduledFor?: number | null;
    message?: string | null;
  },
): Promise<void> {
  return withTransaction(db, async () => {
    const open = (
      await cachedStatement(
        db,
        `select id from cluster_upgrades where cluster_id = ? and to_version = ? and state in ('scheduled', 'started') order by id desc limit 1`,
      )
    ).get(v.clusterId, v.toVersion) as { id: number } | undefined;
    const startedAt = v.state === 'started' ? v.at : null;
    const completedAt = v.state === 'completed' || v.state === 'failed' || v.state === 'cancelled' ? v.at : null;
    if (open) {
      (
        await cachedStatement(
          db,
          'update cluster_upgrades set state = ?, started_at = coalesce(?, started_at), completed_at = coalesce(?, completed_at), message = coalesce(?, message) where id = ?',
        )
      ).run(v.state, startedAt, completedAt, v.message ?? null, open.id);
    } else {
      (
        await cachedStatement(
          db,
          'insert into cluster_upgrades (cluster_id, from_version, to_version, state, scheduled_for, started_at, completed_at, message) values (?, ?, ?, ?, ?, ?, ?, ?)',
        )
      ).run(
        v.clusterId,
        v.fromVersion,
        v.toVersion,
        v.state,
        v.scheduledFor ?? null,
        startedAt ?? (v.state === 'completed' || v.state === 'failed' ? v.at : null),
        completedAt,
        v.message ?? null,
      );
    }
  });
}

/** @deprecated the domain's DecisionRecord under its old name (kept until server/scheduler/run-tick.ts imports DecisionRecord) */
export type DecisionWrite = DecisionRecord;

/** A tick's decisions for the clusters of `organizationId` (null: not known, as for rows older than migration 0011). */
export async function insertDecisions(
  db: Db,
  tickId: number,
  at: Date,
  rows: readonly DecisionRecord[],
  organizationId: number | null = null,
): Promise<void> {
  while (connectionHeld(db)) await connectionReleased(db);
  const stmt = db.$client.prepare(
    'insert into decisions (tick_id, at, organization_id, cluster_name, action, version, reason, message) values (?, ?, ?, ?, ?, ?, ?, ?)',
  );
  for (const r of rows) stmt.run(tickId, at.getTime(), organizationId, r.clusterName, r.action, r.version, r.reason, r.message);
}

export async function updateLastDecisions(db: Db, organizationId: number, rows: readonly DecisionRecord[]): Promise<void> {
  while (connectionHeld(db)) await connectionReleased(db);
  const stmt = db.$client.prepare(
    'update clusters set last_decision_action = ?, last_decision_reason = ?, last_decision_message = ?, last_decision_version = ?, next_run = ? where organization_id = ? and name = ?',
  );
  for (const r of rows) stmt.run(r.action, r.reason, r.message, r.version, r.nextRun, organizationId, r.clusterName);
}

export async function setClusterUpgrade(
  db: Db,
  organizationId: number,
  name: string,
  upgrade: ClusterUpgradeJson | null,
  upgradeState: string,
): Promise<void> {
  // a gone cluster stays gone: an attempt that ends for it does not bring it back into planning
  while (connectionHeld(db)) await connectionReleased(db);
  (
    await cachedStatement(
      db,
      "update clusters set current_upgrade = ?, upgrade_state = case when upgrade_state = 'gone' then 'gone' else ? end where organization_id = ? and name = ?",
    )
  ).run(upgrade ? JSON.stringify(upgrade) : null, upgradeState, organizationId, name);
}

/** Inserts an intent unless its idempotency key exists; returns the new id or null. */
export async function insertIntent(
  db: Db,
  v: {
    key: string;
    tickId: number;
    kind: ActionIntentKindValue;
    /** the cluster's organization */
    organizationId?: number | null;
    clusterName: string;
    version: string;
    nextRun: number | null;
    createdAt: Date;
  },
): Promise<number | null> {
  while (connectionHeld(db)) await connectionReleased(db);
  const res = (
    await cachedStatement(
      db,
      `insert into action_intents (idempotency_key, tick_id, kind, organization_id, cluster_name, version, next_run, status, attempts, created_at) values (?, ?, ?, ?, ?, ?, ?, 'pending', 0, ?) on conflict(idempotency_key) do nothing`,
    )
  ).run(v.key, v.tickId, v.kind, v.organizationId ?? null, v.clusterName, v.version, v.nextRun, v.createdAt.getTime());
  return res.changes === 1 ? Number(res.lastInsertRowid) : null;
}

// ---- reads for the Activity page and the scheduler status ---------------------------------

export interface DecisionFilter {
  /** only this organization's decisions */
  organizationId?: number;
  cluster?: string;
  action?: string;
  reason?: string;
  from?: Date;
  to?: Date;
  tickId?: number;
}

function decisionWhere(f: DecisionFilter): SQL | undefined {
  const parts: SQL[] = [];
  if (f.organizationId !== undefined) parts.push(eq(decisions.organizationId, f.organizationId));
  if (f.cluster) parts.push(eq(decisions.clusterName, f.cluster));
  // Filters are free text: a value outside the column's vocabulary simply matches nothing.
  if (f.action) parts.push(sql`${decisions.action} = ${f.action}`);
  if (f.reason) parts.push(eq(decisions.reason, f.reason));
  if (f.from) parts.push(gte(decisions.at, f.from));
  if (f.to) parts.push(lte(decisions.at, f.to));
  if (f.tickId !== undefined) parts.push(eq(decisions.tickId, f.tickId));
  return parts.length ? and(...parts) : undefined;
}

export async function listDecisions(db: Db, f: DecisionFilter, offset: number, limit: number) {
  while (connectionHeld(db)) await connectionReleased(db);
  const where = decisionWhere(f);
  const rows = db
    .select({
      id: decisions.id,
      tickId: decisions.tickId,
      at: decisions.at,
      clusterName: decisions.clusterName,
      action: decisions.action,
      version: decisions.version,
      reason: decisions.reason,
      message: decisions.message,
      dryRun: schedulerTicks.dryRun,
    })
    .from(decisions)
    .leftJoin(schedulerTicks, eq(schedulerTicks.id, decisions.tickId))
    .where(where)
    .orderBy(desc(decisions.id))
    .limit(limit)
    .offset(offset)
    .all();
  const total = db
    .select({ n: sql<number>`count(*)` })
    .from(decisions)
    .where(where)
    .get()!.n;
  return { rows, total };
}

export interface IntentFilter {
  /** only this organization's actions */
  organizationId?: number;
  cluster?: string;
  kind?: string;
  status?: string;
  from?: Date;
  to?: Date;
}

export async function listIntents(db: Db, f: IntentFilter, offset: number, limit: number) {
  while (connectionHeld(db)) await connectionReleased(db);
  const parts: SQL[] = [];
  if (f.organizationId !== undefined) parts.push(eq(actionIntents.organizationId, f.organizationId));
  if (f.cluster) parts.push(eq(actionIntents.clusterName, f.cluster));
  // Filters are free text: a value outside the column's vocabulary simply matches nothing.
  if (f.kind) parts.push(sql`${actionIntents.kind} = ${f.kind}`);
  if (f.status) parts.push(sql`${actionIntents.status} = ${f.status}`);
  if (f.from) parts.push(gte(actionIntents.createdAt, f.from));
  if (f.to) parts.push(lte(actionIntents.createdAt, f.to));
  const where = parts.length ? and(...parts) : undefined;
  const rows = db.select().from(actionIntents).where(where).orderBy(desc(actionIntents.id)).limit(limit).offset(offset).all();
  const total = db
    .select({ n: sql<number>`count(*)` })
    .from(actionIntents)
    .where(where)
    .get()!.n;
  return { rows, total };
}

export async function countDecisionsByReason(
  db: Db,
  sinceMs: number,
): Promise<{ action: DecisionActionValue; reason: string | null; n: number }[]> {
  while (connectionHeld(db)) await connectionReleased(db);
  return db.$client.prepare('select action, reason, count(*) as n from decisions where at >= ? group by action, reason').all(sinceMs) as {
    action: DecisionActionValue;
    reason: string | null;
    n: number;
  }[];
}
