// Writes a generated demo fleet into an empty (or wiped) database, in one transaction.
import { count, sql } from 'drizzle-orm';
import type { SQLiteTable } from 'drizzle-orm/sqlite-core';
import type { Db } from '@/db/open-database';
import type { DemoCluster, DemoFleet } from '@/server/demo/demo-fleet';
import { isPostgres, tablesOf, type Tables } from './dialect';
import { connectionHeld, connectionReleased, withTransaction } from './transaction';
import { chunksOf } from '@/lib/chunks-of';

export async function isDatabaseEmpty(db: Db): Promise<boolean> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { organizations } = tablesOf(db);
  return (await db.select({ n: count() }).from(organizations))[0]!.n === 0;
}

export async function wipeFleetData(db: Db): Promise<void> {
  while (connectionHeld(db)) await connectionReleased(db);
  const t = tablesOf(db);
  await withTransaction(db, async () => {
    for (const table of [
      t.decisions,
      t.actionIntents,
      t.schedulerTicks,
      t.policyRevisions,
      t.soakSamples,
      t.versionSoak,
      t.clusterUpgrades,
      t.clusterWorkloads,
      t.clusters,
      t.blockedVersions,
      t.sectors,
      t.maintenanceExclusions,
      t.organizations,
    ]) {
      await db.delete(table as SQLiteTable).where(sql`1 = 1`);
    }
  });
}

type Insert<
  K extends
    'organizations' | 'sectors' | 'blockedVersions' | 'clusters' | 'clusterWorkloads' | 'clusterUpgrades' | 'versionSoak' | 'soakSamples',
> = Tables[K]['$inferInsert'];

/** The fleet's rows but for the clusters' ids, which the clusters' inserts give. */
function fleetRowsOf(fleet: DemoFleet, organizationId: number, now: Date) {
  return {
    sectors: fleet.organization.sectors.map((s, position): Insert<'sectors'> => ({
      organizationId,
      name: s.name,
      position,
      maxParallelUpgrades: s.maxParallelUpgrades ?? null,
      canary: s.canary ?? null,
      dependencies: s.dependencies,
    })),
    blockedVersions: fleet.organization.blockedVersions.map((b): Insert<'blockedVersions'> => ({
      organizationId,
      pattern: b.pattern,
      reason: b.reason,
      createdBy: 'demo-seed',
      createdAt: now,
    })),
    clusters: fleet.clusters.map((c, position) => clusterRowOf(c, position, organizationId, now)),
    versionSoak: fleet.versionSoak.map((v): Insert<'versionSoak'> => ({
      organizationId,
      version: v.version,
      workload: v.workload,
      soakDays: v.soakDays,
      reporting: v.reporting,
      firstSeenAt: v.firstSeenAt,
    })),
    soakSamples: fleet.soakSamples.map((s): Insert<'soakSamples'> => ({ organizationId, ...s })),
  };
}

function clusterRowOf(c: DemoCluster, position: number, organizationId: number, now: Date): Insert<'clusters'> {
  return {
    organizationId,
    name: c.name,
    externalId: c.externalId,
    provider: 'simulator',
    position,
    version: c.version,
    channel: c.channel,
    region: c.region,
    nodeCount: c.nodeCount,
    availableUpgrades: c.availableUpgrades,
    healthy: c.healthy,
    healthIssues: c.healthIssues,
    upgradePolicy: c.upgradePolicy as unknown as Record<string, unknown> | null,
    sector: c.upgradePolicy?.conditions.sector ?? null,
    upgradeState: c.currentUpgrade ? (c.currentUpgrade.state === 'started' ? 'upgrading' : 'scheduled') : 'idle',
    currentUpgrade: c.currentUpgrade,
    observedAt: now,
  };
}

/** The clusters' workload rows and upgrade history, once their ids are known. */
function clusterChildRowsOf(fleet: DemoFleet, idByName: ReadonlyMap<string, number>) {
  return {
    workloads: fleet.clusters.flatMap((c) =>
      (c.upgradePolicy?.workloads ?? []).map((workload): Insert<'clusterWorkloads'> => ({ clusterId: idByName.get(c.name)!, workload })),
    ),
    upgrades: fleet.upgrades.flatMap((u): Insert<'clusterUpgrades'>[] => {
      const clusterId = idByName.get(u.cluster);
      if (clusterId === undefined) return [];
      return [
        {
          clusterId,
          fromVersion: u.fromVersion,
          toVersion: u.toVersion,
          state: u.state,
          scheduledFor: u.startedAt,
          startedAt: u.startedAt,
          completedAt: u.completedAt,
          message: u.message ?? null,
        },
      ];
    }),
  };
}

function organizationRowOf(fleet: DemoFleet, now: Date): Insert<'organizations'> {
  return {
    name: fleet.organization.name,
    allowedWorkloads: fleet.organization.allowedWorkloads,
    allowedMutexes: fleet.organization.allowedMutexes,
    soakCheckIn: fleet.checkIn,
    updatedAt: now,
  };
}

export async function insertDemoFleet(db: Db, fleet: DemoFleet, now: Date): Promise<{ organizationId: number }> {
  while (connectionHeld(db)) await connectionReleased(db);
  if (isPostgres(db)) return insertDemoFleetInBatches(db, fleet, now);
  const t = tablesOf(db);
  return db.transaction((tx) => {
    const organizationId = tx.insert(t.organizations).values(organizationRowOf(fleet, now)).returning({ id: t.organizations.id }).get().id;
    const rows = fleetRowsOf(fleet, organizationId, now);
    for (const row of rows.sectors) tx.insert(t.sectors).values(row).run();
    for (const row of rows.blockedVersions) tx.insert(t.blockedVersions).values(row).run();
    const idByName = new Map<string, number>();
    for (const row of rows.clusters) idByName.set(row.name, tx.insert(t.clusters).values(row).returning({ id: t.clusters.id }).get().id);
    const children = clusterChildRowsOf(fleet, idByName);
    for (const row of children.workloads) tx.insert(t.clusterWorkloads).values(row).run();
    for (const row of children.upgrades) tx.insert(t.clusterUpgrades).values(row).run();
    for (const row of rows.versionSoak) tx.insert(t.versionSoak).values(row).run();
    for (const row of rows.soakSamples) tx.insert(t.soakSamples).values(row).run();
    return { organizationId };
  });
}

/** rows per multi-row insert: PostgreSQL takes at most 65,535 parameters a statement, a cluster row has ~20 */
const BATCH_ROWS = 1_000;

/** PostgreSQL: the same rows, a statement per table and batch rather than per row. */
async function insertDemoFleetInBatches(db: Db, fleet: DemoFleet, now: Date): Promise<{ organizationId: number }> {
  const t = tablesOf(db);
  return withTransaction(db, async () => {
    const organizationId = (
      await db.insert(t.organizations).values(organizationRowOf(fleet, now)).returning({ id: t.organizations.id })
    )[0]!.id;
    const rows = fleetRowsOf(fleet, organizationId, now);
    const insertAll = async (table: SQLiteTable, all: object[]) => {
      for (const batch of chunksOf(all, BATCH_ROWS)) await db.insert(table).values(batch);
    };
    await insertAll(t.sectors, rows.sectors);
    await insertAll(t.blockedVersions, rows.blockedVersions);
    const idByName = new Map<string, number>();
    for (const batch of chunksOf(rows.clusters, BATCH_ROWS)) {
      for (const row of await db.insert(t.clusters).values(batch).returning({ id: t.clusters.id, name: t.clusters.name }))
        idByName.set(row.name, row.id);
    }
    const children = clusterChildRowsOf(fleet, idByName);
    await insertAll(t.clusterWorkloads, children.workloads);
    await insertAll(t.clusterUpgrades, children.upgrades);
    await insertAll(t.versionSoak, rows.versionSoak);
    await insertAll(t.soakSamples, rows.soakSamples);
    return { organizationId };
  });
}
