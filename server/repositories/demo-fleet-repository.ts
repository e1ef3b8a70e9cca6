// Writes a generated demo fleet into an empty (or wiped) database, in one transaction.
import { sql } from 'drizzle-orm';
import type { Db } from '@/db/open-database';
import * as t from '@/db/schema';
import type { DemoFleet } from '@/server/demo/demo-fleet';
import { connectionHeld, connectionReleased } from './transaction';

export async function isDatabaseEmpty(db: Db): Promise<boolean> {
  while (connectionHeld(db)) await connectionReleased(db);
  return (
    db
      .select({ n: sql<number>`count(*)` })
      .from(t.organizations)
      .get()!.n === 0
  );
}

export async function wipeFleetData(db: Db): Promise<void> {
  while (connectionHeld(db)) await connectionReleased(db);
  db.transaction((tx) => {
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
      tx.delete(table)
        .where(sql`1 = 1`)
        .run();
    }
  });
}

export async function insertDemoFleet(db: Db, fleet: DemoFleet, now: Date): Promise<{ organizationId: number }> {
  while (connectionHeld(db)) await connectionReleased(db);
  return db.transaction((tx) => {
    const org = tx
      .insert(t.organizations)
      .values({
        name: fleet.organization.name,
        allowedWorkloads: fleet.organization.allowedWorkloads,
        allowedMutexes: fleet.organization.allowedMutexes,
        soakCheckIn: fleet.checkIn,
        updatedAt: now,
      })
      .returning({ id: t.organizations.id })
      .get();
    const organizationId = org.id;
    fleet.organization.sectors.forEach((s, position) => {
      tx.insert(t.sectors)
        .values({
          organizationId,
          name: s.name,
          position,
          maxParallelUpgrades: s.maxParallelUpgrades ?? null,
          canary: s.canary ?? null,
          dependencies: s.dependencies,
        })
        .run();
    });
    for (const b of fleet.organization.blockedVersions) {
      tx.insert(t.blockedVersions)
        .values({ organizationId, pattern: b.pattern, reason: b.reason, createdBy: 'demo-seed', createdAt: now })
        .run();
    }
    const idByName = new Map<string, number>();
    fleet.clusters.forEach((c, position) => {
      const row = tx
        .insert(t.clusters)
        .values({
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
        })
        .returning({ id: t.clusters.id })
        .get();
      idByName.set(c.name, row.id);
      for (const workload of c.upgradePolicy?.workloads ?? []) tx.insert(t.clusterWorkloads).values({ clusterId: row.id, workload }).run();
    });
    for (const u of fleet.upgrades) {
      const clusterId = idByName.get(u.cluster);
      if (clusterId === undefined) continue;
      tx.insert(t.clusterUpgrades)
        .values({
          clusterId,
          fromVersion: u.fromVersion,
          toVersion: u.toVersion,
          state: u.state,
          scheduledFor: u.startedAt,
          startedAt: u.startedAt,
          completedAt: u.completedAt,
          message: u.message ?? null,
        })
        .run();
    }
    for (const v of fleet.versionSoak) {
      tx.insert(t.versionSoak)
        .values({
          organizationId,
          version: v.version,
          workload: v.workload,
          soakDays: v.soakDays,
          reporting: v.reporting,
          firstSeenAt: v.firstSeenAt,
        })
        .run();
    }
    for (const s of fleet.soakSamples) {
      tx.insert(t.soakSamples)
        .values({ organizationId, ...s })
        .run();
    }
    return { organizationId };
  });
}
