// Who sent this HTTP request: an API token (`Authorization: Bearer fp_…`) or a session cookie.
// Later providers (OIDC) end in a session too, so this file does not change for them.
// CSRF: a mutation carried by a session cookie must echo the session's CSRF token in
// `x-csrf-token` (server/api/trpc.ts refuses it otherwise). Bearer tokens are not sent by
// browsers on their own, so they need no CSRF token.
import type { Db } from '@/db/open-database';
import { isSecureRequest } from '@/server/http/security-headers';
import { findLiveSession } from '@/server/repositories/session-repository';
import { findActiveTokenByHash, markTokenUsed } from '@/server/repositories/token-repository';
import { hasRole, isRole, isTokenPermission, lowerRole, PERMISSION_ROLE, type Actor, type Role } from './actor';
import { ensureAuthBootstrap } from './bootstrap';
import { parseCookieHeader, SESSION_COOKIE } from './cookies';
import { API_TOKEN_PREFIX, safeEqual, sha256Hex } from './secrets';

export interface RequestIdentity {
  actor: Actor | null;
  /** false when a session request lacks the right CSRF token, or the Origin is foreign */
  csrfOk: boolean;
  /** the request came over https: cookies get `Secure` */
  secure: boolean;
}

/** write last_used_at at most this often per token (one write per request would be wasteful) */
const TOKEN_LAST_USED_RESOLUTION_MS = 60_000;
const MAX_TOKEN_LENGTH = 200;

/** A browser's Origin header, when present, must name this host (defence in depth besides SameSite). */
function isSameOrigin(req: Request): boolean {
  const origin = req.headers.get('origin');
  if (!origin || origin === 'null') return origin === null;
  try {
    const host = req.headers.get('x-forwarded-host') ?? req.headers.get('host') ?? new URL(req.url).host;
    return new URL(origin).host === host;
  } catch {
    return false;
  }
}

async function resolveBearer(db: Db, token: string, now: Date): Promise<Actor | null> {
  if (!token.startsWith(API_TOKEN_PREFIX) || token.length > MAX_TOKEN_LENGTH) return null;
  const found = await findActiveTokenByHash(db, sha256Hex(token), now);
  if (!found || found.user.disabled || !isRole(found.user.role)) return null;
  const scope: string = found.token.scope;
  const permission = isTokenPermission(scope) ? scope : undefined;
  // a permission needs its role of the owner at every use (a demoted owner's token stops working)
  if (permission ? !hasRole({ name: '', role: found.user.role, via: 'token' }, PERMISSION_ROLE[permission]) : !isRole(scope)) return null;
  if (!found.token.lastUsedAt || now.getTime() - found.token.lastUsedAt.getTime() > TOKEN_LAST_USED_RESOLUTION_MS) {
    await markTokenUsed(db, found.token.id, now);
  }
  return {
    name: `token:${found.token.name}@${found.user.username}`,
    role: permission ? 'viewer' : lowerRole(scope as Role, found.user.role),
    ...(permission ? { permission } : {}),
    via: 'token',
    userId: found.user.id,
    tokenId: found.token.id,
    ...(found.user.organizationsOnly ? { organizationsOnly: true } : {}),
    // a permission token has no role to cap: a grant on an organization must not raise it either
    ...(permission ? {} : { tokenScope: scope as Role }),
  };
}

export async function resolveRequestActor(db: Db, req: Request, now: Date = new Date()): Promise<RequestIdentity> {
  await ensureAuthBootstrap(db);
  const secure = isSecureRequest(req);
  const authorization = req.headers.get('authorization');
  if (authorization) {
    const match = /^Bearer\s+(\S+)$/i.exec(authorization);
    return { actor: match?.[1] ? await resolveBearer(db, match[1], now) : null, csrfOk: true, secure };
  }
  const sameOrigin = isSameOrigin(req);
  const token = parseCookieHeader(req.headers.get('cookie')).get(SESSION_COOKIE);
  if (!token || token.length > MAX_TOKEN_LENGTH) return { actor: null, csrfOk: sameOrigin, secure };
  const idHash = sha256Hex(token);
  const found = await findLiveSession(db, idHash, now);
  if (!found || found.user.disabled || !isRole(found.user.role)) return { actor: null, csrfOk: sameOrigin, secure };
  const csrfHeader = req.headers.get('x-csrf-token') ?? '';
  return {
    actor: {
      name: found.user.username,
      role: found.user.role,
      via: 'session',
      userId: found.user.id,
      sessionIdHash: idHash,
      mustChangePassword: found.user.mustChangePassword,
      ...(found.user.organizationsOnly ? { organizationsOnly: true } : {}),
    },
    csrfOk: sameOrigin && safeEqual(csrfHeader, found.session.csrfToken),
    secure,
  };
}
