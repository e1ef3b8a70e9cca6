// Read-side soak queries for the Soak page: what is waited for, the daily samples of one
// (version, workload), who waits at which threshold and how fast soak grows. All grouped in SQL.
import { and, asc, count, eq, gte, sql } from 'drizzle-orm';
import type { Db } from '@/db/open-database';
import { isPostgres, tablesOf } from './dialect';
import { pgRows } from './postgres-statement';
import { connectionHeld, connectionReleased } from './transaction';

export interface OfferThresholdCount {
  version: string;
  workload: string;
  soakDays: number | null;
  clusters: number;
}

/** Managed clusters offered each version, per (version, workload, soakDays threshold). */
export async function countOffersByThreshold(
  db: Db,
  organizationId: number,
  filter?: { version: string; workload: string },
): Promise<OfferThresholdCount[]> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { clusters, clusterWorkloads } = tablesOf(db);
  const extra = filter ? sql`and j.value = ${filter.version} and w.workload = ${filter.workload}` : sql``;
  if (isPostgres(db)) {
    return pgRows<OfferThresholdCount>(
      db,
      sql`
      select j.value as version, w.workload as workload,
        cast(c.upgrade_policy #>> '{conditions,soakDays}' as double precision) as "soakDays", cast(count(*) as integer) as clusters
      from ${clusters} c
      join ${clusterWorkloads} w on w.cluster_id = c.id
      cross join jsonb_array_elements_text(c.available_upgrades) j(value)
      where c.organization_id = ${organizationId} and c.upgrade_policy is not null ${extra}
      group by j.value, w.workload, "soakDays"
      order by j.value, w.workload, "soakDays" nulls first`,
    );
  }
  return db.all<OfferThresholdCount>(sql`
    select j.value as version, w.workload as workload, json_extract(c.upgrade_policy, '$.conditions.soakDays') as soakDays, count(*) as clusters
    from ${clusters} c
    join ${clusterWorkloads} w on w.cluster_id = c.id
    join json_each(c.available_upgrades) j
    where c.organization_id = ${organizationId} and c.upgrade_policy is not null ${extra}
    group by j.value, w.workload, soakDays`);
}

export async function listSoakTotals(db: Db, organizationId: number): Promise<{ version: string; workload: string; soakDays: number }[]> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { versionSoak } = tablesOf(db);
  return await db
    .select({ version: versionSoak.version, workload: versionSoak.workload, soakDays: versionSoak.soakDays })
    .from(versionSoak)
    .where(eq(versionSoak.organizationId, organizationId))
    // the primary key's order, SQLite's by itself (its lookup walks that index)
    .orderBy(asc(versionSoak.version), asc(versionSoak.workload));
}

export async function findSoakTotal(
  db: Db,
  organizationId: number,
  version: string,
  workload: string,
): Promise<{ soakDays: number; reportingCount: number } | undefined> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { versionSoak } = tablesOf(db);
  return (
    await db
      .select({
        soakDays: versionSoak.soakDays,
        reportingCount: isPostgres(db)
          ? sql<number>`jsonb_array_length(${versionSoak.reporting})`
          : sql<number>`json_array_length(${versionSoak.reporting})`,
      })
      .from(versionSoak)
      .where(and(eq(versionSoak.organizationId, organizationId), eq(versionSoak.version, version), eq(versionSoak.workload, workload)))
      .limit(1)
  )[0];
}

/** Daily samples of one (version, workload), oldest first. */
export async function listSoakSamples(
  db: Db,
  organizationId: number,
  version: string,
  workload: string,
  since: Date,
): Promise<{ at: Date; soakDays: number; reportingCount: number }[]> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { soakSamples } = tablesOf(db);
  return await db
    .select({ at: soakSamples.at, soakDays: soakSamples.soakDays, reportingCount: soakSamples.reportingCount })
    .from(soakSamples)
    .where(
      and(
        eq(soakSamples.organizationId, organizationId),
        eq(soakSamples.version, version),
        eq(soakSamples.workload, workload),
        gte(soakSamples.at, since),
      ),
    )
    .orderBy(asc(soakSamples.at));
}

/** Healthy managed clusters running the version with the workload: soak grows by this many days per day. */
export async function countHealthyRunning(db: Db, organizationId: number, version: string, workload: string): Promise<number> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { clusterWorkloads, clusters } = tablesOf(db);
  return (
    (
      await db
        .select({ n: count() })
        .from(clusters)
        .innerJoin(clusterWorkloads, eq(clusterWorkloads.clusterId, clusters.id))
        .where(
          and(
            eq(clusters.organizationId, organizationId),
            eq(clusters.version, version),
            eq(clusterWorkloads.workload, workload),
            eq(clusters.healthy, true),
            sql`${clusters.upgradePolicy} is not null`,
          ),
        )
        .limit(1)
    )[0]?.n ?? 0
  );
}
