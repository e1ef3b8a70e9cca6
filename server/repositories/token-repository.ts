// API tokens, stored as SHA-256 hashes. Listing never selects the hash.
import { and, desc, eq, gt, isNull } from 'drizzle-orm';
import type { Db } from '@/db/open-database';
import type { apiTokens, TokenScopeValue } from '@/db/schema';
import { affectedRows, tablesOf, type Tables } from './dialect';
import { connectionHeld, connectionReleased } from './transaction';

export type TokenRow = typeof apiTokens.$inferSelect;

/** everything but the hash, of the handle's own tables */
const publicColumns = ({ apiTokens, users }: Tables) => ({
  id: apiTokens.id,
  name: apiTokens.name,
  prefix: apiTokens.prefix,
  scope: apiTokens.scope,
  createdAt: apiTokens.createdAt,
  lastUsedAt: apiTokens.lastUsedAt,
  expiresAt: apiTokens.expiresAt,
  revokedAt: apiTokens.revokedAt,
  userId: apiTokens.userId,
  owner: users.username,
});

export type TokenListing = {
  id: number;
  name: string;
  prefix: string;
  scope: TokenScopeValue;
  createdAt: Date;
  lastUsedAt: Date | null;
  expiresAt: Date | null;
  revokedAt: Date | null;
  userId: number;
  owner: string;
};

export async function listTokens(db: Db, opts: { userId?: number }): Promise<TokenListing[]> {
  while (connectionHeld(db)) await connectionReleased(db);
  const tables = tablesOf(db);
  const { apiTokens, users } = tables;
  return await db
    .select(publicColumns(tables))
    .from(apiTokens)
    .innerJoin(users, eq(users.id, apiTokens.userId))
    .where(opts.userId === undefined ? undefined : eq(apiTokens.userId, opts.userId))
    .orderBy(desc(apiTokens.createdAt), desc(apiTokens.id));
}

export async function findTokenById(db: Db, id: number): Promise<TokenListing | undefined> {
  while (connectionHeld(db)) await connectionReleased(db);
  const tables = tablesOf(db);
  const { apiTokens, users } = tables;
  return (
    await db
      .select(publicColumns(tables))
      .from(apiTokens)
      .innerJoin(users, eq(users.id, apiTokens.userId))
      .where(eq(apiTokens.id, id))
      .limit(1)
  )[0];
}

export async function insertToken(
  db: Db,
  row: { name: string; userId: number; tokenHash: string; prefix: string; scope: TokenScopeValue; createdAt: Date; expiresAt: Date },
): Promise<number> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { apiTokens } = tablesOf(db);
  return (await db.insert(apiTokens).values(row).returning({ id: apiTokens.id }))[0]!.id;
}

/** the unrevoked, unexpired token with this hash and its owner */
export async function findActiveTokenByHash(db: Db, tokenHash: string, now: Date) {
  while (connectionHeld(db)) await connectionReleased(db);
  const { apiTokens, users } = tablesOf(db);
  return (
    await db
      .select({ token: apiTokens, user: users })
      .from(apiTokens)
      .innerJoin(users, eq(users.id, apiTokens.userId))
      .where(and(eq(apiTokens.tokenHash, tokenHash), isNull(apiTokens.revokedAt), gt(apiTokens.expiresAt, now)))
      .limit(1)
  )[0];
}

/** revokes every live token of a user (password reset or change); returns how many */
export async function revokeTokensOfUser(db: Db, userId: number, at: Date): Promise<number> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { apiTokens } = tablesOf(db);
  return affectedRows(
    await db
      .update(apiTokens)
      .set({ revokedAt: at })
      .where(and(eq(apiTokens.userId, userId), isNull(apiTokens.revokedAt))),
  );
}

export async function markTokenUsed(db: Db, id: number, at: Date): Promise<void> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { apiTokens } = tablesOf(db);
  await db.update(apiTokens).set({ lastUsedAt: at }).where(eq(apiTokens.id, id));
}

export async function revokeToken(db: Db, id: number, at: Date): Promise<void> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { apiTokens } = tablesOf(db);
  await db
    .update(apiTokens)
    .set({ revokedAt: at })
    .where(and(eq(apiTokens.id, id), isNull(apiTokens.revokedAt)));
}
