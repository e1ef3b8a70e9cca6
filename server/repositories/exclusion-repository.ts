// Maintenance exclusion windows.
import { and, asc, eq, gt } from 'drizzle-orm';
import type { Db } from '@/db/open-database';
import { maintenanceExclusions } from '@/db/schema';
import { tablesOf } from './dialect';
import { connectionHeld, connectionReleased } from './transaction';

export type ExclusionRow = typeof maintenanceExclusions.$inferSelect;

export async function listExclusions(db: Db, organizationId: number, opts: { endingAfter?: Date } = {}): Promise<ExclusionRow[]> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { maintenanceExclusions } = tablesOf(db);
  const where = opts.endingAfter
    ? and(eq(maintenanceExclusions.organizationId, organizationId), gt(maintenanceExclusions.endsAt, opts.endingAfter))
    : eq(maintenanceExclusions.organizationId, organizationId);
  return await db
    .select()
    .from(maintenanceExclusions)
    .where(where)
    .orderBy(asc(maintenanceExclusions.startsAt), asc(maintenanceExclusions.id));
}

export async function insertExclusion(db: Db, v: Omit<ExclusionRow, 'id'>): Promise<ExclusionRow> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { maintenanceExclusions } = tablesOf(db);
  return (await db.insert(maintenanceExclusions).values(v).returning())[0]!;
}

export async function findExclusionById(db: Db, id: number): Promise<ExclusionRow | undefined> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { maintenanceExclusions } = tablesOf(db);
  return (await db.select().from(maintenanceExclusions).where(eq(maintenanceExclusions.id, id)).limit(1))[0];
}

export async function deleteExclusion(db: Db, id: number): Promise<void> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { maintenanceExclusions } = tablesOf(db);
  await db.delete(maintenanceExclusions).where(eq(maintenanceExclusions.id, id));
}
