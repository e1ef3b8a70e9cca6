// Sector aggregates for the Sectors page: grouped in SQL (per sector, workload and version),
// so a 10,000-cluster fleet comes back as a few hundred rows, never as clusters.
import { and, asc, eq, isNotNull, sql } from 'drizzle-orm';
import type { Db } from '@/db/open-database';
import { blockedVersions, clusters, clusterWorkloads, sectors, versionSoak } from '@/db/schema';

export type SectorRow = typeof sectors.$inferSelect;

export function listSectorRows(db: Db, organizationId: number): SectorRow[] {
  return db.select().from(sectors).where(eq(sectors.organizationId, organizationId)).orderBy(asc(sectors.position), asc(sectors.id)).all();
}

export function listBlockedPatterns(db: Db, organizationId: number): string[] {
  return db
    .select({ p: blockedVersions.pattern })
    .from(blockedVersions)
    .where(eq(blockedVersions.organizationId, organizationId))
    .all()
    .map((r) => r.p);
}

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
export function countBySectorWorkloadVersion(db: Db, organizationId: number): SectorVersionCount[] {
  return db
    .select({
      sector: sql<string>`${clusters.sector}`,
      workload: clusterWorkloads.workload,
      version: clusters.version,
      clusters: sql<number>`count(*)`,
      healthy: sql<number>`sum(case when ${clusters.healthy} then 1 else 0 end)`,
      upgrading: sql<number>`sum(case when ${clusters.upgradeState} in ('scheduled', 'upgrading') then 1 else 0 end)`,
    })
    .from(clusters)
    .innerJoin(clusterWorkloads, eq(clusterWorkloads.clusterId, clusters.id))
    .where(and(eq(clusters.organizationId, organizationId), isNotNull(clusters.sector), isNotNull(clusters.upgradePolicy)))
    .groupBy(clusters.sector, clusterWorkloads.workload, clusters.version)
    .all();
}

export interface SectorOfferCount {
  sector: string;
  workload: string;
  version: string;
  clusters: number;
}

/** Versions offered (availableUpgrades) to managed clusters, per (sector, workload, version). */
export function countOffersBySectorWorkload(db: Db, organizationId: number): SectorOfferCount[] {
  return db.all<SectorOfferCount>(sql`
    select c.sector as sector, w.workload as workload, j.value as version, count(*) as clusters
    from ${clusters} c
    join ${clusterWorkloads} w on w.cluster_id = c.id
    join json_each(c.available_upgrades) j
    where c.organization_id = ${organizationId} and c.sector is not null and c.upgrade_policy is not null
    group by c.sector, w.workload, j.value`);
}

export interface SectorThresholdCount {
  sector: string;
  soakDays: number | null;
  clusters: number;
}

/** soakDays thresholds of the sectors' managed clusters. */
export function countSoakThresholdsBySector(db: Db, organizationId: number): SectorThresholdCount[] {
  return db.all<SectorThresholdCount>(sql`
    select sector, json_extract(upgrade_policy, '$.conditions.soakDays') as soakDays, count(*) as clusters
    from ${clusters}
    where organization_id = ${organizationId} and sector is not null and upgrade_policy is not null
    group by sector, soakDays`);
}

export interface SectorReasonCount {
  sector: string;
  action: string | null;
  reason: string | null;
  clusters: number;
}

/** The engine's last verdicts per sector. */
export function countDecisionsBySector(db: Db, organizationId: number): SectorReasonCount[] {
  return db
    .select({
      sector: sql<string>`${clusters.sector}`,
      action: clusters.lastDecisionAction,
      reason: clusters.lastDecisionReason,
      clusters: sql<number>`count(*)`,
    })
    .from(clusters)
    .where(and(eq(clusters.organizationId, organizationId), isNotNull(clusters.sector), isNotNull(clusters.upgradePolicy)))
    .groupBy(clusters.sector, clusters.lastDecisionAction, clusters.lastDecisionReason)
    .all();
}

/** Accumulated soak (without the reporting lists) of the given versions. */
export function listSoakDays(db: Db, organizationId: number): { version: string; workload: string; soakDays: number }[] {
  return db
    .select({ version: versionSoak.version, workload: versionSoak.workload, soakDays: versionSoak.soakDays })
    .from(versionSoak)
    .where(eq(versionSoak.organizationId, organizationId))
    .all();
}

/** Managed clusters per sector: total, healthy, upgrading. */
export function countBySector(db: Db, organizationId: number): { sector: string; clusters: number; healthy: number; upgrading: number }[] {
  return db
    .select({
      sector: sql<string>`${clusters.sector}`,
      clusters: sql<number>`count(*)`,
      healthy: sql<number>`sum(case when ${clusters.healthy} then 1 else 0 end)`,
      upgrading: sql<number>`sum(case when ${clusters.upgradeState} in ('scheduled', 'upgrading') then 1 else 0 end)`,
    })
    .from(clusters)
    .where(and(eq(clusters.organizationId, organizationId), isNotNull(clusters.sector), isNotNull(clusters.upgradePolicy)))
    .groupBy(clusters.sector)
    .all();
}
