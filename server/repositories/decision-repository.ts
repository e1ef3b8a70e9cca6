// Per-tick persistence: cluster snapshots, decisions, intents and upgrade history rows.
// A tick writes up to one row per cluster: on SQLite through prepared statements on the raw
// handle, on PostgreSQL one statement per batch (arrays unnested into rows).
import type { ClusterInhibitorFacts } from '@/server/domain/lifecycle/inhibitors';
import { and, count, desc, eq, gte, inArray, lte, sql, type SQL } from 'drizzle-orm';
import type { Db } from '@/db/open-database';
import type { ActionIntentKindValue } from '@/db/schema';
import type { clusters, DecisionActionValue } from '@/db/schema';
import type { DecisionRecord } from '@/server/domain/scheduling/tick-decisions';
import { isPostgres, tablesOf, type Tables } from './dialect';
import { arrayOf, pgExecute } from './postgres-statement';
import { readSetting, writeSetting } from './scheduler-repository';
import { connectionHeld, connectionReleased, readTogether, withTransaction } from './transaction';

const statements = new WeakMap<object, Map<string, import('better-sqlite3').Statement>>();
/**
 * Prepared statements cached per connection: a tick runs the same few statements thousands of times.
 * SQLite only (better-sqlite3's `prepare`): callers take their PostgreSQL branch before it.
 */
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
  if (isPostgres(db)) {
    const { clusters } = tablesOf(db);
    const rows = await db
      .select({
        id: clusters.id,
        name: clusters.name,
        externalId: clusters.externalId,
        version: clusters.version,
        sector: clusters.sector,
        managed: sql<boolean>`${clusters.upgradePolicy} is not null`,
        currentUpgrade: clusters.currentUpgrade,
        upgradeState: clusters.upgradeState,
        healthy: clusters.healthy,
        healthIssues: clusters.healthIssues,
        lastDecisionAction: clusters.lastDecisionAction,
        lastDecisionReason: clusters.lastDecisionReason,
        lastDecisionVersion: clusters.lastDecisionVersion,
        nextRun: clusters.nextRun,
        missedSnapshots: clusters.missedSnapshots,
      })
      .from(clusters)
      .where(eq(clusters.organizationId, organizationId))
      .orderBy(clusters.position, clusters.id);
    return rows.map((r) => ({ ...r, nextRun: r.nextRun?.getTime() ?? null }));
  }
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
  if (isPostgres(db)) {
    if (missed.length > 0)
      await pgExecute(
        db,
        sql`update clusters c set missed_snapshots = m.count
            from unnest(${arrayOf(missed, (m) => m.id)}::int[], ${arrayOf(missed, (m) => m.count)}::int[]) as m(id, count) where c.id = m.id`,
      );
    if (goneIds.length > 0)
      await pgExecute(db, sql`update clusters set upgrade_state = 'gone' where id = any(${arrayOf(goneIds, (id) => id)}::int[])`);
    return;
  }
  const setMissed = db.$client.prepare('update clusters set missed_snapshots = ? where id = ?');
  for (const m of missed) setMissed.run(m.count, m.id);
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
  if (isPostgres(db)) {
    await writeSnapshotsOnPostgres(db, organizationId, updates, inserts, observedAt);
    await writeSetting(db, SNAPSHOT_OBSERVED_AT_SETTING, observedAt.getTime(), observedAt);
    return;
  }
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

// labels are stored with sorted keys: the same labels in another order are no change
const labelsJson = (d: SnapshotDiscovery | null) =>
  d ? JSON.stringify(Object.fromEntries(Object.entries(d.labels).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))) : null;
const jsonOrNull = (value: unknown) => (value ? JSON.stringify(value) : null);

/**
 * writeSnapshots on PostgreSQL: the same rules as SQLite's statements (write a row only when an
 * observed value changed; discovery only when reported, each value only when known), one UPDATE
 * for every update and one INSERT for every new cluster, their values passed as arrays.
 */
async function writeSnapshotsOnPostgres(
  db: Db,
  organizationId: number,
  updates: readonly SnapshotUpdate[],
  inserts: readonly SnapshotInsert[],
  observedAt: Date,
): Promise<void> {
  if (updates.length > 0) {
    const column = <T>(pick: (u: SnapshotUpdate) => T) => arrayOf(updates, pick);
    await pgExecute(
      db,
      sql`update clusters c set version = u.version, channel = u.channel, available_upgrades = u.available_upgrades::jsonb,
            healthy = u.healthy, health_issues = u.health_issues::jsonb, current_upgrade = u.current_upgrade::jsonb,
            upgrade_state = u.upgrade_state, pending_version_gates = u.pending_version_gates::jsonb,
            inhibitors = coalesce(u.inhibitors::jsonb, c.inhibitors),
            labels = case when u.discovered then u.labels::jsonb else c.labels end,
            cloud = case when u.discovered then u.cloud else c.cloud end,
            region = case when u.discovered and u.region is not null then u.region else c.region end,
            node_count = case when u.discovered and u.node_count is not null then u.node_count else c.node_count end,
            observed_at = ${observedAt}
          from unnest(${column((u) => u.id)}::int[], ${column((u) => u.version)}::text[], ${column((u) => u.channel)}::text[],
                      ${column((u) => JSON.stringify(u.availableUpgrades))}::text[], ${column((u) => u.healthy)}::boolean[],
                      ${column((u) => JSON.stringify(u.healthIssues))}::text[], ${column((u) => jsonOrNull(u.currentUpgrade))}::text[],
                      ${column((u) => u.upgradeState)}::text[], ${column((u) => JSON.stringify(u.pendingVersionGates))}::text[],
                      ${column((u) => jsonOrNull(u.inhibitors))}::text[], ${column((u) => u.discovery !== null)}::boolean[],
                      ${column((u) => labelsJson(u.discovery))}::text[], ${column((u) => u.discovery?.cloud ?? null)}::text[],
                      ${column((u) => u.discovery?.region ?? null)}::text[], ${column((u) => u.discovery?.nodeCount ?? null)}::int[])
            as u(id, version, channel, available_upgrades, healthy, health_issues, current_upgrade, upgrade_state,
                 pending_version_gates, inhibitors, discovered, labels, cloud, region, node_count)
          where c.id = u.id and (c.version is distinct from u.version or c.channel is distinct from u.channel
            or c.available_upgrades is distinct from u.available_upgrades::jsonb or c.healthy is distinct from u.healthy
            or c.health_issues is distinct from u.health_issues::jsonb or c.current_upgrade is distinct from u.current_upgrade::jsonb
            or c.upgrade_state is distinct from u.upgrade_state or c.pending_version_gates is distinct from u.pending_version_gates::jsonb
            or (u.inhibitors is not null and c.inhibitors is distinct from u.inhibitors::jsonb)
            or (u.discovered and (c.labels is distinct from u.labels::jsonb or c.cloud is distinct from u.cloud
              or (u.region is not null and c.region is distinct from u.region)
              or (u.node_count is not null and c.node_count is distinct from u.node_count))))`,
    );
  }
  if (inserts.length > 0) {
    const column = <T>(pick: (i: SnapshotInsert) => T) => arrayOf(inserts, pick);
    // fleetplan_labels: PostgreSQL's column has no default (SQLite's has '{}')
    // positions continue after the organization's last one, in the order given (as SQLite's one-by-one inserts number them)
    await pgExecute(
      db,
      sql`insert into clusters (organization_id, name, external_id, provider, position, version, channel, available_upgrades, healthy,
            health_issues, current_upgrade, upgrade_state, pending_version_gates, inhibitors, labels, fleetplan_labels, cloud, region, node_count,
            observed_at)
          select ${organizationId}, i.name, i.external_id, i.provider,
                 (select coalesce(max(position), 0) from clusters where organization_id = ${organizationId}) + i.n,
                 i.version, i.channel, i.available_upgrades::jsonb, i.healthy, i.health_issues::jsonb, i.current_upgrade::jsonb,
                 i.upgrade_state, i.pending_version_gates::jsonb, i.inhibitors::jsonb, i.labels::jsonb, '{}'::jsonb, i.cloud,
                 coalesce(i.region, ''), coalesce(i.node_count, 3), ${observedAt}
          from unnest(${column((i) => i.name)}::text[], ${column((i) => i.externalId)}::text[], ${column((i) => i.provider)}::text[],
                      ${column((i) => i.version)}::text[], ${column((i) => i.channel)}::text[],
                      ${column((i) => JSON.stringify(i.availableUpgrades))}::text[], ${column((i) => i.healthy)}::boolean[],
                      ${column((i) => JSON.stringify(i.healthIssues))}::text[], ${column((i) => jsonOrNull(i.currentUpgrade))}::text[],
                      ${column((i) => i.upgradeState)}::text[], ${column((i) => JSON.stringify(i.pendingVersionGates))}::text[],
                      ${column((i) => jsonOrNull(i.inhibitors))}::text[], ${column((i) => labelsJson(i.discovery) ?? '{}')}::text[],
                      ${column((i) => i.discovery?.cloud ?? null)}::text[], ${column((i) => i.discovery?.region ?? null)}::text[],
                      ${column((i) => i.discovery?.nodeCount ?? null)}::int[])
            with ordinality as i(name, external_id, provider, version, channel, available_upgrades, healthy, health_issues,
                                 current_upgrade, upgrade_state, pending_version_gates, inhibitors, labels, cloud, region, node_count, n)
          order by i.n`,
    );
  }
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
    if (isPostgres(db)) return recordUpgradeTransitionOnPostgres(db, v);
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

type UpgradeTransition = Parameters<typeof recordUpgradeTransition>[1];

/** recordUpgradeTransition's steps with the query builder: a `coalesce(?, column)` is a column set only when given. */
async function recordUpgradeTransitionOnPostgres(db: Db, v: UpgradeTransition): Promise<void> {
  const { clusterUpgrades } = tablesOf(db);
  const [open] = await db
    .select({ id: clusterUpgrades.id })
    .from(clusterUpgrades)
    .where(
      and(
        eq(clusterUpgrades.clusterId, v.clusterId),
        eq(clusterUpgrades.toVersion, v.toVersion),
        inArray(clusterUpgrades.state, ['scheduled', 'started']),
      ),
    )
    .orderBy(desc(clusterUpgrades.id))
    .limit(1);
  const at = new Date(v.at);
  const ends = v.state === 'completed' || v.state === 'failed' || v.state === 'cancelled';
  if (open) {
    await db
      .update(clusterUpgrades)
      .set({
        state: v.state,
        ...(v.state === 'started' ? { startedAt: at } : {}),
        ...(ends ? { completedAt: at } : {}),
        ...(v.message != null ? { message: v.message } : {}),
      })
      .where(eq(clusterUpgrades.id, open.id));
    return;
  }
  await db.insert(clusterUpgrades).values({
    clusterId: v.clusterId,
    fromVersion: v.fromVersion,
    toVersion: v.toVersion,
    state: v.state,
    scheduledFor: v.scheduledFor == null ? null : new Date(v.scheduledFor),
    startedAt: v.state === 'started' || v.state === 'completed' || v.state === 'failed' ? at : null,
    completedAt: ends ? at : null,
    message: v.message ?? null,
  });
}

/**
 * recordUpgradeTransition for many clusters at once (a tick's new attempts). On PostgreSQL one
 * statement: each row closes or moves its cluster's open upgrade to that version, or inserts one.
 * Rows naming one (cluster, version) twice would read each other's writes: those go one by one.
 */
export async function recordUpgradeTransitions(db: Db, rows: readonly UpgradeTransition[]): Promise<void> {
  if (rows.length === 0) return;
  return withTransaction(db, async () => {
    if (!isPostgres(db) || new Set(rows.map((r) => JSON.stringify([r.clusterId, r.toVersion]))).size < rows.length) {
      for (const r of rows) await recordUpgradeTransition(db, r);
      return;
    }
    const column = <T>(pick: (r: UpgradeTransition) => T) => arrayOf(rows, pick);
    const iso = (ms: number | null | undefined) => (ms == null ? null : new Date(ms).toISOString());
    await pgExecute(
      db,
      sql`with v as (
            select * from unnest(${column((r) => r.clusterId)}::int[], ${column((r) => r.fromVersion)}::text[], ${column((r) => r.toVersion)}::text[],
                                 ${column((r) => r.state)}::text[], ${column((r) => iso(r.at))}::timestamptz[],
                                 ${column((r) => iso(r.scheduledFor))}::timestamptz[], ${column((r) => r.message ?? null)}::text[])
              with ordinality as v(cluster_id, from_version, to_version, state, at, scheduled_for, message, n)
          ),
          open as (
            select distinct on (v.n) v.n, u.id
            from v join cluster_upgrades u on u.cluster_id = v.cluster_id and u.to_version = v.to_version and u.state in ('scheduled', 'started')
            order by v.n, u.id desc
          ),
          moved as (
            update cluster_upgrades u
            set state = v.state,
                started_at = case when v.state = 'started' then v.at else u.started_at end,
                completed_at = case when v.state in ('completed', 'failed', 'cancelled') then v.at else u.completed_at end,
                message = coalesce(v.message, u.message)
            from open join v on v.n = open.n
            where u.id = open.id
          )
          insert into cluster_upgrades (cluster_id, from_version, to_version, state, scheduled_for, started_at, completed_at, message)
          select v.cluster_id, v.from_version, v.to_version, v.state, v.scheduled_for,
                 case when v.state in ('started', 'completed', 'failed') then v.at end,
                 case when v.state in ('completed', 'failed', 'cancelled') then v.at end,
                 v.message
          from v where not exists (select 1 from open where open.n = v.n)
          order by v.n`,
    );
  });
}

/**
 * setClusterUpgrade for many clusters of one organization at once (one statement on PostgreSQL);
 * a gone cluster stays gone.
 */
export async function setClusterUpgrades(
  db: Db,
  organizationId: number,
  rows: readonly { name: string; upgrade: ClusterUpgradeJson | null; upgradeState: string }[],
): Promise<void> {
  if (rows.length === 0) return;
  while (connectionHeld(db)) await connectionReleased(db);
  // a cluster named twice takes its last row, as one by one
  if (!isPostgres(db) || new Set(rows.map((r) => r.name)).size < rows.length) {
    await withTransaction(db, async () => {
      for (const r of rows) await setClusterUpgrade(db, organizationId, r.name, r.upgrade, r.upgradeState);
    });
    return;
  }
  const column = <T>(pick: (r: (typeof rows)[number]) => T) => arrayOf(rows, pick);
  await pgExecute(
    db,
    sql`update clusters c
        set current_upgrade = u.upgrade, upgrade_state = case when c.upgrade_state = 'gone' then 'gone' else u.upgrade_state end
        from unnest(${column((r) => r.name)}::text[], ${column((r) => (r.upgrade ? JSON.stringify(r.upgrade) : null))}::jsonb[],
                    ${column((r) => r.upgradeState)}::text[]) as u(name, upgrade, upgrade_state)
        where c.organization_id = ${organizationId} and c.name = u.name`,
  );
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
  if (isPostgres(db)) {
    if (rows.length === 0) return;
    const column = <T>(pick: (r: DecisionRecord) => T) => arrayOf(rows, pick);
    await pgExecute(
      db,
      sql`insert into decisions (tick_id, at, organization_id, cluster_name, action, version, reason, message)
          select ${tickId}::int, ${at}::timestamptz, ${organizationId}::int, d.cluster_name, d.action, d.version, d.reason, d.message
          from unnest(${column((r) => r.clusterName)}::text[], ${column((r) => r.action)}::text[], ${column((r) => r.version)}::text[],
                      ${column((r) => r.reason)}::text[], ${column((r) => r.message)}::text[])
            with ordinality as d(cluster_name, action, version, reason, message, n)
          order by d.n`,
    );
    return;
  }
  const stmt = db.$client.prepare(
    'insert into decisions (tick_id, at, organization_id, cluster_name, action, version, reason, message) values (?, ?, ?, ?, ?, ?, ?, ?)',
  );
  for (const r of rows) stmt.run(tickId, at.getTime(), organizationId, r.clusterName, r.action, r.version, r.reason, r.message);
}

export async function updateLastDecisions(db: Db, organizationId: number, rows: readonly DecisionRecord[]): Promise<void> {
  while (connectionHeld(db)) await connectionReleased(db);
  if (isPostgres(db)) {
    if (rows.length === 0) return;
    const column = <T>(pick: (r: DecisionRecord) => T) => arrayOf(rows, pick);
    await pgExecute(
      db,
      sql`update clusters c set last_decision_action = d.action, last_decision_reason = d.reason, last_decision_message = d.message,
            last_decision_version = d.version, next_run = to_timestamp(d.next_run / 1000.0)
          from unnest(${column((r) => r.clusterName)}::text[], ${column((r) => r.action)}::text[], ${column((r) => r.reason)}::text[],
                      ${column((r) => r.message)}::text[], ${column((r) => r.version)}::text[], ${column((r) => r.nextRun)}::float8[])
            as d(cluster_name, action, reason, message, version, next_run)
          where c.organization_id = ${organizationId} and c.name = d.cluster_name`,
    );
    return;
  }
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
  if (isPostgres(db)) {
    const { clusters } = tablesOf(db);
    await db
      .update(clusters)
      .set({ currentUpgrade: upgrade, upgradeState: sql`case when ${clusters.upgradeState} = 'gone' then 'gone' else ${upgradeState} end` })
      .where(and(eq(clusters.organizationId, organizationId), eq(clusters.name, name)));
    return;
  }
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
  if (isPostgres(db)) {
    // the unique key decides: of two transactions inserting one key, the second inserts nothing
    const { actionIntents } = tablesOf(db);
    const [inserted] = await db
      .insert(actionIntents)
      .values({
        idempotencyKey: v.key,
        tickId: v.tickId,
        kind: v.kind,
        organizationId: v.organizationId ?? null,
        clusterName: v.clusterName,
        version: v.version,
        nextRun: v.nextRun === null ? null : new Date(v.nextRun),
        status: 'pending',
        attempts: 0,
        createdAt: v.createdAt,
      })
      .onConflictDoNothing({ target: actionIntents.idempotencyKey })
      .returning({ id: actionIntents.id });
    return inserted?.id ?? null;
  }
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

function decisionWhere({ decisions }: Tables, f: DecisionFilter): SQL | undefined {
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
  return readTogether(db, async () => {
    const tables = tablesOf(db);
    const { decisions, schedulerTicks } = tables;
    const where = decisionWhere(tables, f);
    const rows = await db
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
      .offset(offset);
    const total = (await db.select({ n: count() }).from(decisions).where(where).limit(1))[0]!.n;
    return { rows, total };
  });
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
  return readTogether(db, async () => {
    const { actionIntents } = tablesOf(db);
    const parts: SQL[] = [];
    if (f.organizationId !== undefined) parts.push(eq(actionIntents.organizationId, f.organizationId));
    if (f.cluster) parts.push(eq(actionIntents.clusterName, f.cluster));
    // Filters are free text: a value outside the column's vocabulary simply matches nothing.
    if (f.kind) parts.push(sql`${actionIntents.kind} = ${f.kind}`);
    if (f.status) parts.push(sql`${actionIntents.status} = ${f.status}`);
    if (f.from) parts.push(gte(actionIntents.createdAt, f.from));
    if (f.to) parts.push(lte(actionIntents.createdAt, f.to));
    const where = parts.length ? and(...parts) : undefined;
    const rows = await db.select().from(actionIntents).where(where).orderBy(desc(actionIntents.id)).limit(limit).offset(offset);
    const total = (await db.select({ n: count() }).from(actionIntents).where(where).limit(1))[0]!.n;
    return { rows, total };
  });
}

export async function countDecisionsByReason(
  db: Db,
  sinceMs: number,
): Promise<{ action: DecisionActionValue; reason: string | null; n: number }[]> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { decisions } = tablesOf(db);
  return await db
    .select({ action: decisions.action, reason: decisions.reason, n: count() })
    .from(decisions)
    .where(gte(decisions.at, new Date(sinceMs)))
    .groupBy(decisions.action, decisions.reason);
}
