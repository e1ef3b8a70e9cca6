// Sessions, keyed by the SHA-256 of the cookie token (the token itself is never stored).
import { and, eq, gt, lte } from 'drizzle-orm';
import type { Db } from '@/db/open-database';
import type { sessions } from '@/db/schema';
import { affectedRows, tablesOf } from './dialect';
import { connectionHeld, connectionReleased } from './transaction';

export type SessionRow = typeof sessions.$inferSelect;

export async function insertSession(db: Db, row: SessionRow): Promise<void> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { sessions } = tablesOf(db);
  await db.insert(sessions).values(row);
}

/** the live session and its user, or undefined when unknown or expired */
export async function findLiveSession(db: Db, idHash: string, now: Date) {
  while (connectionHeld(db)) await connectionReleased(db);
  const { sessions, users } = tablesOf(db);
  const [live] = await db
    .select({ session: sessions, user: users })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(and(eq(sessions.idHash, idHash), gt(sessions.expiresAt, now)))
    .limit(1);
  return live;
}

export async function deleteSession(db: Db, idHash: string): Promise<void> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { sessions } = tablesOf(db);
  await db.delete(sessions).where(eq(sessions.idHash, idHash));
}

export async function deleteSessionsOfUser(db: Db, userId: number): Promise<void> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { sessions } = tablesOf(db);
  await db.delete(sessions).where(eq(sessions.userId, userId));
}

export async function deleteExpiredSessions(db: Db, now: Date): Promise<void> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { sessions } = tablesOf(db);
  await db.delete(sessions).where(lte(sessions.expiresAt, now));
}

/** Signs everyone out (a restored database: sign-ins that ended after its backup must not come back). */
export async function deleteAllSessions(db: Db): Promise<number> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { sessions } = tablesOf(db);
  return affectedRows(await db.delete(sessions));
}
