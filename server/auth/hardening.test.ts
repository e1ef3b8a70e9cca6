// Issue 10 regressions over the tRPC fetch handler: sign-in throttling and audit, password rules,
// forced password change, token expiry and revocation on password reset.
import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import { beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '@/db/open-database';
import { apiTokens, auditLog, sessions } from '@/db/schema';
import { appRouter, createCaller } from '@/server/api/root';
import { createContextInner } from '@/server/api/trpc';
import { parseEnv } from '@/server/env';
import { bootstrapAuth } from './bootstrap';
import { resolveRequestActor } from './resolve-request-actor';

const ADMIN_PASSWORD = 'correct horse battery';
const env = parseEnv({ FLEETPLAN_ADMIN_PASSWORD: ADMIN_PASSWORD });
let db: Db;
let clock: Date;

beforeEach(async () => {
  db = openDatabase(':memory:');
  clock = new Date();
  await bootstrapAuth(db, { env, log: () => {}, now: clock });
});

async function http(path: string, init: { body?: unknown; cookie?: string; csrf?: string; address?: string; get?: boolean } = {}) {
  const headers = new Headers({ 'content-type': 'application/json', host: 'fleet.test' });
  if (init.cookie) headers.set('cookie', init.cookie);
  if (init.csrf) headers.set('x-csrf-token', init.csrf);
  const url = init.get
    ? `http://fleet.test/api/trpc/${path}${init.body === undefined ? '' : `?input=${encodeURIComponent(JSON.stringify(init.body))}`}`
    : `http://fleet.test/api/trpc/${path}`;
  const req = new Request(url, {
    method: init.get ? 'GET' : 'POST',
    headers,
    body: init.get ? undefined : JSON.stringify(init.body ?? {}),
  });
  const identity = await resolveRequestActor(db, req, clock);
  const res = await fetchRequestHandler({
    endpoint: '/api/trpc',
    req,
    router: appRouter,
    createContext: ({ resHeaders }) =>
      createContextInner({
        db,
        env,
        realNow: () => clock,
        actor: identity.actor,
        csrfOk: identity.csrfOk,
        resHeaders,
        clientAddress: init.address ?? '192.0.2.1',
      }),
  });
  return {
    status: res.status,
    retryAfter: res.headers.get('retry-after'),
    body: (await res.json()) as { result?: { data: unknown }; error?: { message: string; data: { code: string } } },
    setCookies: res.headers.getSetCookie(),
  };
}

function sessionOf(setCookies: string[]) {
  const pairs = setCookies.map((c) => c.split(';')[0]!);
  return { cookie: pairs.join('; '), csrf: decodeURIComponent(pairs.find((p) => p.startsWith('fleetplan_csrf='))!.split('=')[1]!) };
}

const login = (username: string, password: string, address?: string) => http('auth.login', { body: { username, password }, address });
const admin = () =>
  createCaller(createContextInner({ db, env, realNow: () => clock, actor: { name: 'admin', role: 'admin', via: 'session', userId: 1 } }));

describe('sign-in throttling', () => {
  it('answers 429 with Retry-After after 5 wrong passwords, also to the right password, and backs off exponentially', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await login('admin', `wrong password ${i}`)).status);
    expect(statuses).toEqual([401, 401, 401, 401, 401]);
    const sixth = await login('admin', 'wrong password 6');
    // the 5th failure blocks for 1 s
    expect(sixth.status).toBe(429);
    expect(sixth.retryAfter).toBe('1');
    expect((await login('admin', ADMIN_PASSWORD)).status).toBe(429);
    clock = new Date(clock.getTime() + 1_001);
    expect((await login('admin', 'wrong password 7')).status).toBe(401);
    const blocked = await login('admin', ADMIN_PASSWORD);
    expect(blocked.status).toBe(429);
    expect(blocked.retryAfter).toBe('2');
    clock = new Date(clock.getTime() + 2_001);
    expect((await login('admin', ADMIN_PASSWORD)).status).toBe(200);
    // success clears the account's counter
    expect((await login('admin', 'wrong again')).status).toBe(401);
    expect((await login('admin', 'wrong again')).status).toBe(401);
  });

  it('100 guesses in a row: at most 5 reach the password check; the rest are refused with 429', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 100; i++) statuses.push((await login('admin', `guess ${i}`)).status);
    expect(statuses.filter((s) => s === 401)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(95);
  });

  it('throttles an address that tries many accounts, and a different address is unaffected', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 21; i++) statuses.push((await login(`user${i}`, 'some wrong password', '198.51.100.7')).status);
    expect(statuses.slice(0, 20).every((s) => s === 401)).toBe(true);
    expect(statuses[20]).toBe(429);
    expect((await login('admin', ADMIN_PASSWORD, '203.0.113.9')).status).toBe(200);
  });

  it('keeps the counters in the database (shared by replicas) and forgets them after the window', async () => {
    for (let i = 0; i < 5; i++) await login('admin', 'nope nope nope');
    const rows = db.$client.prepare('select key, failures from sign_in_throttle order by key').all();
    expect(rows).toEqual([
      { key: 'addr:192.0.2.1', failures: 5 },
      { key: 'user:admin', failures: 5 },
    ]);
    clock = new Date(clock.getTime() + 31 * 60_000);
    expect((await login('admin', 'nope nope nope')).status).toBe(401);
  });

  it('audits failed sign-ins, and answers an unknown user exactly like a wrong password', async () => {
    const unknown = await login('ghost', 'whatever password');
    const wrong = await login('admin', 'whatever password');
    expect(unknown.status).toBe(401);
    expect(unknown.body.error?.message).toBe(wrong.body.error?.message);
    const failed = db
      .select()
      .from(auditLog)
      .all()
      .filter((r) => r.action === 'auth.login-failed');
    expect(failed.map((r) => [r.actor, r.target])).toEqual([
      ['anonymous@192.0.2.1', 'user:ghost'],
      ['anonymous@192.0.2.1', 'user:admin'],
    ]);
    expect(JSON.stringify(failed)).not.toContain('whatever password');
  });
});

describe('password rules', () => {
  it.each([
    ['ten spaces', ' '.repeat(10)],
    ['twelve spaces', ' '.repeat(12)],
    ['a short password padded with spaces', '   short1   '],
    ['a common password', 'qwerty123456'],
    ['a common password in other case', 'QwErTy123456'],
    ['one character repeated', 'aaaaaaaaaaaaaaaa'],
  ])('refuses %s for a new user and for a reset', async (_what, password) => {
    await expect(admin().users.create({ username: 'erin', password, role: 'viewer' })).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    await expect(admin().users.resetPassword({ username: 'admin', password })).rejects.toMatchObject({ code: 'BAD_REQUEST' });
  });

  it('refuses a weak FLEETPLAN_ADMIN_PASSWORD at start-up', () => {
    expect(() => parseEnv({ FLEETPLAN_ADMIN_PASSWORD: ' '.repeat(12) })).toThrow(/FLEETPLAN_ADMIN_PASSWORD must have at least 12/);
    expect(() => parseEnv({ FLEETPLAN_ADMIN_PASSWORD: '1qaz2wsx3edc' })).toThrow(/commonly used/);
  });
});

describe('forced password change', () => {
  it('makes the first admin replace a printed password before anything else works', async () => {
    db = openDatabase(':memory:');
    const lines: string[] = [];
    await bootstrapAuth(db, { env: parseEnv({}), log: (l) => lines.push(l), now: clock });
    const printed = /password (\S+)/.exec(lines[0]!)![1]!;
    const first = await login('admin', printed);
    expect(first.status).toBe(200);
    expect(first.body.result?.data).toMatchObject({ username: 'admin', mustChangePassword: true });
    const s = sessionOf(first.setCookies);
    expect((await http('users.list', { get: true, cookie: s.cookie })).body.error?.message).toBe('Change your password first');
    expect((await http('tokens.create', { ...s, body: { name: 'ci', scope: 'viewer' } })).body.error?.data.code).toBe('FORBIDDEN');

    const weak = await http('auth.changePassword', { ...s, body: { currentPassword: printed, newPassword: ' '.repeat(14) } });
    expect(weak.body.error?.data.code).toBe('BAD_REQUEST');
    const changed = await http('auth.changePassword', { ...s, body: { currentPassword: printed, newPassword: 'a brand new passphrase' } });
    expect(changed.status).toBe(200);
    expect(changed.body.result?.data).toMatchObject({ mustChangePassword: false });
    // the old session is gone; the new one works
    expect((await http('auth.me', { get: true, cookie: s.cookie })).body.result?.data).toBeNull();
    const fresh = sessionOf(changed.setCookies);
    expect((await http('users.list', { get: true, cookie: fresh.cookie })).status).toBe(200);
    expect((await login('admin', printed)).status).toBe(401);
    expect((await http('auth.logout', { ...fresh })).status).toBe(200);
  });

  it('asks a user whose password an admin reset to change it', async () => {
    await admin().users.create({ username: 'frank', password: 'franks own password', role: 'viewer' });
    const { generatedPassword } = await admin().users.resetPassword({ username: 'frank' });
    const res = await login('frank', generatedPassword!);
    expect(res.body.result?.data).toMatchObject({ mustChangePassword: true });
  });
});

describe('API tokens expire and die with a password reset', () => {
  async function signedInAdmin() {
    return sessionOf((await login('admin', ADMIN_PASSWORD)).setCookies);
  }

  it('expires after the chosen lifetime (90 days by default), shown in the listing', async () => {
    const s = await signedInAdmin();
    const made = await http('tokens.create', { ...s, body: { name: 'ci', scope: 'viewer' } });
    const { token, summary } = made.body.result!.data as { token: string; summary: { expiresAt: string; createdAt: string } };
    expect(Date.parse(summary.expiresAt) - Date.parse(summary.createdAt)).toBe(90 * 86_400_000);
    const short = await http('tokens.create', { ...s, body: { name: 'short', scope: 'viewer', expiresInDays: 1 } });
    const shortToken = (short.body.result!.data as { token: string }).token;
    const bearer = (t: string, at: Date) =>
      resolveRequestActor(db, new Request('http://fleet.test/api/trpc/fleet.status', { headers: { authorization: `Bearer ${t}` } }), at);
    expect((await bearer(shortToken, new Date(clock.getTime() + 86_400_000 - 1000))).actor).not.toBeNull();
    expect((await bearer(shortToken, new Date(clock.getTime() + 86_400_000 + 1000))).actor).toBeNull();
    expect((await bearer(token, new Date(clock.getTime() + 89 * 86_400_000))).actor).not.toBeNull();
    expect((await bearer(token, new Date(clock.getTime() + 91 * 86_400_000))).actor).toBeNull();
    await expect(admin().tokens.create({ name: 'forever', scope: 'viewer', expiresInDays: 10_000 })).rejects.toMatchObject({
      code: 'BAD_REQUEST',
    });
  });

  it("revokes a user's tokens and ends their sessions when the password is reset", async () => {
    await admin().users.create({ username: 'gina', password: 'ginas own password', role: 'operator' });
    const s = sessionOf((await login('gina', 'ginas own password')).setCookies);
    const made = await http('tokens.create', { ...s, body: { name: 'ci', scope: 'viewer' } });
    const { token } = made.body.result!.data as { token: string };
    await admin().users.resetPassword({ username: 'gina' });
    expect(db.select().from(apiTokens).get()!.revokedAt).not.toBeNull();
    expect(
      db
        .select()
        .from(sessions)
        .all()
        .filter((r) => r.userId !== 1),
    ).toHaveLength(0);
    const req = new Request('http://fleet.test/api/trpc/fleet.status', { headers: { authorization: `Bearer ${token}` } });
    expect((await resolveRequestActor(db, req)).actor).toBeNull();
  });
});
