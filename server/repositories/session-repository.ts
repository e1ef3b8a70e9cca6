// Sessions, keyed by the SHA-256 of the cookie token (the token itself is never stored).
import { and, eq, gt, lte } from 'drizzle-orm';
import type { Db } from '@/db/open-database';
import { sessions, users } from '@/db/schema';

export type SessionRow = typeof sessions.$inferSelect;

export function insertSession(db: Db, row: SessionRow): void {
  db.insert(sessions).values(row).run();
}

/** the live session and its user, or undefined when unknown or expired */
export function findLiveSession(db: Db, idHash: string, now: Date) {
  return db
    .select({ session: sessions, user: users })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(and(eq(sessions.idHash, idHash), gt(sessions.expiresAt, now)))
    .get();
}

export function deleteSession(db: Db, idHash: string): void {
  db.delete(sessions).where(eq(sessions.idHash, idHash)).run();
}

export function deleteSessionsOfUser(db: Db, userId: number): void {
  db.delete(sessions).where(eq(sessions.userId, userId)).run();
}

export function deleteExpiredSessions(db: Db, now: Date): void {
  db.delete(sessions).where(lte(sessions.expiresAt, now)).run();
}
