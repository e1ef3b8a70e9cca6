// Failed sign-in counters (db/schema.ts signInThrottle). The policy lives in server/auth/sign-in-throttle.ts.
import { eq, inArray, lte } from 'drizzle-orm';
import type { Db } from '@/db/open-database';
import { signInThrottle } from '@/db/schema';
import { tablesOf } from './dialect';
import { connectionHeld, connectionReleased } from './transaction';

export type ThrottleRow = typeof signInThrottle.$inferSelect;

export async function findThrottleRows(db: Db, keys: string[]): Promise<ThrottleRow[]> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { signInThrottle } = tablesOf(db);
  return await db.select().from(signInThrottle).where(inArray(signInThrottle.key, keys));
}

export async function saveThrottleRow(db: Db, row: ThrottleRow): Promise<void> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { signInThrottle } = tablesOf(db);
  await db
    .insert(signInThrottle)
    .values(row)
    .onConflictDoUpdate({
      target: signInThrottle.key,
      set: { failures: row.failures, lastFailureAt: row.lastFailureAt, blockedUntil: row.blockedUntil },
    });
}

export async function deleteThrottleRow(db: Db, key: string): Promise<void> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { signInThrottle } = tablesOf(db);
  await db.delete(signInThrottle).where(eq(signInThrottle.key, key));
}

/** rows whose last failure is older than `before` and that no longer block */
export async function deleteStaleThrottleRows(db: Db, before: Date): Promise<void> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { signInThrottle } = tablesOf(db);
  await db.delete(signInThrottle).where(lte(signInThrottle.lastFailureAt, before));
}
