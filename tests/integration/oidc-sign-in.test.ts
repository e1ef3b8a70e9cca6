// Sign-in with the team's OpenID Connect provider, end to end over HTTP against a real OP
// (oidc-provider, tests/fakes/test-oidc-idp.ts): discovery, authorization code with PKCE, ID token
// checks, group → role mapping, the local user it creates, and every refusal leaving no session.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '@/db/open-database';
import { auditLog, sessions, users } from '@/db/schema';
import { hashPassword } from '@/server/auth/password';
import { parseEnv, type FleetplanEnv } from '@/server/env';
import { insertUser } from '@/server/repositories/user-repository';
import { AppError } from '@/server/services/app-error';
import { createAuthService } from '@/server/services/auth-service';
import { createUserService } from '@/server/services/user-service';
import { flowCookieOf, followProviderRedirects } from '../fakes/oidc-browser';
import { corpOidcSettings, startTestIdp, type TestIdp } from '../fakes/test-oidc-idp';

const ORIGIN = 'http://fleetplan.test';
const REDIRECT_URI = `${ORIGIN}/api/auth/corp/callback`;
const NOW = new Date('2026-11-25T09:00:00Z');

let idp: TestIdp;
let env: FleetplanEnv;
let db: Db;

beforeAll(async () => {
  idp = await startTestIdp({ redirectUris: [REDIRECT_URI] });
  env = parseEnv(corpOidcSettings(idp, 'admin=fleet-admins;operator=sre,oncall;viewer=staff'));
});
afterAll(() => idp.close());
beforeEach(() => {
  db = openDatabase(':memory:');
});

function auth(now = NOW) {
  return createAuthService({ db, realNow: () => now, env });
}

async function signIn(opts: { next?: string; now?: Date; tamper?: (callback: URL) => URL } = {}) {
  const service = auth(opts.now);
  const begin = await service.beginExternalSignIn({ providerId: 'corp', next: opts.next ?? '/fleet', origin: ORIGIN, secure: false });
  const callback = await followProviderRedirects(begin.location, ORIGIN);
  const cookies: string[] = [];
  const result = await service.completeExternalSignIn({
    providerId: 'corp',
    callbackUrl: opts.tamper ? opts.tamper(callback) : callback,
    flowCookie: flowCookieOf(begin.cookie),
    cookies: { secure: false, set: (c) => cookies.push(c) },
    clientAddress: '203.0.113.9',
  });
  return { ...result, cookies, begin, callback };
}

async function refusal(promise: Promise<unknown>): Promise<AppError> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  if (!(err instanceof AppError)) throw new Error(`expected a refusal, got ${String(err)}`);
  return err;
}

const auditActions = () =>
  db
    .select()
    .from(auditLog)
    .all()
    .map((r) => r.action);

describe('OIDC sign-in', () => {
  it('sends the browser to the provider with PKCE (S256), state and nonce, and binds them in a sealed cookie', async () => {
    const { location, cookie } = await auth().beginExternalSignIn({ providerId: 'corp', next: '/fleet', origin: ORIGIN, secure: true });
    expect(location.origin).toBe(idp.issuer);
    expect(location.searchParams.get('code_challenge_method')).toBe('S256');
    expect(location.searchParams.get('redirect_uri')).toBe(REDIRECT_URI);
    expect(location.searchParams.get('state')).toMatch(/^[\w-]{20,}$/);
    expect(location.searchParams.get('nonce')).toMatch(/^[\w-]{20,}$/);
    expect(cookie).toMatch(/^fleetplan_sign_in=fpenc/);
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('Secure');
    // nothing readable in it: neither the state nor the verifier appear in clear
    expect(cookie).not.toContain(location.searchParams.get('state')!);
  });

  it('creates a local user on the first sign-in with the role its groups map to, and starts a session', async () => {
    idp.loginAs({ sub: 'u-100', preferred_username: 'alice', email: 'alice@example.test', groups: ['staff', 'sre'] });
    const { me, next, cookies } = await signIn({ next: '/clusters/ocm-prod-1?tab=why' });
    expect(me).toMatchObject({ username: 'alice', role: 'operator', via: 'session', mustChangePassword: false });
    expect(next).toBe('/clusters/ocm-prod-1?tab=why');
    expect(cookies.some((c) => c.startsWith('fleetplan_session='))).toBe(true);
    expect(db.select().from(users).all()).toEqual([
      expect.objectContaining({ username: 'alice', role: 'operator', externalSubject: 'corp:u-100' }),
    ]);
    expect(db.select().from(sessions).all()).toHaveLength(1);
    expect(auditActions()).toEqual(['user.create', 'auth.login']);
  });

  it('follows the groups at every sign-in: the same subject keeps its user, its role changes with its groups (audited)', async () => {
    idp.loginAs({ sub: 'u-100', preferred_username: 'alice', groups: ['sre'] });
    await signIn();
    idp.loginAs({ sub: 'u-100', preferred_username: 'alice-renamed', groups: ['fleet-admins'] });
    const { me } = await signIn();
    expect(me).toMatchObject({ username: 'alice', role: 'admin' });
    expect(db.select().from(users).all()).toHaveLength(1);
    const roleChange = db
      .select()
      .from(auditLog)
      .all()
      .find((r) => r.action === 'user.set-role');
    expect(roleChange).toMatchObject({ target: 'user:alice', before: { role: 'operator' } });
    expect(roleChange?.after).toMatchObject({ role: 'admin', groups: ['fleet-admins'] });
  });

  it('refuses an identity in none of the mapped groups: no user, no session, an audit row', async () => {
    idp.loginAs({ sub: 'u-200', preferred_username: 'mallory', groups: ['marketing'] });
    const err = await refusal(signIn());
    expect(err.code).toBe('FORBIDDEN');
    expect(err.message).toContain('none of the groups');
    expect(db.select().from(users).all()).toHaveLength(0);
    expect(db.select().from(sessions).all()).toHaveLength(0);
    const audit = db.select().from(auditLog).all();
    expect(audit.map((r) => [r.action, r.target])).toEqual([['auth.login-failed', 'provider:corp']]);
    expect(audit[0]!.after).toMatchObject({ reason: 'in no group mapped to a role', groups: ['marketing'] });
  });

  it('does not take over a local account with the same name', async () => {
    await insertUser(db, { username: 'alice', passwordHash: await hashPassword('a local password 123'), role: 'admin', createdAt: NOW });
    idp.loginAs({ sub: 'u-300', preferred_username: 'alice', groups: ['staff'] });
    const { me } = await signIn();
    expect(me).toMatchObject({ username: 'alice@corp', role: 'viewer' });
  });

  it('refuses a callback whose state was changed, a code redeemed twice, and a flow that expired', async () => {
    idp.loginAs({ sub: 'u-100', preferred_username: 'alice', groups: ['sre'] });
    const tampered = await refusal(
      signIn({
        tamper: (callback) => {
          const url = new URL(callback);
          url.searchParams.set('state', 'forged-state-value');
          return url;
        },
      }),
    );
    expect(tampered.code).toBe('UNAUTHORIZED');
    expect(tampered.message).toContain('could not be verified');

    const first = await signIn();
    const replay = await refusal(
      auth().completeExternalSignIn({
        providerId: 'corp',
        callbackUrl: first.callback,
        flowCookie: flowCookieOf(first.begin.cookie),
        cookies: { secure: false, set: () => {} },
        clientAddress: '203.0.113.9',
      }),
    );
    expect(replay.code).toBe('UNAUTHORIZED');

    const service = auth();
    const begin = await service.beginExternalSignIn({ providerId: 'corp', origin: ORIGIN, secure: false });
    const callback = await followProviderRedirects(begin.location, ORIGIN);
    const late = await refusal(
      auth(new Date(NOW.getTime() + 11 * 60_000)).completeExternalSignIn({
        providerId: 'corp',
        callbackUrl: callback,
        flowCookie: flowCookieOf(begin.cookie),
        cookies: { secure: false, set: () => {} },
        clientAddress: '203.0.113.9',
      }),
    );
    expect(late.message).toContain('longer than 10 minutes');
    expect(db.select().from(sessions).all()).toHaveLength(1);
  });

  it('refuses a callback without the flow cookie of this browser', async () => {
    const begin = await auth().beginExternalSignIn({ providerId: 'corp', origin: ORIGIN, secure: false });
    const callback = await followProviderRedirects(begin.location, ORIGIN);
    const err = await refusal(
      auth().completeExternalSignIn({
        providerId: 'corp',
        callbackUrl: callback,
        flowCookie: undefined,
        cookies: { secure: false, set: () => {} },
        clientAddress: '203.0.113.9',
      }),
    );
    expect(err.message).toContain('not started in this browser');
  });

  it("shows the provider's own refusal", async () => {
    idp.refuseNext('access_denied', 'the user said no');
    const err = await refusal(signIn());
    expect(err.message).toBe('Corp SSO refused the sign-in: the user said no');
  });

  it('goes only to paths on this site after signing in', async () => {
    idp.loginAs({ sub: 'u-100', preferred_username: 'alice', groups: ['sre'] });
    expect((await signIn({ next: '//evil.example/x' })).next).toBe('/fleet');
  });

  it('has no password to change for such a user', async () => {
    idp.loginAs({ sub: 'u-100', preferred_username: 'alice', groups: ['sre'] });
    const { me } = await signIn();
    const user = db.select().from(users).all()[0]!;
    const err = await refusal(
      auth().changePassword({
        currentPassword: 'x',
        newPassword: 'a brand new password 1',
        actor: { name: me.username, role: me.role, via: 'session', userId: user.id },
        cookies: { secure: false, set: () => {} },
      }),
    );
    expect(err.code).toBe('FORBIDDEN');
  });

  it('lists the provider on the login page, and an unknown one is not found', async () => {
    expect((await auth().loginOptions()).providers).toEqual([{ id: 'corp', displayName: 'Corp SSO' }]);
    const err = await refusal(auth().beginExternalSignIn({ providerId: 'other', origin: ORIGIN, secure: false }));
    expect(err.code).toBe('NOT_FOUND');
  });

  it('shows admins which users come from the provider, and refuses to set their role or password here', async () => {
    idp.loginAs({ sub: 'u-100', preferred_username: 'alice', groups: ['sre'] });
    await signIn();
    const users = createUserService({ db, realNow: () => NOW });
    const admin = { name: 'admin', role: 'admin' as const, via: 'session' as const };
    expect(await users.list()).toEqual([expect.objectContaining({ username: 'alice', role: 'operator', signsInWith: 'corp' })]);
    await expect(async () => await users.setRole({ username: 'alice', role: 'admin', actor: admin })).rejects.toThrow(
      'its role is managed there',
    );
    await expect(users.resetPassword({ username: 'alice', actor: admin })).rejects.toThrow('its password is managed there');
    // disabling stays a local decision, and keeps the user out at the next sign-in
    await users.setDisabled({ username: 'alice', disabled: true, actor: admin });
    expect((await refusal(signIn())).message).toContain('disabled');
  });
});
