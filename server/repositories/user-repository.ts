// Users: local accounts with a role. Password hashes never leave this layer except to
// server/services/auth-service.ts for verification.
import { and, asc, count, eq, ne } from 'drizzle-orm';
import type { Db } from '@/db/open-database';
import { users, type RoleValue } from '@/db/schema';
import { tablesOf } from './dialect';
import { connectionHeld, connectionReleased } from './transaction';

export type UserRow = typeof users.$inferSelect;

export async function findUserByName(db: Db, username: string): Promise<UserRow | undefined> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { users } = tablesOf(db);
  return (await db.select().from(users).where(eq(users.username, username)).limit(1))[0];
}

/** the user an OIDC provider's subject signed in as before (`<provider id>:<subject>`) */
export async function findUserByExternalSubject(db: Db, externalSubject: string): Promise<UserRow | undefined> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { users } = tablesOf(db);
  return (await db.select().from(users).where(eq(users.externalSubject, externalSubject)).limit(1))[0];
}

export async function findUserById(db: Db, id: number): Promise<UserRow | undefined> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { users } = tablesOf(db);
  return (await db.select().from(users).where(eq(users.id, id)).limit(1))[0];
}

export async function listUsers(db: Db): Promise<UserRow[]> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { users } = tablesOf(db);
  return await db.select().from(users).orderBy(asc(users.username));
}

export async function countUsers(db: Db): Promise<number> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { users } = tablesOf(db);
  return (await db.select({ n: count() }).from(users).limit(1))[0]!.n;
}

/** enabled admins other than `exceptId` (the last-admin guard) */
export async function countOtherActiveAdmins(db: Db, exceptId: number): Promise<number> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { users } = tablesOf(db);
  return (
    await db
      .select({ n: count() })
      .from(users)
      .where(and(eq(users.role, 'admin'), eq(users.disabled, false), ne(users.id, exceptId)))
      .limit(1)
  )[0]!.n;
}

export async function insertUser(
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
): Promise<UserRow> {
  while (connectionHeld(db)) await connectionReleased(db);
  const [row] = await db.insert(tablesOf(db).users).values(user).returning();
  return row!;
}

export async function updateUser(
  db: Db,
  id: number,
  patch: Partial<Pick<UserRow, 'role' | 'disabled' | 'passwordHash' | 'mustChangePassword' | 'organizationsOnly'>>,
): Promise<void> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { users } = tablesOf(db);
  await db.update(users).set(patch).where(eq(users.id, id));
}

const DEMO_LOGIN_KEY = 'auth.demoLogin';

/** the stored demo-login switch (set when a demo fleet is seeded) */
export async function readDemoLoginSetting(db: Db): Promise<boolean> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { settings } = tablesOf(db);
  const row = (await db.select().from(settings).where(eq(settings.key, DEMO_LOGIN_KEY)).limit(1))[0];
  return row?.value === true;
}

export async function writeDemoLoginSetting(db: Db, enabled: boolean, at: Date): Promise<void> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { settings } = tablesOf(db);
  await db
    .insert(settings)
    .values({ key: DEMO_LOGIN_KEY, value: enabled, updatedAt: at })
    .onConflictDoUpdate({ target: settings.key, set: { value: enabled, updatedAt: at } });
}
