// Sign-in use cases: password login, demo login, logout and "who am I". Sessions use the real
// clock (a simulated fleet clock must not stretch or shrink a 12 h session).
import type { Db } from '@/db/open-database';
import type { Actor, Role } from '@/server/auth/actor';
import { clearedSessionCookies, sessionCookies, SESSION_TTL_MS } from '@/server/auth/cookies';
import { DEMO_USERNAME, isDemoLoginEnabled, type DemoLoginEnv } from '@/server/auth/demo-login';
import { findIdentityProvider, identityProvidersFor, type ExternalIdentity, type IdentityProvider } from '@/server/auth/identity-provider';
import { burnPasswordCheck, hashPassword, unusablePasswordHash, verifyPassword } from '@/server/auth/password';
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
import { openSecret, sealSecret } from '@/server/crypto/secret-box';
import { secretKeyForDb } from '@/server/crypto/server-secret-key';
import type { FleetplanEnv } from '@/server/env';
import { safeNextPath } from '@/lib/safe-next-path';
import { createHash } from 'node:crypto';
import { appendAudit } from '@/server/repositories/audit-repository';
import * as sessionsRepo from '@/server/repositories/session-repository';
import * as throttleRepo from '@/server/repositories/sign-in-throttle-repository';
import { revokeTokensOfUser } from '@/server/repositories/token-repository';
import { withTransaction } from '@/server/repositories/transaction';
import {
  findUserByExternalSubject,
  findUserById,
  findUserByName,
  insertUser,
  updateUser,
  type UserRow,
} from '@/server/repositories/user-repository';
import { AppError } from './app-error';
import { actorOnOrganization, planGroupGrants, writeGroupGrants } from './organization-roles';
import type { OrganizationScope } from './organization-scope';

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
  /**
   * the role on the request's organization (a grant there replaces the global role), what the
   * pages offer actions by; null when the user may not see it
   */
  organizationRole: Role | null;
}

/** The browser's side of an external sign-in between its start and the provider's callback. */
interface SignInFlow {
  provider: string;
  state: string;
  nonce: string;
  verifier: string;
  redirectUri: string;
  next: string;
  /** epoch ms */
  expires: number;
}

/** the flow cookie: sealed with the server's key, so the browser can neither read nor forge it */
export const SIGN_IN_FLOW_COOKIE = 'fleetplan_sign_in';
const SIGN_IN_FLOW_PURPOSE = 'oidc-sign-in-flow';
/** how long a user may spend at the provider's login page */
export const SIGN_IN_FLOW_TTL_MS = 10 * 60 * 1000;

export function signInFlowCookie(value: string, opts: { secure: boolean; maxAgeSeconds: number }): string {
  const parts = [`${SIGN_IN_FLOW_COOKIE}=${encodeURIComponent(value)}`, 'Path=/api/auth/', `Max-Age=${opts.maxAgeSeconds}`];
  // Lax: the provider's redirect back is a top-level GET from another site and must carry it
  parts.push('SameSite=Lax', 'HttpOnly');
  if (opts.secure) parts.push('Secure');
  return parts.join('; ');
}

/** answered to every failed sign-in, whether the user exists or not */
const WRONG_CREDENTIALS = 'Wrong username or password';

export function createAuthService(deps: {
  db: Db;
  realNow: () => Date;
  env: DemoLoginEnv & Pick<FleetplanEnv, 'oidc' | 'publicUrl' | 'secretKey'>;
  /** the request's organization: `me` says the role there */
  organization?: OrganizationScope;
}) {
  const { db, realNow } = deps;

  function requireProvider(id: string): IdentityProvider {
    const provider = findIdentityProvider(deps.env, id);
    if (!provider) throw new AppError('NOT_FOUND', `There is no sign-in provider '${id}' on this server`);
    return provider;
  }

  async function auditFailedExternalSignIn(provider: IdentityProvider, clientAddress: string, why: Record<string, unknown>): Promise<void> {
    await appendAudit(db, {
      organizationId: null,
      at: realNow(),
      actor: `anonymous@${clientAddress}`,
      action: 'auth.login-failed',
      target: `provider:${provider.id}`,
      after: why,
    });
  }

  /**
   * The local user an external identity signs in as: found by `<provider>:<subject>`, else created
   * with its preferred username (or `<name>@<provider>` when a local user already has it) and an
   * unusable password. At every sign-in its global role follows the provider's groups
   * (FLEETPLAN_OIDC_ROLE_GROUPS), and so do its grants on organizations that map groups
   * (organization-roles.ts). `role` null: no global role; the user gets in only when it then holds
   * a grant on some organization, and reaches only those (users.organizations_only). Returns null,
   * having written nothing, when the user would get no access at all.
   */
  async function externalUser(provider: IdentityProvider, identity: ExternalIdentity, role: Role | null): Promise<UserRow | null> {
    const externalSubject = `${provider.id}:${identity.subject}`;
    const now = realNow();
    const actorName = `system:${provider.id}`;
    // without a global role the row keeps the least one, for the instance's read-only pages
    const storedRole: Role = role ?? 'viewer';
    const organizationsOnly = role === null;
    // the stored global role follows the groups; the audit row says the role as the groups gave it
    const setGlobalRole = async (
      tx: Db,
      user: UserRow,
      stored: { role: Role; organizationsOnly: boolean },
      shown: { role: Role | null; reason: string },
    ) => {
      await updateUser(tx, user.id, stored);
      await appendAudit(tx, {
        organizationId: null,
        at: now,
        actor: actorName,
        action: 'user.set-role',
        target: `user:${user.username}`,
        before: { role: user.role, organizationsOnly: user.organizationsOnly },
        after: { role: shown.role, organizationsOnly: stored.organizationsOnly, reason: shown.reason, groups: identity.groups },
      });
    };
    return await withTransaction(db, async (tx) => {
      const known = await findUserByExternalSubject(tx, externalSubject);
      if (known?.disabled) throw new AppError('FORBIDDEN', `The account ${known.username} is disabled on this server`);
      const grants = await planGroupGrants(tx, known?.id ?? null, identity.groups);
      if (organizationsOnly && grants.after.length === 0) {
        // the identity provider gives this user no access any more: what its groups granted goes now,
        // with the global role and the user's sessions (none may outlive the last group that let it in)
        if (known) {
          await writeGroupGrants(tx, grants, { userId: known.id, username: known.username, groups: identity.groups, actorName, at: now });
          if (!known.organizationsOnly)
            await setGlobalRole(
              tx,
              known,
              { role: 'viewer', organizationsOnly: true },
              { role: null, reason: 'in no group the identity provider maps' },
            );
          await sessionsRepo.deleteSessionsOfUser(tx, known.id);
        }
        return null;
      }
      if (known) {
        if (known.role !== storedRole || known.organizationsOnly !== organizationsOnly)
          await setGlobalRole(
            tx,
            known,
            { role: storedRole, organizationsOnly },
            { role: storedRole, reason: 'groups at the identity provider' },
          );
        await writeGroupGrants(tx, grants, { userId: known.id, username: known.username, groups: identity.groups, actorName, at: now });
        return { ...known, role: storedRole, organizationsOnly };
      }
      const suffix = createHash('sha256').update(externalSubject).digest('hex').slice(0, 6);
      let username: string | undefined;
      for (const name of [identity.username, `${identity.username}@${provider.id}`, `${identity.username}@${provider.id}-${suffix}`]) {
        if (!(await findUserByName(tx, name))) {
          username = name;
          break;
        }
      }
      if (!username) throw new AppError('CONFLICT', `The username ${identity.username} is taken on this server`);
      const user = await insertUser(tx, {
        username,
        passwordHash: unusablePasswordHash(),
        role: storedRole,
        organizationsOnly,
        createdAt: now,
        externalSubject,
      });
      await appendAudit(tx, {
        organizationId: null,
        at: now,
        actor: actorName,
        action: 'user.create',
        target: `user:${username}`,
        after: { role: storedRole, organizationsOnly, provider: provider.id, email: identity.email ?? null, groups: identity.groups },
      });
      await writeGroupGrants(tx, grants, { userId: user.id, username, groups: identity.groups, actorName, at: now });
      return user;
    });
  }

  async function startSession(user: UserRow, jar: CookieJar, how: string): Promise<Me> {
    const token = generateSecret(32);
    const csrfToken = generateSecret(32);
    const createdAt = realNow();
    await withTransaction(db, async (tx) => {
      await sessionsRepo.deleteExpiredSessions(tx, createdAt);
      await sessionsRepo.insertSession(tx, {
        idHash: sha256Hex(token),
        userId: user.id,
        csrfToken,
        createdAt,
        expiresAt: new Date(createdAt.getTime() + SESSION_TTL_MS),
      });
      await appendAudit(tx, {
        organizationId: null,
        at: createdAt,
        actor: user.username,
        action: 'auth.login',
        target: `user:${user.username}`,
        after: { method: how },
      });
    });
    for (const cookie of sessionCookies(token, csrfToken, { secure: jar.secure })) jar.set(cookie);
    // the organization the next page shows is not known here: `me` on that page says the role there
    const organizationRole = user.organizationsOnly ? null : user.role;
    return { username: user.username, role: user.role, via: 'session', mustChangePassword: user.mustChangePassword, organizationRole };
  }

  async function recordFailure(tx: Db, keys: { key: string; free: number }[], now: Date): Promise<void> {
    const previous = new Map(
      (
        await throttleRepo.findThrottleRows(
          tx,
          keys.map((k) => k.key),
        )
      ).map((r) => [r.key, r]),
    );
    for (const { key, free } of keys) await throttleRepo.saveThrottleRow(tx, afterFailure(key, previous.get(key), now, free));
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
        await throttleRepo.findThrottleRows(
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
      const user = await findUserByName(db, input.username);
      const ok =
        user && !user.disabled ? await verifyPassword(input.password, user.passwordHash) : (await burnPasswordCheck(input.password), false);
      const now = realNow();
      if (!user || !ok) {
        await withTransaction(db, async (tx) => {
          await recordFailure(tx, keys, now);
          await throttleRepo.deleteStaleThrottleRows(tx, new Date(now.getTime() - THROTTLE_WINDOW_MS - THROTTLE_MAX_BLOCK_MS));
          await appendAudit(tx, {
            organizationId: null,
            at: now,
            actor: `anonymous@${input.clientAddress}`,
            action: 'auth.login-failed',
            target: `user:${input.username}`,
            after: { known: Boolean(user) },
          });
        });
        throw new AppError('UNAUTHORIZED', WRONG_CREDENTIALS);
      }
      await throttleRepo.deleteThrottleRow(db, keys[0]!.key);
      return await startSession(user, input.cookies, 'password');
    },

    /**
     * The signed-in user replaces their password (required after a printed or admin-set one). Ends
     * every session and revokes every API token of the user, then starts a fresh session here.
     */
    async changePassword(input: { currentPassword: string; newPassword: string; actor: Actor; cookies: CookieJar }): Promise<Me> {
      if (input.actor.via !== 'session' || input.actor.userId === undefined) {
        throw new AppError('FORBIDDEN', 'Passwords are changed from a signed-in browser session');
      }
      const user = await findUserById(db, input.actor.userId);
      if (!user || user.disabled) throw new AppError('UNAUTHORIZED', 'Sign in first');
      if (user.externalSubject !== null) {
        throw new AppError('FORBIDDEN', 'This account signs in through its identity provider and has no password here');
      }
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
      await withTransaction(db, async (tx) => {
        await updateUser(tx, user.id, { passwordHash, mustChangePassword: false });
        await sessionsRepo.deleteSessionsOfUser(tx, user.id);
        const revoked = await revokeTokensOfUser(tx, user.id, now);
        await appendAudit(tx, {
          organizationId: null,
          at: now,
          actor: user.username,
          action: 'user.change-password',
          target: `user:${user.username}`,
          after: { passwordChanged: true, sessionsEnded: true, tokensRevoked: revoked },
        });
      });
      return await startSession({ ...user, passwordHash, mustChangePassword: false }, input.cookies, 'password-change');
    },

    async demoLogin(input: { cookies: CookieJar }): Promise<Me> {
      const user = (await isDemoLoginEnabled(db, deps.env)) ? await findUserByName(db, DEMO_USERNAME) : undefined;
      if (!user || user.disabled) throw new AppError('FORBIDDEN', 'Demo sign-in is not enabled on this server');
      return await startSession(user, input.cookies, 'demo');
    },

    async logout(input: { actor: Actor | null; cookies: CookieJar }): Promise<{ ok: true }> {
      if (input.actor?.sessionIdHash) {
        const { name, sessionIdHash } = input.actor;
        await withTransaction(db, async (tx) => {
          await sessionsRepo.deleteSession(tx, sessionIdHash);
          await appendAudit(tx, { organizationId: null, at: realNow(), actor: name, action: 'auth.logout', target: `user:${name}` });
        });
      }
      for (const cookie of clearedSessionCookies({ secure: input.cookies.secure })) input.cookies.set(cookie);
      return { ok: true };
    },

    async me(actor: Actor | null): Promise<Me | null> {
      if (!actor) return null;
      let organizationRole: Role | null = actor.role;
      if (deps.organization) {
        try {
          organizationRole = (await actorOnOrganization(db, actor, deps.organization))?.role ?? null;
        } catch (err) {
          // an organization the user may not see (or that does not exist): no role there
          if (!(err instanceof AppError)) throw err;
          organizationRole = null;
        }
      }
      return {
        username: actor.name,
        role: actor.role,
        via: actor.via,
        mustChangePassword: actor.mustChangePassword ?? false,
        organizationRole,
      };
    },

    async loginOptions(): Promise<{ demoLogin: boolean; providers: { id: string; displayName: string }[] }> {
      return {
        demoLogin: await isDemoLoginEnabled(db, deps.env),
        providers: identityProvidersFor(deps.env).map((p) => ({ id: p.id, displayName: p.displayName })),
      };
    },

    /**
     * Starts a sign-in at an external provider: where to send the browser, and the sealed cookie
     * that binds state, nonce and PKCE verifier to this browser until the callback.
     */
    async beginExternalSignIn(input: { providerId: string; next?: string | null; origin: string; secure: boolean }) {
      const provider = requireProvider(input.providerId);
      const verifier = generateSecret(32);
      const flow: SignInFlow = {
        provider: provider.id,
        state: generateSecret(24),
        nonce: generateSecret(24),
        verifier,
        redirectUri: `${deps.env.publicUrl ?? input.origin}/api/auth/${provider.id}/callback`,
        next: safeNextPath(input.next),
        expires: realNow().getTime() + SIGN_IN_FLOW_TTL_MS,
      };
      let location: URL;
      try {
        location = await provider.beginSignIn({
          redirectUri: flow.redirectUri,
          state: flow.state,
          nonce: flow.nonce,
          codeChallenge: createHash('sha256').update(verifier).digest('base64url'),
        });
      } catch (err) {
        throw new AppError('PRECONDITION_FAILED', `Sign-in with ${provider.displayName} is not available: ${(err as Error).message}`);
      }
      const sealed = sealSecret(secretKeyForDb(db, deps.env), JSON.stringify(flow), SIGN_IN_FLOW_PURPOSE);
      return { location, cookie: signInFlowCookie(sealed, { secure: input.secure, maxAgeSeconds: SIGN_IN_FLOW_TTL_MS / 1000 }) };
    },

    /**
     * The provider's redirect back: checks it against the flow cookie, redeems the code, maps the
     * groups to a role and starts a session. Every refusal is audited and leaves no session.
     */
    async completeExternalSignIn(input: {
      providerId: string;
      callbackUrl: URL;
      flowCookie: string | undefined;
      cookies: CookieJar;
      clientAddress: string;
    }): Promise<{ me: Me; next: string }> {
      const provider = requireProvider(input.providerId);
      let flow: SignInFlow | null = null;
      try {
        if (input.flowCookie)
          flow = JSON.parse(openSecret(secretKeyForDb(db, deps.env), input.flowCookie, SIGN_IN_FLOW_PURPOSE)) as SignInFlow;
      } catch {
        flow = null;
      }
      if (!flow || flow.provider !== provider.id || flow.expires < realNow().getTime()) {
        await auditFailedExternalSignIn(provider, input.clientAddress, { reason: 'no sign-in started in this browser, or it expired' });
        throw new AppError('UNAUTHORIZED', 'This sign-in was not started in this browser or took longer than 10 minutes; please try again');
      }
      const refusal = input.callbackUrl.searchParams.get('error');
      if (refusal !== null) {
        const description = input.callbackUrl.searchParams.get('error_description')?.slice(0, 300);
        await auditFailedExternalSignIn(provider, input.clientAddress, { reason: refusal, description: description ?? null });
        throw new AppError('UNAUTHORIZED', `${provider.displayName} refused the sign-in: ${description ?? refusal}`);
      }
      let identity: ExternalIdentity;
      try {
        identity = await provider.completeSignIn({
          callbackUrl: input.callbackUrl,
          redirectUri: flow.redirectUri,
          expectedState: flow.state,
          expectedNonce: flow.nonce,
          codeVerifier: flow.verifier,
        });
      } catch (err) {
        await auditFailedExternalSignIn(provider, input.clientAddress, { reason: (err as Error).message.slice(0, 300) });
        throw new AppError('UNAUTHORIZED', `The sign-in with ${provider.displayName} could not be verified: ${(err as Error).message}`);
      }
      const user = await externalUser(provider, identity, provider.roleFor(identity));
      if (user === null) {
        await auditFailedExternalSignIn(provider, input.clientAddress, {
          reason: 'in no group mapped to a role',
          subject: identity.subject,
          username: identity.username,
          groups: identity.groups,
        });
        throw new AppError(
          'FORBIDDEN',
          `${identity.username} signed in at ${provider.displayName} but is in none of the groups this server grants a role to`,
        );
      }
      return { me: await startSession(user, input.cookies, `oidc:${provider.id}`), next: flow.next };
    },
  };
}
