// API tokens for the CLI and automation: `fp_…` secrets shown once, stored as SHA-256, scoped to at
// most the owner's role (and capped again at use, should the owner be demoted), revocable.
import type { Db } from '@/db/open-database';
import { hasRole, isTokenPermission, PERMISSION_ROLE, type Actor, type TokenScope } from '@/server/auth/actor';
import { generateApiToken } from '@/server/auth/secrets';
import { appendAudit } from '@/server/repositories/audit-repository';
import * as tokensRepo from '@/server/repositories/token-repository';
import { findUserById } from '@/server/repositories/user-repository';
import { AppError } from './app-error';

export interface TokenSummary {
  id: number;
  name: string;
  /** the first characters of the token, to tell tokens apart; never the secret */
  prefix: string;
  /** a role, or one permission (`approvals:write`) */
  scope: TokenScope;
  owner: string;
  createdAt: string;
  lastUsedAt: string | null;
  expiresAt: string | null;
  revokedAt: string | null;
}

export const DEFAULT_TOKEN_DAYS = 90;
export const MAX_TOKEN_DAYS = 366;
const DAY_MS = 86_400_000;

function toSummary(row: tokensRepo.TokenListing): TokenSummary {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    scope: row.scope,
    owner: row.owner,
    createdAt: row.createdAt.toISOString(),
    lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
    expiresAt: row.expiresAt?.toISOString() ?? null,
    revokedAt: row.revokedAt?.toISOString() ?? null,
  };
}

/** `realNow` for creation, expiry, revocation and audit (never the fleet's simulated clock) */
export function createTokenService(deps: { db: Db; realNow: () => Date }) {
  const { db, realNow } = deps;

  function requireUserActor(actor: Actor): number {
    if (actor.userId === undefined) throw new AppError('FORBIDDEN', 'Only signed-in users own API tokens');
    return actor.userId;
  }

  return {
    /** your own tokens; admins may ask for everyone's */
    async list(input: { all: boolean; actor: Actor }): Promise<TokenSummary[]> {
      if (input.all && !hasRole(input.actor, 'admin')) throw new AppError('FORBIDDEN', "Listing every user's tokens needs the admin role");
      const rows = await tokensRepo.listTokens(db, input.all ? {} : { userId: requireUserActor(input.actor) });
      return rows.map(toSummary);
    },

    async create(input: {
      name: string;
      scope: TokenScope;
      expiresInDays?: number;
      actor: Actor;
    }): Promise<{ token: string; summary: TokenSummary }> {
      // a token must not mint more tokens: a leaked one could otherwise outlive its revocation
      if (input.actor.via !== 'session') throw new AppError('FORBIDDEN', 'API tokens are created from a signed-in browser session');
      const userId = requireUserActor(input.actor);
      const owner = await findUserById(db, userId);
      if (!owner || owner.disabled) throw new AppError('FORBIDDEN', 'Your account is disabled');
      const needed = isTokenPermission(input.scope) ? PERMISSION_ROLE[input.scope] : input.scope;
      if (!hasRole({ ...input.actor, role: owner.role }, needed)) {
        throw new AppError('FORBIDDEN', `A token's scope cannot exceed your role (${owner.role})`);
      }
      const days = input.expiresInDays ?? DEFAULT_TOKEN_DAYS;
      if (!Number.isInteger(days) || days < 1 || days > MAX_TOKEN_DAYS) {
        throw new AppError('INVALID_INPUT', `A token lives 1 to ${MAX_TOKEN_DAYS} days`, [
          { path: 'expiresInDays', message: `1 to ${MAX_TOKEN_DAYS}` },
        ]);
      }
      const createdAt = realNow();
      const expiresAt = new Date(createdAt.getTime() + days * DAY_MS);
      const { token, hash, prefix } = generateApiToken();
      const id = await tokensRepo.insertToken(db, {
        name: input.name,
        userId,
        tokenHash: hash,
        prefix,
        scope: input.scope,
        createdAt,
        expiresAt,
      });
      await appendAudit(db, {
        organizationId: null,
        at: realNow(),
        actor: input.actor.name,
        action: 'token.create',
        target: `token:${id}`,
        after: { name: input.name, prefix, scope: input.scope, owner: owner.username, expiresAt: expiresAt.toISOString() },
      });
      return { token, summary: toSummary((await tokensRepo.findTokenById(db, id))!) };
    },

    /** owners revoke their own tokens; admins revoke anyone's */
    async revoke(input: { id: number; actor: Actor }): Promise<TokenSummary> {
      const row = await tokensRepo.findTokenById(db, input.id);
      const mayRevoke = row && (row.userId === input.actor.userId || hasRole(input.actor, 'admin'));
      if (!row || !mayRevoke) throw new AppError('NOT_FOUND', `Token ${input.id} does not exist`);
      if (row.revokedAt) return toSummary(row);
      await tokensRepo.revokeToken(db, row.id, realNow());
      await appendAudit(db, {
        organizationId: null,
        at: realNow(),
        actor: input.actor.name,
        action: 'token.revoke',
        target: `token:${row.id}`,
        before: { name: row.name, prefix: row.prefix, scope: row.scope, owner: row.owner },
        after: { revoked: true },
      });
      return toSummary((await tokensRepo.findTokenById(db, row.id))!);
    },
  };
}
