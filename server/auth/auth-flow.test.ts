// Authentication end to end: login, sessions, CSRF, API tokens, users, audit. Through createCaller
// and through the tRPC fetch handler with real Request/Response objects (cookies and headers).
import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import { beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '@/db/open-database';
import { auditLog, sessions, apiTokens } from '@/db/schema';
import { appRouter, createCaller } from '@/server/api/root';
import { createContextInner } from '@/server/api/trpc';
import { parseEnv, type FleetplanEnv, type RawEnv } from '@/server/env';
import type { Actor } from './actor';
import { bootstrapAuth } from './bootstrap';
import { hashPassword, verifyPassword } from './password';
import { resolveRequestActor } from './resolve-request-actor';

const NOW = new Date('2026-11-22T12:00:00Z');
const ADMIN_PASSWORD = 'correct horse battery';
let db: Db;
/** the server's settings in this test (what FLEETPLAN_* would say) */
let env: FleetplanEnv;

/** settings as parsed from these variables (a real provider's own required settings filled in) */
function settings(raw: RawEnv): FleetplanEnv {
  return parseEnv({ FLEETPLAN_OCM_TOKEN: 'test-token', KUBECONFIG: '/nonexistent/kubeconfig', ...raw });
}

beforeEach(async () => {
  db = openDatabase(':memory:');
  env = settings({});
  await bootstrapAuth(db, { env: settings({ FLEETPLAN_ADMIN_PASSWORD: ADMIN_PASSWORD }), log: () => {}, now: NOW });
});

function caller(actor: Actor | null, opts: { headers?: Headers; csrfOk?: boolean } = {}) {
  return createCaller(createContextInner({ db, fleetNow: () => NOW, env, actor, resHeaders: opts.headers, csrfOk: opts.csrfOk }));
}

/** the app's HTTP endpoint, as app/api/trpc/[trpc]/route.ts wires it */
async function http(
  path: string,
  init: { method?: 'GET' | 'POST'; body?: unknown; cookie?: string; csrf?: string; bearer?: string; origin?: string } = {},
) {
  const headers = new Headers({ 'content-type': 'application/json', host: 'fleet.test' });
  if (init.cookie) headers.set('cookie', init.cookie);
  if (init.csrf !== undefined) headers.set('x-csrf-token', init.csrf);
  if (init.bearer) headers.set('authorization', `Bearer ${init.bearer}`);
  if (init.origin) headers.set('origin', init.origin);
  const method = init.method ?? 'POST';
  const url =
    method === 'GET' && init.body !== undefined
      ? `http://fleet.test/api/trpc/${path}?input=${encodeURIComponent(JSON.stringify(init.body))}`
      : `http://fleet.test/api/trpc/${path}`;
  const req = new Request(url, { method, headers, body: method === 'POST' ? JSON.stringify(init.body ?? {}) : undefined });
  const identity = await resolveRequestActor(db, req);
  const res = await fetchRequestHandler({
    endpoint: '/api/trpc',
    req,
    router: appRouter,
    createContext: ({ resHeaders }) =>
      createContextInner({
        db,
        fleetNow: () => NOW,
        env,
        actor: identity.actor,
        csrfOk: identity.csrfOk,
        secureCookies: identity.secure,
        resHeaders,
      }),
  });
  return {
    status: res.status,
    body: (await res.json()) as { result?: { data: unknown }; error?: { data: { code: string } } },
    setCookies: res.headers.getSetCookie(),
  };
}

function cookieHeaderFrom(setCookies: string[]): { cookie: string; csrf: string } {
  const pairs = setCookies.map((c) => c.split(';')[0]!);
  const csrf = pairs.find((p) => p.startsWith('fleetplan_csrf='))!.split('=')[1]!;
  return { cookie: pairs.join('; '), csrf: decodeURIComponent(csrf) };
}

async function loginOverHttp(username = 'admin', password = ADMIN_PASSWORD) {
  const res = await http('auth.login', { body: { username, password } });
  expect(res.status).toBe(200);
  return cookieHeaderFrom(res.setCookies);
}

describe('password hashing', () => {
  it('stores scrypt parameters and a per-user salt, and verifies only the right password', async () => {
    const a = await hashPassword('s3cret-password');
    const b = await hashPassword('s3cret-password');
    expect(a).toMatch(/^scrypt\$32768\$8\$1\$/);
    expect(a).not.toBe(b);
    expect(await verifyPassword('s3cret-password', a)).toBe(true);
    expect(await verifyPassword('s3cret-passworD', a)).toBe(false);
    expect(await verifyPassword('x', 'garbage')).toBe(false);
  });
});

describe('bootstrap', () => {
  it('creates admin once, printing a random password exactly once when none is configured', async () => {
    const fresh = openDatabase(':memory:');
    const lines: string[] = [];
    await bootstrapAuth(fresh, { env: settings({}), log: (l) => lines.push(l), now: NOW });
    await bootstrapAuth(fresh, { env: settings({}), log: (l) => lines.push(l), now: NOW });
    expect(lines).toHaveLength(1);
    const password = /password (\S+)/.exec(lines[0]!)![1]!;
    const headers = new Headers();
    const me = await createCaller(createContextInner({ db: fresh, fleetNow: () => NOW, actor: null, resHeaders: headers })).auth.login({
      username: 'admin',
      password,
    });
    expect(me).toMatchObject({ username: 'admin', role: 'admin' });
  });

  it('seeds a demo operator whose sign-in creates a real session, only when demo login is on', async () => {
    await expect(caller(null).auth.demoLogin()).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await bootstrapAuth(db, { env, demoSeeded: true, log: () => {}, now: NOW });
    expect(await caller(null).auth.loginOptions()).toMatchObject({ demoLogin: true });
    const res = await http('auth.demoLogin');
    expect(res.status).toBe(200);
    const { cookie } = cookieHeaderFrom(res.setCookies);
    const me = await http('auth.me', { method: 'GET', cookie });
    expect(me.body.result?.data).toEqual({
      username: 'demo',
      role: 'operator',
      via: 'session',
      mustChangePassword: false,
      organizationRole: 'operator',
    });
  });
});

describe('demo sign-in only with the simulator provider', () => {
  it.each(['ocm', 'kubernetes'])(
    'refuses an anonymous demo sign-in on a demo-seeded database when the provider is %s',
    async (provider) => {
      env = settings({ FLEETPLAN_PROVIDER: provider });
      await bootstrapAuth(db, { env, demoSeeded: true, log: () => {}, now: NOW });
      expect(await caller(null).auth.loginOptions()).toMatchObject({ demoLogin: false });
      const res = await http('auth.demoLogin');
      expect(res.status).toBe(403);
      expect(res.setCookies).toEqual([]);
      expect(db.select().from(sessions).all()).toHaveLength(0);
    },
  );

  it('refuses even with FLEETPLAN_DEMO_LOGIN=1, says so in the server log, and creates no demo user', async () => {
    env = settings({ FLEETPLAN_PROVIDER: 'ocm', FLEETPLAN_DEMO_LOGIN: '1' });
    const fresh = openDatabase(':memory:');
    const lines: string[] = [];
    const created = await bootstrapAuth(fresh, { env, demoSeeded: true, log: (l) => lines.push(l), now: NOW });
    expect(created.demoUserCreated).toBe(false);
    expect(lines.some((l) => /FLEETPLAN_DEMO_LOGIN=1 refused.*simulator/.test(l))).toBe(true);
    await expect(createCaller(createContextInner({ db: fresh, env, actor: null })).auth.demoLogin()).rejects.toMatchObject({
      code: 'FORBIDDEN',
    });
  });

  it('stops a demo user created under the simulator from signing in once a real provider is configured', async () => {
    await bootstrapAuth(db, { env, demoSeeded: true, log: () => {}, now: NOW });
    expect((await http('auth.demoLogin')).status).toBe(200);
    env = settings({ FLEETPLAN_PROVIDER: 'ocm' });
    expect((await http('auth.demoLogin')).status).toBe(403);
  });
});

describe('login and sessions over HTTP', () => {
  it('refuses a wrong password and an unknown user alike with UNAUTHORIZED and sets no cookie', async () => {
    for (const body of [
      { username: 'admin', password: 'nope-nope-nope' },
      { username: 'ghost', password: ADMIN_PASSWORD },
    ]) {
      const res = await http('auth.login', { body });
      expect(res.status).toBe(401);
      expect(res.body.error?.data.code).toBe('UNAUTHORIZED');
      expect(res.setCookies).toEqual([]);
    }
  });

  it('sets an httpOnly SameSite=Lax session cookie and a script-readable CSRF cookie; the database keeps only a hash', async () => {
    const res = await http('auth.login', { body: { username: 'admin', password: ADMIN_PASSWORD } });
    const session = res.setCookies.find((c) => c.startsWith('fleetplan_session='))!;
    const csrf = res.setCookies.find((c) => c.startsWith('fleetplan_csrf='))!;
    expect(session).toMatch(/HttpOnly/);
    expect(session).toMatch(/SameSite=Lax/);
    expect(session).toMatch(/Max-Age=43200/);
    expect(session).not.toMatch(/Secure/);
    expect(csrf).not.toMatch(/HttpOnly/);
    const token = decodeURIComponent(session.split(';')[0]!.split('=')[1]!);
    const rows = db.select().from(sessions).all();
    expect(rows).toHaveLength(1);
    expect(rows[0]!.idHash).not.toBe(token);
    expect(rows[0]!.idHash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('marks cookies Secure behind https', async () => {
    const req = new Request('http://fleet.test/api/trpc/auth.me', { headers: { 'x-forwarded-proto': 'https' } });
    expect((await resolveRequestActor(db, req)).secure).toBe(true);
  });

  it('refuses a session mutation without the CSRF header (FORBIDDEN) and accepts it with the header', async () => {
    const { cookie, csrf } = await loginOverHttp();
    const without = await http('users.create', { cookie, body: { username: 'alice', password: 'alice-password-1', role: 'viewer' } });
    expect(without.body.error?.data.code).toBe('FORBIDDEN');
    const wrong = await http('users.create', {
      cookie,
      csrf: 'x'.repeat(43),
      body: { username: 'alice', password: 'alice-password-1', role: 'viewer' },
    });
    expect(wrong.body.error?.data.code).toBe('FORBIDDEN');
    const ok = await http('users.create', { cookie, csrf, body: { username: 'alice', password: 'alice-password-1', role: 'viewer' } });
    expect(ok.status).toBe(200);
    // queries need no CSRF token
    expect((await http('users.list', { method: 'GET', cookie })).status).toBe(200);
  });

  it('refuses a login posted from a foreign Origin', async () => {
    const res = await http('auth.login', { origin: 'https://evil.example', body: { username: 'admin', password: ADMIN_PASSWORD } });
    expect(res.body.error?.data.code).toBe('FORBIDDEN');
  });

  it('ends the session at logout and clears the cookies', async () => {
    const { cookie, csrf } = await loginOverHttp();
    const out = await http('auth.logout', { cookie, csrf });
    expect(out.setCookies.some((c) => c.startsWith('fleetplan_session=;') && c.includes('Max-Age=0'))).toBe(true);
    expect(db.select().from(sessions).all()).toHaveLength(0);
    expect((await http('auth.me', { method: 'GET', cookie })).body.result?.data).toBeNull();
  });

  it('ignores an expired session', async () => {
    const { cookie } = await loginOverHttp();
    const req = new Request('http://fleet.test/api/trpc/auth.me', { headers: { cookie } });
    expect((await resolveRequestActor(db, req, new Date(Date.now() + 13 * 3600_000))).actor).toBeNull();
  });

  it('drops the sessions of a disabled user at once', async () => {
    const admin = caller({ name: 'admin', role: 'admin', via: 'session', userId: 1 });
    await admin.users.create({ username: 'bob', password: 'bob-password-1', role: 'operator' });
    const { cookie } = await loginOverHttp('bob', 'bob-password-1');
    await admin.users.setDisabled({ username: 'bob', disabled: true });
    expect((await http('auth.me', { method: 'GET', cookie })).body.result?.data).toBeNull();
    expect((await http('auth.login', { body: { username: 'bob', password: 'bob-password-1' } })).status).toBe(401);
  });
});

describe('API tokens', () => {
  async function createToken(scope: 'viewer' | 'operator' | 'admin', name = 'ci') {
    const { cookie, csrf } = await loginOverHttp();
    const res = await http('tokens.create', { cookie, csrf, body: { name, scope } });
    expect(res.status).toBe(200);
    return res.body.result!.data as { token: string; summary: { id: number; prefix: string } };
  }

  it('shows the secret once; lists only the prefix; stores a SHA-256', async () => {
    const { token, summary } = await createToken('viewer');
    expect(token).toMatch(/^fp_[A-Za-z0-9_-]{43}$/);
    expect(token.startsWith(summary.prefix)).toBe(true);
    const listed = await caller({ name: 'admin', role: 'admin', via: 'session', userId: 1 }).tokens.list({ all: true });
    expect(JSON.stringify(listed)).not.toContain(token);
    expect(db.select().from(apiTokens).get()!.tokenHash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('acts with the token scope, not the owner role, and needs no CSRF token', async () => {
    const { token } = await createToken('viewer');
    expect((await http('users.list', { method: 'GET', bearer: token })).body.error?.data.code).toBe('FORBIDDEN');
    expect((await http('fleet.status', { method: 'GET', bearer: token })).body.error?.data.code ?? 'OK').not.toMatch(
      /UNAUTHORIZED|FORBIDDEN/,
    );
    const admin = await createToken('admin', 'automation');
    expect(
      (await http('users.create', { bearer: admin.token, body: { username: 'carol', password: 'carol-password', role: 'viewer' } })).status,
    ).toBe(200);
    expect(
      db
        .select()
        .from(apiTokens)
        .all()
        .find((t) => t.name === 'automation')!.lastUsedAt,
    ).not.toBeNull();
  });

  it('refuses a revoked token and an unknown one with UNAUTHORIZED', async () => {
    const { token, summary } = await createToken('operator');
    await caller({ name: 'admin', role: 'admin', via: 'session', userId: 1 }).tokens.revoke({ id: summary.id });
    expect((await http('users.list', { method: 'GET', bearer: token })).body.error?.data.code).toBe('UNAUTHORIZED');
    expect((await http('fleet.status', { method: 'GET', bearer: 'fp_notarealtoken' })).body.error?.data.code).toBe('UNAUTHORIZED');
  });

  it('refuses a scope above the owner role, and token-minted tokens', async () => {
    const admin = caller({ name: 'admin', role: 'admin', via: 'session', userId: 1 });
    await admin.users.create({ username: 'vic', password: 'vic-password-1', role: 'viewer' });
    const vic = caller({ name: 'vic', role: 'viewer', via: 'session', userId: 2 });
    await expect(vic.tokens.create({ name: 'x', scope: 'operator' })).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(vic.tokens.list({ all: true })).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(
      caller({ name: 'token:x@admin', role: 'admin', via: 'token', userId: 1 }).tokens.create({ name: 'y', scope: 'viewer' }),
    ).rejects.toMatchObject({ code: 'FORBIDDEN' });
  });

  it("caps a token at its owner's current role after a demotion", async () => {
    const admin = caller({ name: 'admin', role: 'admin', via: 'session', userId: 1 });
    await admin.users.create({ username: 'olga', password: 'olga-password', role: 'admin' });
    const { cookie, csrf } = await loginOverHttp('olga', 'olga-password');
    const { token } = (await http('tokens.create', { cookie, csrf, body: { name: 'ops', scope: 'admin' } })).body.result!.data as {
      token: string;
    };
    await admin.users.setRole({ username: 'olga', role: 'viewer' });
    expect((await http('users.list', { method: 'GET', bearer: token })).body.error?.data.code).toBe('FORBIDDEN');
  });
});

describe('users and audit', () => {
  it('will not demote or disable the last enabled admin', async () => {
    const admin = caller({ name: 'admin', role: 'admin', via: 'session', userId: 1 });
    await expect(admin.users.setRole({ username: 'admin', role: 'operator' })).rejects.toMatchObject({ code: 'PRECONDITION_FAILED' });
    await expect(
      caller({ name: 'root2', role: 'admin', via: 'session', userId: 99 }).users.setDisabled({ username: 'admin', disabled: true }),
    ).rejects.toMatchObject({ code: 'PRECONDITION_FAILED' });
  });

  it('records who changed what, with before and after, and never a secret', async () => {
    const admin = caller({ name: 'admin', role: 'admin', via: 'session', userId: 1 });
    await admin.users.create({ username: 'dave', password: 'dave-password', role: 'viewer' });
    await admin.users.setRole({ username: 'dave', role: 'operator' });
    const reset = await admin.users.resetPassword({ username: 'dave' });
    expect(reset.generatedPassword).toMatch(/^\S{20}$/);
    const rows = db.select().from(auditLog).all();
    const setRole = rows.find((r) => r.action === 'user.set-role')!;
    expect(setRole).toMatchObject({ actor: 'admin', target: 'user:dave', before: { role: 'viewer' }, after: { role: 'operator' } });
    expect(rows.map((r) => r.action)).toEqual(expect.arrayContaining(['user.create', 'user.set-role', 'user.reset-password']));
    expect(JSON.stringify(rows)).not.toContain('dave-password');
    expect(JSON.stringify(rows)).not.toContain(reset.generatedPassword);
  });

  it('makes no change whose audit entry cannot be written (each change and its entry are one transaction)', async () => {
    const admin = caller({ name: 'admin', role: 'admin', via: 'session', userId: 1 });
    await admin.users.create({ username: 'erin', password: 'erin-password-1', role: 'viewer' });
    const erin = await loginOverHttp('erin', 'erin-password-1');
    const sessionsBefore = db.select().from(sessions).all();
    db.$client.exec("create trigger audit_down before insert on audit_log begin select raise(abort, 'audit log unavailable'); end");

    await expect(admin.users.setRole({ username: 'erin', role: 'operator' })).rejects.toThrow(/audit log unavailable/);
    await expect(admin.users.setDisabled({ username: 'erin', disabled: true })).rejects.toThrow(/audit log unavailable/);
    await expect(admin.users.create({ username: 'frank', password: 'frank-password-1', role: 'viewer' })).rejects.toThrow(
      /audit log unavailable/,
    );
    expect((await http('auth.login', { body: { username: 'erin', password: 'erin-password-1' } })).status).toBe(500);
    expect((await http('auth.login', { body: { username: 'erin', password: 'wrong-password' } })).status).toBe(500);
    expect((await http('auth.logout', { cookie: erin.cookie, csrf: erin.csrf })).status).toBe(500);

    expect(await admin.users.list()).toEqual([
      expect.objectContaining({ username: 'admin', role: 'admin', disabled: false }),
      expect.objectContaining({ username: 'erin', role: 'viewer', disabled: false }),
    ]);
    expect(db.select().from(sessions).all()).toEqual(sessionsBefore);
    expect(db.$client.prepare('select count(*) as n from sign_in_throttle').get()).toEqual({ n: 0 });
  });

  it('validates sizes and shapes of inputs', async () => {
    const admin = caller({ name: 'admin', role: 'admin', via: 'session', userId: 1 });
    await expect(admin.users.create({ username: '<script>', password: 'long-enough-pw', role: 'viewer' })).rejects.toMatchObject({
      code: 'BAD_REQUEST',
    });
    await expect(admin.users.create({ username: 'ok', password: 'x'.repeat(10_000), role: 'viewer' })).rejects.toMatchObject({
      code: 'BAD_REQUEST',
    });
    await expect(caller(null).auth.login({ username: 'a'.repeat(1000), password: 'x' })).rejects.toMatchObject({ code: 'BAD_REQUEST' });
  });
});
