// Sign-in use cases: password login, demo login, logout and "who am I". Sessions use the real
// clock (a simulated fleet clock must not stretch or shrink a 12 h session).
import type { Db } from '@/db/open-database';
import type { Actor, Role } from '@/server/auth/actor';
import { clearedSessionCookies, sessionCookies, SESSION_TTL_MS } from '@/server/auth/cookies';
import { DEMO_USERNAME, isDemoLoginEnabled, type DemoLoginEnv } from '@/server/auth/demo-login';
import { listIdentityProviders } from '@/server/auth/identity-provider';
import { burnPasswordCheck, hashPassword, verifyPassword } from '@/server/auth/password';
import { passwordProblem } from '@/server/auth/password-policy';
import {
  accountKey,
  addressKey,
  afterFailure,
  blockedForMs,
  FREE_FAILURES,
  THROTTLE_MAX_BLOCK_MS,
  THROTTLE_WINDOW_MS,
} from '@/server/auth/sign-in-throttle';
import { generateSecret, sha256Hex } from '@/server/auth/secrets';
import { appendAudit } from '@/server/repositories/audit-repository';
import * as sessionsRepo from '@/server/repositories/session-repository';
import * as throttleRepo from '@/server/repositories/sign-in-throttle-repository';
import { revokeTokensOfUser } from '@/server/repositories/token-repository';
import { withTransaction } from '@/server/repositories/transaction';
import { findUserById, findUserByName, updateUser, type UserRow } from '@/server/repositories/user-repository';
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
  /** the UI shows only the change-password form until this is false */
  mustChangePassword: boolean;
}

/** answered to every failed sign-in, whether the user exists or not */
const WRONG_CREDENTIALS = 'Wrong username or password';

export function createAuthService(deps: { db: Db; realNow: () => Date; env: DemoLoginEnv }) {
  const { db, realNow } = deps;

  function startSession(user: UserRow, jar: CookieJar, how: string): Me {
    const token = generateSecret(32);
    const csrfToken = generateSecret(32);
    const createdAt = realNow();
    withTransaction(db, (tx) => {
      sessionsRepo.deleteExpiredSessions(tx, createdAt);
      sessionsRepo.insertSession(tx, {
        idHash: sha256Hex(token),
        userId: user.id,
        csrfToken,
        createdAt,
        expiresAt: new Date(createdAt.getTime() + SESSION_TTL_MS),
      });
      appendAudit(tx, {
        at: createdAt,
        actor: user.username,
        action: 'auth.login',
        target: `user:${user.username}`,
        after: { method: how },
      });
    });
    for (const cookie of sessionCookies(token, csrfToken, { secure: jar.secure })) jar.set(cookie);
    return { username: user.username, role: user.role, via: 'session', mustChangePassword: user.mustChangePassword };
  }

  function recordFailure(tx: Db, keys: { key: string; free: number }[], now: Date): void {
    const previous = new Map(
      throttleRepo
        .findThrottleRows(
          tx,
          keys.map((k) => k.key),
        )
        .map((r) => [r.key, r]),
    );
    for (const { key, free } of keys) throttleRepo.saveThrottleRow(tx, afterFailure(key, previous.get(key), now, free));
  }

  return {
    /**
     * Password sign-in, throttled per account and per client address (server/auth/sign-in-throttle.ts).
     * An unknown user costs the same work and gets the same answer as a wrong password.
     */
    async login(input: {
      username: string;
      password: string;
      cookies: CookieJar;
      clientAddress: string;
      /** tells the client when to try again (the Retry-After header) */
      retryAfter?: (seconds: number) => void;
    }): Promise<Me> {
      const keys = [
        { key: accountKey(input.username), free: FREE_FAILURES.account },
        { key: addressKey(input.clientAddress), free: FREE_FAILURES.address },
      ];
      const waitMs = blockedForMs(
        throttleRepo.findThrottleRows(
          db,
          keys.map((k) => k.key),
        ),
        realNow(),
      );
      if (waitMs > 0) {
        const seconds = Math.ceil(waitMs / 1000);
        input.retryAfter?.(seconds);
        throw new AppError('TOO_MANY_REQUESTS', `Too many failed sign-ins; try again in ${seconds} s`);
      }
      const user = findUserByName(db, input.username);
      const ok =
        user && !user.disabled ? await verifyPassword(input.password, user.passwordHash) : (await burnPasswordCheck(input.password), false);
      const now = realNow();
      if (!user || !ok) {
        withTransaction(db, (tx) => {
          recordFailure(tx, keys, now);
          throttleRepo.deleteStaleThrottleRows(tx, new Date(now.getTime() - THROTTLE_WINDOW_MS - THROTTLE_MAX_BLOCK_MS));
          appendAudit(tx, {
            at: now,
            actor: `anonymous@${input.clientAddress}`,
            action: 'auth.login-failed',
            target: `user:${input.username}`,
            after: { known: Boolean(user) },
          });
        });
        throw new AppError('UNAUTHORIZED', WRONG_CREDENTIALS);
      }
      throttleRepo.deleteThrottleRow(db, keys[0]!.key);
      return startSession(user, input.cookies, 'password');
    },

    /**
     * The signed-in user replaces their password (required after a printed or admin-set one). Ends
     * every session and revokes every API token of the user, then starts a fresh session here.
     */
    async changePassword(input: { currentPassword: string; newPassword: string; actor: Actor; cookies: CookieJar }): Promise<Me> {
      if (input.actor.via !== 'session' || input.actor.userId === undefined) {
        throw new AppError('FORBIDDEN', 'Passwords are changed from a signed-in browser session');
      }
      const user = findUserById(db, input.actor.userId);
      if (!user || user.disabled) throw new AppError('UNAUTHORIZED', 'Sign in first');
      if (!(await verifyPassword(input.currentPassword, user.passwordHash))) {
        throw new AppError('INVALID_INPUT', 'The current password is wrong', [{ path: 'currentPassword', message: 'is wrong' }]);
      }
      const problem = passwordProblem(input.newPassword, user.username);
      if (problem) throw new AppError('INVALID_INPUT', `The new password ${problem}`, [{ path: 'newPassword', message: problem }]);
      if (input.newPassword === input.currentPassword) {
        throw new AppError('INVALID_INPUT', 'The new password must differ from the current one', [
          { path: 'newPassword', message: 'is the current password' },
        ]);
      }
      const passwordHash = await hashPassword(input.newPassword);
      const now = realNow();
      withTransaction(db, (tx) => {
        updateUser(tx, user.id, { passwordHash, mustChangePassword: false });
        sessionsRepo.deleteSessionsOfUser(tx, user.id);
        const revoked = revokeTokensOfUser(tx, user.id, now);
        appendAudit(tx, {
          at: now,
          actor: user.username,
          action: 'user.change-password',
          target: `user:${user.username}`,
          after: { passwordChanged: true, sessionsEnded: true, tokensRevoked: revoked },
        });
      });
      return startSession({ ...user, passwordHash, mustChangePassword: false }, input.cookies, 'password-change');
    },

    demoLogin(input: { cookies: CookieJar }): Me {
      const user = isDemoLoginEnabled(db, deps.env) ? findUserByName(db, DEMO_USERNAME) : undefined;
      if (!user || user.disabled) throw new AppError('FORBIDDEN', 'Demo sign-in is not enabled on this server');
      return startSession(user, input.cookies, 'demo');
    },

    logout(input: { actor: Actor | null; cookies: CookieJar }): { ok: true } {
      if (input.actor?.sessionIdHash) {
        const { name, sessionIdHash } = input.actor;
        withTransaction(db, (tx) => {
          sessionsRepo.deleteSession(tx, sessionIdHash);
          appendAudit(tx, { at: realNow(), actor: name, action: 'auth.logout', target: `user:${name}` });
        });
      }
      for (const cookie of clearedSessionCookies({ secure: input.cookies.secure })) input.cookies.set(cookie);
      return { ok: true };
    },

    me(actor: Actor | null): Me | null {
      return actor
        ? { username: actor.name, role: actor.role, via: actor.via, mustChangePassword: actor.mustChangePassword ?? false }
        : null;
    },

    loginOptions(): { demoLogin: boolean; providers: { id: string; displayName: string }[] } {
      return {
        demoLogin: isDemoLoginEnabled(db, deps.env),
        providers: listIdentityProviders().map((p) => ({ id: p.id, displayName: p.displayName })),
      };
    },
  };
}
