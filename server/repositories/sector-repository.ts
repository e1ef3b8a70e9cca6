// Sector aggregates for the Sectors page: grouped in SQL (per sector, workload and version),
// so a 10,000-cluster fleet comes back as a few hundred rows, never as clusters.
import { asc, eq, sql, type SQL } from 'drizzle-orm';
import type { Db } from '@/db/open-database';
import type { sectors } from '@/db/schema';
import { isPostgres, tablesOf } from './dialect';
import { rowsOnEither } from './postgres-statement';
import { connectionHeld, connectionReleased } from './transaction';

export type SectorRow = typeof sectors.$inferSelect;

export async function listSectorRows(db: Db, organizationId: number): Promise<SectorRow[]> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { sectors } = tablesOf(db);
  return await db.select().from(sectors).where(eq(sectors.organizationId, organizationId)).orderBy(asc(sectors.position), asc(sectors.id));
}

export async function listBlockedPatterns(db: Db, organizationId: number): Promise<string[]> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { blockedVersions } = tablesOf(db);
  return (
    await db.select({ p: blockedVersions.pattern }).from(blockedVersions).where(eq(blockedVersions.organizationId, organizationId))
  ).map((r) => r.p);
}

/**
 * Which managed cluster is in which sector: the engine's membership by cluster name (selectors
 * applied, sector-selectors.ts) when the caller has it, else the sector its policy names (all a
 * fleet that does not validate has). Every count below groups by it.
 */
export type SectorMembership = Readonly<Record<string, string>> | null;

/** the membership as JSON, written once per membership (the page's four aggregates each join it) */
const membershipJson = new WeakMap<object, string>();
function jsonOf(membership: NonNullable<SectorMembership>): string {
  let json = membershipJson.get(membership);
  if (json === undefined) membershipJson.set(membership, (json = JSON.stringify(membership)));
  return json;
}

function membersOf(db: Db, organizationId: number, membership: SectorMembership): SQL {
  const { clusters } = tablesOf(db);
  if (!membership)
    return sql`members(cluster_id, sector) as (
        select id, sector from ${clusters}
        where organization_id = ${organizationId} and sector is not null and upgrade_policy is not null)`;
  if (isPostgres(db))
    return sql`members(cluster_id, sector) as materialized (
        select c.id, j.value from jsonb_each_text(${jsonOf(membership)}::jsonb) j
        join ${clusters} c on c.organization_id = ${organizationId} and c.name = j.key
        where c.upgrade_policy is not null)`;
  // Materialized, and json_each first (CROSS JOIN fixes SQLite's join order): left to itself the
  // planner flattened the CTE into each query and scanned the JSON once per cluster — 44 s for the
  // Sectors page at 10,000 clusters; this way each membership is one lookup in clusters_org_name.
  return sql`members(cluster_id, sector) as materialized (
        select c.id, j.value from json_each(${jsonOf(membership)}) j
        cross join ${clusters} c on c.organization_id = ${organizationId} and c.name = j.key
        where c.upgrade_policy is not null)`;
}

/**
 * The groups in SQLite's order (it sorts them to group them: ascending, nulls first), which
 * PostgreSQL, hashing them, does not keep by itself.
 */
function groupOrderOf(db: Db, keys: string): SQL {
  return isPostgres(db)
    ? sql.raw(
        `order by ${keys
          .split(',')
          .map((key) => `${key.trim()} nulls first`)
          .join(', ')}`,
      )
    : sql``;
}

/** A policy's soakDays threshold as a number (null without one). */
function soakDaysOf(db: Db): SQL {
  return isPostgres(db)
    ? sql`cast(c.upgrade_policy #>> '{conditions,soakDays}' as double precision)`
    : sql`json_extract(c.upgrade_policy, '$.conditions.soakDays')`;
}

/** A group's clusters, healthy ones and those with an upgrade scheduled or running (integers on both databases). */
const COUNTS = sql`cast(count(*) as integer) as clusters,
      cast(sum(case when c.healthy then 1 else 0 end) as integer) as healthy,
      cast(sum(case when c.upgrade_state in ('scheduled', 'upgrading') then 1 else 0 end) as integer) as upgrading`;

export interface SectorVersionCount {
  sector: string;
  workload: string;
  version: string;
  clusters: number;
  healthy: number;
  /** clusters with an upgrade scheduled or running */
  upgrading: number;
}

/** Managed clusters per (sector, workload, current version). */
export async function countBySectorWorkloadVersion(
  db: Db,
  organizationId: number,
  membership: SectorMembership,
): Promise<SectorVersionCount[]> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { clusters, clusterWorkloads } = tablesOf(db);
  return rowsOnEither<SectorVersionCount>(
    db,
    sql`
    with ${membersOf(db, organizationId, membership)}
    select m.sector as sector, w.workload as workload, c.version as version, ${COUNTS}
    from members m
    join ${clusters} c on c.id = m.cluster_id
    join ${clusterWorkloads} w on w.cluster_id = c.id
    group by m.sector, w.workload, c.version
    ${groupOrderOf(db, 'm.sector, w.workload, c.version')}`,
  );
}

export interface SectorThresholdCount {
  sector: string;
  soakDays: number | null;
  clusters: number;
}

/** soakDays thresholds of the sectors' managed clusters. */
export async function countSoakThresholdsBySector(
  db: Db,
  organizationId: number,
  membership: SectorMembership,
): Promise<SectorThresholdCount[]> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { clusters } = tablesOf(db);
  return rowsOnEither<SectorThresholdCount>(
    db,
    sql`
    with ${membersOf(db, organizationId, membership)}
    select m.sector as sector, ${soakDaysOf(db)} as "soakDays", cast(count(*) as integer) as clusters
    from members m
    join ${clusters} c on c.id = m.cluster_id
    group by m.sector, "soakDays"
    ${groupOrderOf(db, 'm.sector, "soakDays"')}`,
  );
}

export interface SectorReasonCount {
  sector: string;
  action: string | null;
  reason: string | null;
  clusters: number;
}

/** The engine's last verdicts per sector. */
export async function countDecisionsBySector(db: Db, organizationId: number, membership: SectorMembership): Promise<SectorReasonCount[]> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { clusters } = tablesOf(db);
  return rowsOnEither<SectorReasonCount>(
    db,
    sql`
    with ${membersOf(db, organizationId, membership)}
    select m.sector as sector, c.last_decision_action as action, c.last_decision_reason as reason, cast(count(*) as integer) as clusters
    from members m
    join ${clusters} c on c.id = m.cluster_id
    group by m.sector, c.last_decision_action, c.last_decision_reason
    ${groupOrderOf(db, 'm.sector, c.last_decision_action, c.last_decision_reason')}`,
  );
}

/** Accumulated soak (without the reporting lists) of the given versions. */
export async function listSoakDays(db: Db, organizationId: number): Promise<{ version: string; workload: string; soakDays: number }[]> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { versionSoak } = tablesOf(db);
  return await db
    .select({ version: versionSoak.version, workload: versionSoak.workload, soakDays: versionSoak.soakDays })
    .from(versionSoak)
    .where(eq(versionSoak.organizationId, organizationId))
    // the primary key's order, SQLite's by itself (its lookup walks that index)
    .orderBy(asc(versionSoak.version), asc(versionSoak.workload));
}

/** Managed clusters per sector: total, healthy, upgrading. */
export async function countBySector(
  db: Db,
  organizationId: number,
  membership: SectorMembership,
): Promise<{ sector: string; clusters: number; healthy: number; upgrading: number }[]> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { clusters } = tablesOf(db);
  return rowsOnEither(
    db,
    sql`
    with ${membersOf(db, organizationId, membership)}
    select m.sector as sector, ${COUNTS}
    from members m
    join ${clusters} c on c.id = m.cluster_id
    group by m.sector
    ${groupOrderOf(db, 'm.sector')}`,
  );
}
