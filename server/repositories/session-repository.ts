// Sessions, keyed by the SHA-256 of the cookie token (the token itself is never stored).
import { and, eq, gt, lte } from 'drizzle-orm';
import type { Db } from '@/db/open-database';
import { sessions, users } from '@/db/schema';
import { connectionHeld, connectionReleased } from './transaction';

export type SessionRow = typeof sessions.$inferSelect;

export async function insertSession(db: Db, row: SessionRow): Promise<void> {
  while (connectionHeld(db)) await connectionReleased(db);
  db.insert(sessions).values(row).run();
}

/** the live session and its user, or undefined when unknown or expired */
export async function findLiveSession(db: Db, idHash: string, now: Date) {
  while (connectionHeld(db)) await connectionReleased(db);
  return db
    .select({ session: sessions, user: users })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(and(eq(sessions.idHash, idHash), gt(sessions.expiresAt, now)))
    .get();
}

export async function deleteSession(db: Db, idHash: string): Promise<void> {
  while (connectionHeld(db)) await connectionReleased(db);
  db.delete(sessions).where(eq(sessions.idHash, idHash)).run();
}

export async function deleteSessionsOfUser(db: Db, userId: number): Promise<void> {
  while (connectionHeld(db)) await connectionReleased(db);
  db.delete(sessions).where(eq(sessions.userId, userId)).run();
}

export async function deleteExpiredSessions(db: Db, now: Date): Promise<void> {
  while (connectionHeld(db)) await connectionReleased(db);
  db.delete(sessions).where(lte(sessions.expiresAt, now)).run();
}
