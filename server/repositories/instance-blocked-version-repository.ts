// The instance's blocked versions (applied to every organization beside its own list).
import { asc, eq } from 'drizzle-orm';
import { instanceBlockedVersions } from '@/db/schema';
import type { DbOrTx } from './audit-repository';

export type InstanceBlockedVersionRow = typeof instanceBlockedVersions.$inferSelect;

export function listInstanceBlockedVersions(db: DbOrTx): InstanceBlockedVersionRow[] {
  return db.select().from(instanceBlockedVersions).orderBy(asc(instanceBlockedVersions.id)).all();
}

/** The patterns only, oldest first (the engine's input). */
export function listInstanceBlockedPatterns(db: DbOrTx): string[] {
  return listInstanceBlockedVersions(db).map((b) => b.pattern);
}

export function findInstanceBlockedVersion(db: DbOrTx, pattern: string): InstanceBlockedVersionRow | undefined {
  return db.select().from(instanceBlockedVersions).where(eq(instanceBlockedVersions.pattern, pattern)).get();
}

export function insertInstanceBlockedVersion(db: DbOrTx, v: Omit<InstanceBlockedVersionRow, 'id'>): InstanceBlockedVersionRow {
  return db.insert(instanceBlockedVersions).values(v).returning().get();
}

export function deleteInstanceBlockedVersion(db: DbOrTx, pattern: string): boolean {
  return db.delete(instanceBlockedVersions).where(eq(instanceBlockedVersions.pattern, pattern)).run().changes > 0;
}
