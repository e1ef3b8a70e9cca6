// Maintenance exclusion windows.
import { and, asc, eq, gt } from 'drizzle-orm';
import type { Db } from '@/db/open-database';
import { maintenanceExclusions } from '@/db/schema';

export type ExclusionRow = typeof maintenanceExclusions.$inferSelect;

export function listExclusions(db: Db, organizationId: number, opts: { endingAfter?: Date } = {}): ExclusionRow[] {
  const where = opts.endingAfter
    ? and(eq(maintenanceExclusions.organizationId, organizationId), gt(maintenanceExclusions.endsAt, opts.endingAfter))
    : eq(maintenanceExclusions.organizationId, organizationId);
  return db
    .select()
    .from(maintenanceExclusions)
    .where(where)
    .orderBy(asc(maintenanceExclusions.startsAt), asc(maintenanceExclusions.id))
    .all();
}

export function insertExclusion(db: Db, v: Omit<ExclusionRow, 'id'>): ExclusionRow {
  return db.insert(maintenanceExclusions).values(v).returning().get();
}

export function findExclusionById(db: Db, id: number): ExclusionRow | undefined {
  return db.select().from(maintenanceExclusions).where(eq(maintenanceExclusions.id, id)).get();
}

export function deleteExclusion(db: Db, id: number): void {
  db.delete(maintenanceExclusions).where(eq(maintenanceExclusions.id, id)).run();
}
