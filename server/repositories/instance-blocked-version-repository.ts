// The instance's blocked versions (applied to every organization beside its own list).
import type { Db } from '@/db/open-database';
import { asc, eq } from 'drizzle-orm';
import { instanceBlockedVersions } from '@/db/schema';

export type InstanceBlockedVersionRow = typeof instanceBlockedVersions.$inferSelect;

export function listInstanceBlockedVersions(db: Db): InstanceBlockedVersionRow[] {
  return db.select().from(instanceBlockedVersions).orderBy(asc(instanceBlockedVersions.id)).all();
}

/** The patterns only, oldest first (the engine's input). */
export function listInstanceBlockedPatterns(db: Db): string[] {
  return listInstanceBlockedVersions(db).map((b) => b.pattern);
}

export function findInstanceBlockedVersion(db: Db, pattern: string): InstanceBlockedVersionRow | undefined {
  return db.select().from(instanceBlockedVersions).where(eq(instanceBlockedVersions.pattern, pattern)).get();
}

export function insertInstanceBlockedVersion(db: Db, v: Omit<InstanceBlockedVersionRow, 'id'>): InstanceBlockedVersionRow {
  return db.insert(instanceBlockedVersions).values(v).returning().get();
}

export function deleteInstanceBlockedVersion(db: Db, pattern: string): boolean {
  return db.delete(instanceBlockedVersions).where(eq(instanceBlockedVersions.pattern, pattern)).run().changes > 0;
}
