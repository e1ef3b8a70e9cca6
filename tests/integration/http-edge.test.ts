// The HTTP edge through the real route handlers, with real Request streams: body limits counted
// on the bytes read (chunked bodies too) before anything is parsed, the graph upload checking who
// asks before reading, internal errors masked with a logged reference, and the API headers.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { openDatabase, type Db } from '@/db/open-database';
import { bootstrapAuth, ensureAuthBootstrap } from '@/server/auth/bootstrap';
import { parseEnv } from '@/server/env';
import { processHolder } from '@/server/process-holder';
import { acquireLease, SCHEDULER_LEASE_NAME } from '@/server/repositories/scheduler-repository';
import { createServices } from '@/server/services/create-services';
import { COUNTING_CHUNK_BYTES, countingStream } from '@/server/http/testing/counting-stream';

vi.mock('server-only', () => ({}));

const { POST: trpcPost, GET: trpcGet } = await import('@/app/api/trpc/[trpc]/route');
const { POST: uploadPost } = await import('@/app/paths/upload/route');
const { GET: healthGet } = await import('@/app/api/healthz/route');
const { GET: readyGet } = await import('@/app/api/readyz/route');

const ADMIN_PASSWORD = 'correct horse battery';
const MB = 1024 * 1024;
const globalForDb = globalThis as unknown as { __fleetplanDb?: Db };
let db: Db;

beforeEach(async () => {
  vi.stubEnv('FLEETPLAN_HSTS', '');
  db = openDatabase(':memory:');
  await bootstrapAuth(db, { env: parseEnv({ FLEETPLAN_ADMIN_PASSWORD: ADMIN_PASSWORD }), log: () => {} });
  await ensureAuthBootstrap(db); // what the routes run first: done now, while every table is there
  globalForDb.__fleetplanDb = db;
});

afterEach(() => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
});

async function tokenFor(scope: 'viewer' | 'operator'): Promise<string> {
  const services = createServices({ db, fleetNow: () => new Date(), realNow: () => new Date(), env: parseEnv({}) });
  return (
    await services.tokens.create({ name: `edge-${scope}`, scope, actor: { name: 'admin', role: 'admin', via: 'session', userId: 1 } })
  ).token;
}

function request(path: string, init: { body?: ReadableStream<Uint8Array> | string; headers?: Record<string, string> } = {}) {
  return new Request(`http://fleet.test${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', host: 'fleet.test', ...init.headers },
    body: init.body,
    duplex: 'half',
  } as RequestInit);
}

describe('/api/trpc body limit (2 MB, counted on the bytes read)', () => {
  it('refuses a chunked body over the limit with 413 and stops reading it (the anonymous auth.login case)', async () => {
    const { stream, stats } = countingStream(64 * MB);
    const res = await trpcPost(request('/api/trpc/auth.login', { body: stream }));
    expect(res.status).toBe(413);
    const body = (await res.json()) as { error: { message: string; data: { code: string } } };
    expect(body.error.data.code).toBe('PAYLOAD_TOO_LARGE');
    expect(body.error.message).toMatch(/over the 2 MB limit/);
    expect(stats.cancelled).toBe(true);
    expect(stats.pulled).toBeLessThanOrEqual(2 * MB + COUNTING_CHUNK_BYTES);
  });

  it('refuses a declared content-length over the limit before reading anything', async () => {
    const { stream, stats } = countingStream(3 * MB);
    const res = await trpcPost(request('/api/trpc/auth.login', { body: stream, headers: { 'content-length': String(3 * MB) } }));
    expect(res.status).toBe(413);
    expect(stats.pulled).toBe(0);
  });

  it('hands tRPC the buffered body: a chunked login under the limit signs in', async () => {
    const json = new TextEncoder().encode(JSON.stringify({ username: 'admin', password: ADMIN_PASSWORD }));
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(json.slice(0, 10));
        controller.enqueue(json.slice(10));
        controller.close();
      },
    });
    const res = await trpcPost(request('/api/trpc/auth.login', { body: stream, headers: { origin: 'http://fleet.test' } }));
    expect(res.status).toBe(200);
    expect(res.headers.getSetCookie().some((c) => c.startsWith('fleetplan_session='))).toBe(true);
  });
});

describe('internal errors reach clients only as a reference', () => {
  it('a SQLite error in a procedure answers 500 with a generic message; the log has the real error under the same reference', async () => {
    const logged: unknown[][] = [];
    vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => void logged.push(args));
    db.$client.exec('drop table settings'); // auth.loginOptions reads the demo sign-in switch there
    const res = await trpcGet(new Request('http://fleet.test/api/trpc/auth.loginOptions', { headers: { host: 'fleet.test' } }));
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(text).not.toMatch(/settings|sqlite|no such table|\.ts:|at /i);
    const body = JSON.parse(text) as { error: { message: string; data: { code: string; reference: string; stack?: unknown } } };
    expect(body.error.data.code).toBe('INTERNAL_SERVER_ERROR');
    expect(body.error.message).toBe(`Internal server error (reference ${body.error.data.reference})`);
    expect(body.error.data.reference).toMatch(/^[0-9a-f-]{36}$/);
    expect(body.error.data.stack).toBeUndefined();
    const entry = logged.find((args) => String(args[0]).includes(body.error.data.reference));
    expect(String(entry?.[0])).toContain('auth.loginOptions');
    expect(String(entry?.[1])).toMatch(/no such table: settings/);
  });

  it('deliberate errors keep their clear message (wrong password: UNAUTHORIZED; bad input: BAD_REQUEST with the field)', async () => {
    const wrong = await trpcPost(
      request('/api/trpc/auth.login', {
        body: JSON.stringify({ username: 'admin', password: 'nope-nope' }),
        headers: { origin: 'http://fleet.test' },
      }),
    );
    const wrongBody = (await wrong.json()) as { error: { message: string; data: { code: string; reference: string | null } } };
    expect(wrongBody.error.data.code).toBe('UNAUTHORIZED');
    expect(wrongBody.error.message).not.toMatch(/Internal server error/);
    expect(wrongBody.error.data.reference).toBeNull();
    const bad = await trpcPost(request('/api/trpc/auth.login', { body: JSON.stringify({ username: '' }) }));
    const badBody = (await bad.json()) as { error: { data: { code: string; zodError: { path: string }[] } } };
    expect(bad.status).toBe(400);
    expect(badBody.error.data.zodError.map((i) => i.path)).toContain('password');
  });
});

describe('/api/trpc nesting limit', () => {
  it('refuses an anonymous body nested 1,000,000 deep with 400 before JSON.parse', async () => {
    const body = `{"0":{"json":${'['.repeat(1_000_000)}${']'.repeat(1_000_000)}}}`;
    const res = await trpcPost(request('/api/trpc/auth.login?batch=1', { body }));
    expect(res.status).toBe(400);
    const answer = (await res.json()) as { error: { message: string; data: { code: string } } };
    expect(answer.error).toMatchObject({ message: 'The request body nests deeper than 100 levels', data: { code: 'BAD_REQUEST' } });
  });
});

describe('/paths/upload', () => {
  const graph = (padding: number, fileName = 'padded-graph.json') =>
    JSON.stringify({
      fileName,
      text: `{"version":1,"nodes":[{"version":"4.7.1","payload":"x"},{"version":"4.7.2","payload":"y"}],"edges":[[0,1]]}${' '.repeat(padding)}`,
    });

  it('refuses an anonymous caller before reading a byte of the body', async () => {
    const { stream, stats } = countingStream(30 * MB);
    const res = await uploadPost(request('/paths/upload', { body: stream }));
    expect(res.status).toBe(401);
    expect(stats.pulled).toBe(0);
  });

  it('refuses a viewer before reading the body', async () => {
    const { stream, stats } = countingStream(30 * MB);
    const res = await uploadPost(
      request('/paths/upload', { body: stream, headers: { authorization: `Bearer ${await tokenFor('viewer')}` } }),
    );
    expect(res.status).toBe(403);
    expect(stats.pulled).toBe(0);
  });

  it('refuses a user who must change their password before reading the body, as graphs.import would', async () => {
    const login = await trpcPost(
      request('/api/trpc/auth.login', {
        body: JSON.stringify({ username: 'admin', password: ADMIN_PASSWORD }),
        headers: { origin: 'http://fleet.test' },
      }),
    );
    expect(login.status).toBe(200);
    const cookie = login.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .join('; ');
    const csrf = decodeURIComponent(/fleetplan_csrf=([^;]+)/.exec(cookie)?.[1] ?? '');
    db.$client.prepare("update users set must_change_password = 1 where username = 'admin'").run();
    const { stream, stats } = countingStream(30 * MB);
    const res = await uploadPost(
      request('/paths/upload', { body: stream, headers: { cookie, 'x-csrf-token': csrf, origin: 'http://fleet.test' } }),
    );
    expect(res.status).toBe(403);
    expect(((await res.json()) as { error: { message: string } }).error.message).toBe('Change your password first');
    expect(stats.pulled).toBe(0);
  });

  it('refuses an operator whose chunked body passes the limit with a clear 413, reading no further', async () => {
    const { stream, stats } = countingStream(200 * MB);
    const res = await uploadPost(
      request('/paths/upload', { body: stream, headers: { authorization: `Bearer ${await tokenFor('operator')}` } }),
    );
    expect(res.status).toBe(413);
    expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(/over the 20 MB limit for a graph document/);
    expect(stats.cancelled).toBe(true);
    expect(stats.pulled).toBeLessThan(26 * MB);
  });

  it('takes a 20 MB graph document and refuses a 21 MB one with 413 naming the limit', async () => {
    const operator = { authorization: `Bearer ${await tokenFor('operator')}` };
    const base = graph(0).length - '{"fileName":"padded-graph.json","text":""}'.length;
    const ok = await uploadPost(request('/paths/upload', { body: graph(20 * MB - base), headers: operator }));
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { graph: { nodeCount: number } }).graph.nodeCount).toBe(2);
    const tooBig = await uploadPost(request('/paths/upload', { body: graph(21 * MB - base), headers: operator }));
    expect(tooBig.status).toBe(413);
    expect(((await tooBig.json()) as { error: { message: string } }).error.message).toBe(
      'The upload is over the 20 MB limit for a graph document: this one is 21 MB',
    );
  });

  it('refuses a body nested 100,000 deep with 400 before JSON.parse, writing nothing', async () => {
    const operator = { authorization: `Bearer ${await tokenFor('operator')}` };
    const deep = `${graph(0).slice(0, -1)},"extra":${'['.repeat(100_000)}${']'.repeat(100_000)}}`;
    const res = await uploadPost(request('/paths/upload', { body: deep, headers: operator }));
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { message: string } }).error.message).toBe('Expected a JSON body {fileName, text, ...}');
    expect(db.$client.prepare('select count(*) as n from update_graphs').get()).toEqual({ n: 0 });
  });
});

describe('API answers carry the security headers', () => {
  it('no-store, CSP, nosniff, framing, referrer and permissions rules; HSTS only behind TLS', async () => {
    const plain = await healthGet(new Request('http://fleet.test/api/healthz'));
    expect(plain.status).toBe(200);
    expect(plain.headers.get('cache-control')).toBe('no-store');
    expect(plain.headers.get('content-security-policy')).toBe("default-src 'none'; frame-ancestors 'none'");
    expect(plain.headers.get('x-content-type-options')).toBe('nosniff');
    expect(plain.headers.get('x-frame-options')).toBe('DENY');
    expect(plain.headers.get('referrer-policy')).toBe('same-origin');
    expect(plain.headers.get('permissions-policy')).toContain('camera=()');
    expect(plain.headers.get('strict-transport-security')).toBeNull();
    const proxied = await healthGet(new Request('http://fleet.test/api/healthz', { headers: { 'x-forwarded-proto': 'https' } }));
    expect(proxied.headers.get('strict-transport-security')).toBe('max-age=31536000');
    const tls = await trpcGet(new Request('https://fleet.test/api/trpc/auth.me'));
    expect(tls.headers.get('strict-transport-security')).toBe('max-age=31536000');
    expect(tls.headers.get('cache-control')).toBe('no-store');
  });

  it('FLEETPLAN_HSTS=1 sends HSTS on plain http (TLS ends before the app), =0 never', async () => {
    vi.stubEnv('FLEETPLAN_HSTS', '1');
    expect((await healthGet(new Request('http://fleet.test/api/healthz'))).headers.get('strict-transport-security')).toBe(
      'max-age=31536000',
    );
    vi.stubEnv('FLEETPLAN_HSTS', '0');
    const off = await healthGet(new Request('https://fleet.test/api/healthz'));
    expect(off.headers.get('strict-transport-security')).toBeNull();
  });
});

describe('readiness (/api/readyz)', () => {
  it('is ready on every replica; ?role=leader answers 200 only on the one holding the scheduler lease', async () => {
    const ask = async (query = '') => {
      const res = await readyGet(new Request(`http://fleet.test/api/readyz${query}`));
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    expect(await ask()).toMatchObject({ status: 200, body: { ready: true, replica: processHolder(), leads: false, leader: null } });
    expect((await ask('?role=leader')).status).toBe(503);
    await acquireLease(db, SCHEDULER_LEASE_NAME, 'other-host:1', Date.now(), 60_000);
    expect(await ask('?role=leader')).toMatchObject({ status: 503, body: { leads: false, leader: { holder: 'other-host:1' } } });
    db = openDatabase(':memory:');
    globalForDb.__fleetplanDb = db;
    await acquireLease(db, SCHEDULER_LEASE_NAME, processHolder(), Date.now(), 60_000);
    expect(await ask('?role=leader')).toMatchObject({ status: 200, body: { ready: true, leads: true } });
  });
});
