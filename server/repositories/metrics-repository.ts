// The persisted Prometheus counters (metric_counters) and the scrape-time reads of the metrics
// endpoint. Counters live in the database so that every replica sharing it serves one value.
import { inArray, max, sql } from 'drizzle-orm';
import type { Db } from '@/db/open-database';
import { pgExecute } from './decision-repository';
import { isPostgres, tablesOf } from './dialect';
import { connectionHeld, connectionReleased, withTransaction } from './transaction';

export type CounterLabels = Readonly<Record<string, string>>;
export interface CounterIncrement {
  name: string;
  labels: CounterLabels;
  by: number;
}
export interface CounterRow {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The stored form of a label set: JSON of an object with its keys sorted, so equal sets meet. */
export function canonicalLabels(labels: CounterLabels): string {
  return JSON.stringify(Object.fromEntries(Object.entries(labels).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))));
}

/** Adds every increment in one transaction (an upsert each); increments of 0 or less are ignored. */
export async function addToCounters(db: Db, increments: readonly CounterIncrement[]): Promise<void> {
  const wanted = increments.filter((i) => i.by > 0);
  if (wanted.length === 0) return;
  await withTransaction(db, async () => {
    const { metricCounters } = tablesOf(db);
    for (const i of wanted) {
      await db
        .insert(metricCounters)
        .values({ name: i.name, labels: canonicalLabels(i.labels), value: i.by })
        .onConflictDoUpdate({
          target: [metricCounters.name, metricCounters.labels],
          set: { value: sql`${metricCounters.value} + excluded.value` },
        });
    }
  });
}

export async function listCounters(db: Db): Promise<CounterRow[]> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { metricCounters } = tablesOf(db);
  return (await db.select().from(metricCounters).orderBy(metricCounters.name, metricCounters.labels)).map((r) => ({
    name: r.name,
    labels: JSON.parse(r.labels) as Record<string, string>,
    value: r.value,
  }));
}

/** When the last finished tick of each outcome started (ticks still running are left out). */
export async function lastTickStartByStatus(db: Db): Promise<{ status: 'succeeded' | 'failed'; startedAt: Date }[]> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { schedulerTicks } = tablesOf(db);
  // max() of the column maps back to a Date on either database
  const rows = await db
    .select({ status: schedulerTicks.status, startedAt: max(schedulerTicks.startedAt) })
    .from(schedulerTicks)
    .where(inArray(schedulerTicks.status, ['succeeded', 'failed']))
    .groupBy(schedulerTicks.status);
  return rows.map((r) => ({ status: r.status as 'succeeded' | 'failed', startedAt: r.startedAt! }));
}

export interface ClusterMetricRow {
  name: string;
  externalId: string;
  provider: string;
  upgradeState: string;
  /** when the provider reported the current upgrade started (ISO), if it has */
  upgradeStartedAt: string | null;
}

/** What the per-cluster metrics need beyond the plan input, in one pass over the clusters. */
export async function listClusterMetricRows(db: Db, organizationId: number): Promise<ClusterMetricRow[]> {
  while (connectionHeld(db)) await connectionReleased(db);
  if (isPostgres(db))
    return (
      await pgExecute<ClusterMetricRow>(
        db,
        sql`select name, external_id as "externalId", provider, upgrade_state as "upgradeState",
                   current_upgrade ->> 'startedAt' as "upgradeStartedAt"
            from clusters where organization_id = ${organizationId} order by position, id`,
      )
    ).rows;
  return db.$client
    .prepare(
      `select name, external_id as externalId, provider, upgrade_state as upgradeState,
              json_extract(current_upgrade, '$.startedAt') as upgradeStartedAt
       from clusters where organization_id = ? order by position, id`,
    )
    .all(organizationId) as ClusterMetricRow[];
}

export interface LatestAttemptRow {
  cluster: string;
  externalId: string;
  fromVersion: string;
  toVersion: string;
  state: string;
  reason: string | null;
  updatedAt: number;
}

/** Each cluster's latest upgrade attempt (the highest id), with the cluster's external id. */
export async function listLatestAttempts(db: Db, organizationId: number): Promise<LatestAttemptRow[]> {
  while (connectionHeld(db)) await connectionReleased(db);
  if (isPostgres(db))
    return (
      await pgExecute<LatestAttemptRow>(
        db,
        sql`select c.name as cluster, c.external_id as "externalId", l.from_version as "fromVersion", l.to_version as "toVersion",
                   l.state, l.reason, (extract(epoch from l.updated_at) * 1000)::float8 as "updatedAt"
            from upgrade_lifecycles l
            join (select cluster_id, max(id) as id from upgrade_lifecycles group by cluster_id) latest on latest.id = l.id
            join clusters c on c.id = l.cluster_id
            where c.organization_id = ${organizationId}
            order by c.position, c.id`,
      )
    ).rows;
  return db.$client
    .prepare(
      `select c.name as cluster, c.external_id as externalId, l.from_version as fromVersion, l.to_version as toVersion,
              l.state, l.reason, l.updated_at as updatedAt
       from upgrade_lifecycles l
       join (select cluster_id, max(id) as id from upgrade_lifecycles group by cluster_id) latest on latest.id = l.id
       join clusters c on c.id = l.cluster_id
       where c.organization_id = ?
       order by c.position, c.id`,
    )
    .all(organizationId) as LatestAttemptRow[];
}

export interface FailureCountRow {
  cluster: string;
  externalId: string;
  state: 'failed' | 'timed-out';
  attempts: number;
  unacknowledged: number;
}

/** Per cluster, how many attempts ended failed or timed out, and how many of those await an acknowledgement. */
export async function countFailedAttempts(db: Db, organizationId: number): Promise<FailureCountRow[]> {
  while (connectionHeld(db)) await connectionReleased(db);
  if (isPostgres(db))
    return (
      await pgExecute<FailureCountRow>(
        db,
        sql`select c.name as cluster, c.external_id as "externalId", l.state, count(*)::int as attempts,
                   sum(case when l.acknowledged_at is null then 1 else 0 end)::int as unacknowledged
            from upgrade_lifecycles l join clusters c on c.id = l.cluster_id
            where l.state in ('failed', 'timed-out') and c.organization_id = ${organizationId}
            group by c.id, l.state
            order by c.position, c.id, l.state`,
      )
    ).rows;
  return db.$client
    .prepare(
      `select c.name as cluster, c.external_id as externalId, l.state, count(*) as attempts,
              sum(case when l.acknowledged_at is null then 1 else 0 end) as unacknowledged
       from upgrade_lifecycles l join clusters c on c.id = l.cluster_id
       where l.state in ('failed', 'timed-out') and c.organization_id = ?
       group by c.id, l.state
       order by c.position, c.id, l.state`,
    )
    .all(organizationId) as FailureCountRow[];
}
