// Users: local accounts with a role. Password hashes never leave this layer except to
// server/services/auth-service.ts for verification.
import { and, asc, eq, ne, sql } from 'drizzle-orm';
import type { Db } from '@/db/open-database';
import { settings, users, type RoleValue } from '@/db/schema';

export type UserRow = typeof users.$inferSelect;

export function findUserByName(db: Db, username: string): UserRow | undefined {
  return db.select().from(users).where(eq(users.username, username)).get();
}

/** the user an OIDC provider's subject signed in as before (`<provider id>:<subject>`) */
export function findUserByExternalSubject(db: Db, externalSubject: string): UserRow | undefined {
  return db.select().from(users).where(eq(users.externalSubject, externalSubject)).get();
}

export function findUserById(db: Db, id: number): UserRow | undefined {
  return db.select().from(users).where(eq(users.id, id)).get();
}

export function listUsers(db: Db): UserRow[] {
  return db.select().from(users).orderBy(asc(users.username)).all();
}

export function countUsers(db: Db): number {
  return db
    .select({ n: sql<number>`count(*)` })
    .from(users)
    .get()!.n;
}

/** enabled admins other than `exceptId` (the last-admin guard) */
export function countOtherActiveAdmins(db: Db, exceptId: number): number {
  return db
    .select({ n: sql<number>`count(*)` })
    .from(users)
    .where(and(eq(users.role, 'admin'), eq(users.disabled, false), ne(users.id, exceptId)))
    .get()!.n;
}

export function insertUser(
  db: Db,
  user: {
    username: string;
    passwordHash: string;
    role: RoleValue;
    createdAt: Date;
    mustChangePassword?: boolean;
    externalSubject?: string;
    organizationsOnly?: boolean;
  },
): UserRow {
  return db.insert(users).values(user).returning().get();
}

export function updateUser(
  db: Db,
  id: number,
  patch: Partial<Pick<UserRow, 'role' | 'disabled' | 'passwordHash' | 'mustChangePassword' | 'organizationsOnly'>>,
): void {
  db.update(users).set(patch).where(eq(users.id, id)).run();
}

const DEMO_LOGIN_KEY = 'auth.demoLogin';

/** the stored demo-login switch (set when a demo fleet is seeded) */
export function readDemoLoginSetting(db: Db): boolean {
  const row = db.select().from(settings).where(eq(settings.key, DEMO_LOGIN_KEY)).get();
  return row?.value === true;
}

export function writeDemoLoginSetting(db: Db, enabled: boolean, at: Date): void {
  db.insert(settings)
    .values({ key: DEMO_LOGIN_KEY, value: enabled, updatedAt: at })
    .onConflictDoUpdate({ target: settings.key, set: { value: enabled, updatedAt: at } })
    .run();
}
