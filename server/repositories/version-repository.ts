// Accumulated soak per (version, workload) and its daily samples.
import { asc, count, eq } from 'drizzle-orm';
import type { Db } from '@/db/open-database';
import { tablesOf } from './dialect';
import { connectionHeld, connectionReleased } from './transaction';

export async function listVersionSoak(db: Db) {
  while (connectionHeld(db)) await connectionReleased(db);
  const { versionSoak } = tablesOf(db);
  return await db.select().from(versionSoak).orderBy(asc(versionSoak.version), asc(versionSoak.workload));
}

/** Blocked-version regexes of an organization with who added them and why. */
export async function listBlockedVersions(db: Db, organizationId: number) {
  while (connectionHeld(db)) await connectionReleased(db);
  const { blockedVersions } = tablesOf(db);
  return await db.select().from(blockedVersions).where(eq(blockedVersions.organizationId, organizationId)).orderBy(asc(blockedVersions.id));
}

/** Soak per (version, workload) of one organization. */
export async function listVersionSoakOf(db: Db, organizationId: number) {
  while (connectionHeld(db)) await connectionReleased(db);
  const { versionSoak } = tablesOf(db);
  return await db.select().from(versionSoak).where(eq(versionSoak.organizationId, organizationId));
}

/** How many clusters run each version now (one grouped query, cheap at 10k clusters). */
export async function countClustersByVersion(db: Db, organizationId: number): Promise<{ version: string; count: number }[]> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { clusters } = tablesOf(db);
  return await db
    .select({ version: clusters.version, count: count() })
    .from(clusters)
    .where(eq(clusters.organizationId, organizationId))
    .groupBy(clusters.version);
}
