// Failed sign-in counters (db/schema.ts signInThrottle). The policy lives in server/auth/sign-in-throttle.ts.
import { eq, inArray, lte } from 'drizzle-orm';
import type { Db } from '@/db/open-database';
import { signInThrottle } from '@/db/schema';

export type ThrottleRow = typeof signInThrottle.$inferSelect;

export function findThrottleRows(db: Db, keys: string[]): ThrottleRow[] {
  return db.select().from(signInThrottle).where(inArray(signInThrottle.key, keys)).all();
}

export function saveThrottleRow(db: Db, row: ThrottleRow): void {
  db.insert(signInThrottle)
    .values(row)
    .onConflictDoUpdate({
      target: signInThrottle.key,
      set: { failures: row.failures, lastFailureAt: row.lastFailureAt, blockedUntil: row.blockedUntil },
    })
    .run();
}

export function deleteThrottleRow(db: Db, key: string): void {
  db.delete(signInThrottle).where(eq(signInThrottle.key, key)).run();
}

/** rows whose last failure is older than `before` and that no longer block */
export function deleteStaleThrottleRows(db: Db, before: Date): void {
  db.delete(signInThrottle).where(lte(signInThrottle.lastFailureAt, before)).run();
}
