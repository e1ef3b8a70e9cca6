// Sign-in use cases: password login, demo login, logout and "who am I". Sessions use the real
// clock (a simulated fleet clock must not stretch or shrink a 12 h session).
import type { Db } from '@/db/open-database';
import type { Actor, Role } from '@/server/auth/actor';
import { clearedSessionCookies, sessionCookies, SESSION_TTL_MS } from '@/server/auth/cookies';
import { DEMO_USERNAME, isDemoLoginEnabled, type DemoLoginEnv } from '@/server/auth/demo-login';
import { listIdentityProviders } from '@/server/auth/identity-provider';
import { burnPasswordCheck, verifyPassword } from '@/server/auth/password';
import { generateSecret, sha256Hex } from '@/server/auth/secrets';
import { insertAuthAudit } from '@/server/repositories/auth-audit-repository';
import * as sessionsRepo from '@/server/repositories/session-repository';
import { findUserByName, type UserRow } from '@/server/repositories/user-repository';
import { AppError } from './app-error';

/** where a procedure puts cookies: the HTTP response, or nowhere (createCaller tests) */
export interface CookieJar {
  secure: boolean;
  set(cookie: string): void;
}

export interface Me {
  username: string;
  role: Role;
  via: Actor['via'];
}

export function createAuthService(deps: { db: Db; realNow: () => Date; env: DemoLoginEnv }) {
  const { db, realNow } = deps;

  function startSession(user: UserRow, jar: CookieJar, how: string): Me {
    const token = generateSecret(32);
    const csrfToken = generateSecret(32);
    const createdAt = realNow();
    sessionsRepo.deleteExpiredSessions(db, createdAt);
    sessionsRepo.insertSession(db, {
      idHash: sha256Hex(token),
      userId: user.id,
      csrfToken,
      createdAt,
      expiresAt: new Date(createdAt.getTime() + SESSION_TTL_MS),
    });
    for (const cookie of sessionCookies(token, csrfToken, { secure: jar.secure })) jar.set(cookie);
    insertAuthAudit(db, {
      at: createdAt,
      actor: user.username,
      action: 'auth.login',
      target: `user:${user.username}`,
      after: { method: how },
    });
    return { username: user.username, role: user.role as Role, via: 'session' };
  }

  return {
    async login(input: { username: string; password: string; cookies: CookieJar }): Promise<Me> {
      const user = findUserByName(db, input.username);
      if (!user || user.disabled) {
        await burnPasswordCheck(input.password);
        throw new AppError('UNAUTHORIZED', 'Wrong username or password');
      }
      if (!(await verifyPassword(input.password, user.passwordHash))) throw new AppError('UNAUTHORIZED', 'Wrong username or password');
      return startSession(user, input.cookies, 'password');
    },

    demoLogin(input: { cookies: CookieJar }): Me {
      const user = isDemoLoginEnabled(db, deps.env) ? findUserByName(db, DEMO_USERNAME) : undefined;
      if (!user || user.disabled) throw new AppError('FORBIDDEN', 'Demo sign-in is not enabled on this server');
      return startSession(user, input.cookies, 'demo');
    },

    logout(input: { actor: Actor | null; cookies: CookieJar }): { ok: true } {
      if (input.actor?.sessionIdHash) {
        sessionsRepo.deleteSession(db, input.actor.sessionIdHash);
        insertAuthAudit(db, { at: realNow(), actor: input.actor.name, action: 'auth.logout', target: `user:${input.actor.name}` });
      }
      for (const cookie of clearedSessionCookies({ secure: input.cookies.secure })) input.cookies.set(cookie);
      return { ok: true };
    },

    me(actor: Actor | null): Me | null {
      return actor ? { username: actor.name, role: actor.role, via: actor.via } : null;
    },

    loginOptions(): { demoLogin: boolean; providers: { id: string; displayName: string }[] } {
      return {
        demoLogin: isDemoLoginEnabled(db, deps.env),
        providers: listIdentityProviders().map((p) => ({ id: p.id, displayName: p.displayName })),
      };
    },
  };
}
