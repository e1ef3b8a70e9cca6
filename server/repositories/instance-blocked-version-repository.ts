// The instance's blocked versions (applied to every organization beside its own list).
import type { Db } from '@/db/open-database';
import { asc, eq } from 'drizzle-orm';
import { instanceBlockedVersions } from '@/db/schema';
import { affectedRows, tablesOf } from './dialect';
import { connectionHeld, connectionReleased } from './transaction';

export type InstanceBlockedVersionRow = typeof instanceBlockedVersions.$inferSelect;

export async function listInstanceBlockedVersions(db: Db): Promise<InstanceBlockedVersionRow[]> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { instanceBlockedVersions } = tablesOf(db);
  return await db.select().from(instanceBlockedVersions).orderBy(asc(instanceBlockedVersions.id));
}

/** The patterns only, oldest first (the engine's input). */
export async function listInstanceBlockedPatterns(db: Db): Promise<string[]> {
  while (connectionHeld(db)) await connectionReleased(db);
  return (await listInstanceBlockedVersions(db)).map((b) => b.pattern);
}

export async function findInstanceBlockedVersion(db: Db, pattern: string): Promise<InstanceBlockedVersionRow | undefined> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { instanceBlockedVersions } = tablesOf(db);
  return (await db.select().from(instanceBlockedVersions).where(eq(instanceBlockedVersions.pattern, pattern)).limit(1))[0];
}

export async function insertInstanceBlockedVersion(db: Db, v: Omit<InstanceBlockedVersionRow, 'id'>): Promise<InstanceBlockedVersionRow> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { instanceBlockedVersions } = tablesOf(db);
  return (await db.insert(instanceBlockedVersions).values(v).returning())[0]!;
}

export async function deleteInstanceBlockedVersion(db: Db, pattern: string): Promise<boolean> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { instanceBlockedVersions } = tablesOf(db);
  return affectedRows(await db.delete(instanceBlockedVersions).where(eq(instanceBlockedVersions.pattern, pattern))) > 0;
}
