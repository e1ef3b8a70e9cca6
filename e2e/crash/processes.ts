// Process plumbing for the crash tests of the real server: free ports, the fake provider API as
// its own process (tests/fakes/serve.ts), `npm start` in its own process group (so SIGKILL reaches
// start.mjs and the serve.mjs it spawned), a webhook receiver, and looks at the database (a SQLite
// file, or PostgreSQL through `pg`).
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import Database from 'better-sqlite3';
import { Pool } from 'pg';

/** The test's environment without the developer's FLEETPLAN_* settings and DATABASE_URL: none of them leak into a server. */
export function cleanEnv(): Record<string, string | undefined> {
  return Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('FLEETPLAN_') && k !== 'DATABASE_URL'));
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A small seeded generator (the seed is printed, so a failing run can be replayed). */
export function seededRandom(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 4294967296;
  };
}

function waitForLine(child: ChildProcess, pattern: RegExp, what: string, timeoutMs: number): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`${what}: no line matching ${pattern} within ${timeoutMs} ms:\n${out}`)), timeoutMs);
    const onData = (d: Buffer) => {
      out += d.toString();
      const m = pattern.exec(out);
      if (m) {
        clearTimeout(timer);
        child.stdout?.off('data', onData);
        resolve(m);
      }
    };
    child.stdout?.on('data', onData);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${what} exited (${code ?? signal}) before printing ${pattern}:\n${out}`));
    });
  });
}

export interface FakeProcess {
  child: ChildProcess;
  url: string;
  get<T>(route: string): Promise<T>;
  post<T>(route: string, body?: unknown): Promise<T>;
  stop(): Promise<void>;
}

/** tests/fakes/serve.ts as its own process (node with tsx as a loader: SIGTERM reaches the fake itself). */
export async function startFake(kind: 'ocm' | 'openshift', fleetFile: string, logFile: string): Promise<FakeProcess> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', path.join('tests', 'fakes', 'serve.ts'), kind, '--port', '0', '--fleet', fleetFile],
    {
      cwd: process.cwd(),
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const log = fs.createWriteStream(logFile);
  child.stdout.pipe(log);
  child.stderr.pipe(log);
  const [, url] = await waitForLine(child, /listening (http:\/\/127\.0\.0\.1:\d+)/, `fake ${kind}`, 30_000);
  const call = async <T>(method: string, route: string, body?: unknown): Promise<T> => {
    const res = await fetch(`${url}${route}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`fake ${method} ${route}: ${res.status} ${text}`);
    return (text ? JSON.parse(text) : null) as T;
  };
  return {
    child,
    url: url!,
    get: (route) => call('GET', route),
    post: (route, body) => call('POST', route, body ?? {}),
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

export interface ServerProcess {
  /** the process group id (= the pid of `npm start`) */
  pgid: number;
  port: number;
  /** resolves when the server serves */
  ready: Promise<void>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGKILL (or SIGTERM) the whole process group */
  kill(signal?: NodeJS.Signals): void;
  alive(): boolean;
  /** resolves once no process of the group is left (after a SIGTERM: a graceful stop); throws after `timeoutMs` */
  gone(timeoutMs: number): Promise<void>;
  /** resolves once the server has printed a line matching `pattern` (since it started); throws after `timeoutMs` */
  printed(pattern: RegExp, timeoutMs: number): Promise<void>;
}

/**
 * `npm start` (scripts/start.mjs → scripts/serve.mjs) in its own process group, so a SIGKILL to
 * the group takes down every process of the server at once, as a crash or an OOM kill of the
 * container would.
 */
export function startServer(env: NodeJS.ProcessEnv, port: number, logFile: string): ServerProcess {
  const child = spawn('npm', ['start', '--silent'], {
    cwd: process.cwd(),
    env: { ...env, PORT: String(port) },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const log = fs.createWriteStream(logFile, { flags: 'a' });
  child.stdout.pipe(log);
  child.stderr.pipe(log);
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  const pgid = child.pid!;
  let done = false;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => {
      done = true;
      resolve({ code, signal });
    }),
  );
  const ready = waitForLine(child, /fleetplan: serving on port/, `npm start on port ${port}`, 60_000).then(() => undefined);
  ready.catch(() => undefined); // a server killed before it served is fine; callers await it when they need it
  return {
    pgid,
    port,
    ready,
    exited,
    kill(signal = 'SIGKILL') {
      try {
        process.kill(-pgid, signal);
      } catch {
        // the group is gone already
      }
    },
    alive: () => !done,
    gone: (timeoutMs) =>
      waitUntil(
        `process group ${pgid} to exit`,
        () => {
          try {
            process.kill(-pgid, 0);
            return false;
          } catch {
            return true;
          }
        },
        timeoutMs,
        100,
      ),
    printed: (pattern, timeoutMs) => waitUntil(`npm start on port ${port} to print ${pattern}`, () => pattern.test(output), timeoutMs, 50),
  };
}

export interface Receipt {
  delivery: string;
  event: string;
  lifecycleId: number | null;
  state: string | null;
  phase: string;
}

/** A local webhook receiver: answers 204 and remembers every delivery it got, tagged with the test's phase. */
export async function startReceiver(): Promise<{ url: string; receipts: Receipt[]; setPhase(p: string): void; close(): Promise<void> }> {
  const receipts: Receipt[] = [];
  let phase = 'setup';
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
          event: string;
          data?: { lifecycleId?: number; state?: string };
        };
        receipts.push({
          delivery: String(req.headers['x-fleetplan-delivery'] ?? ''),
          event: body.event,
          lifecycleId: body.data?.lifecycleId ?? null,
          state: body.data?.state ?? null,
          phase,
        });
      } catch {
        receipts.push({
          delivery: String(req.headers['x-fleetplan-delivery'] ?? ''),
          event: 'unreadable',
          lifecycleId: null,
          state: null,
          phase,
        });
      }
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    receipts,
    setPhase: (p) => void (phase = p),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** One read-only query on the server's database (WAL: readers never block the server). */
export function query<T>(dbFile: string, sql: string, ...params: unknown[]): T[] {
  if (!fs.existsSync(dbFile)) return [];
  const db = new Database(dbFile, { readonly: true, fileMustExist: true });
  try {
    db.pragma('busy_timeout = 5000');
    return db.prepare(sql).all(...params) as T[];
  } finally {
    db.close();
  }
}

export function execute(dbFile: string, sql: string, ...params: unknown[]): void {
  const db = new Database(dbFile, { fileMustExist: true });
  try {
    db.pragma('busy_timeout = 5000');
    db.prepare(sql).run(...params);
  } finally {
    db.close();
  }
}

/** Queries on a PostgreSQL database the servers share (a small pool: the test polls it while the servers run). */
export interface PostgresLook {
  query<T>(sql: string, ...params: unknown[]): Promise<T[]>;
  execute(sql: string, ...params: unknown[]): Promise<void>;
  close(): Promise<void>;
}

export function lookAtPostgres(url: string): PostgresLook {
  const pool = new Pool({ connectionString: url, max: 2 });
  // a server killed mid-query must not take the test down with an idle client's error
  pool.on('error', () => undefined);
  return {
    query: async <T>(sql: string, ...params: unknown[]) => (await pool.query(sql, params)).rows as T[],
    execute: async (sql, ...params) => void (await pool.query(sql, params)),
    close: () => pool.end(),
  };
}

/** The process group of a running process (the fifth field of /proc/PID/stat), or null once it is gone. */
export function processGroupOf(pid: number): number | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // the command name in parentheses may hold spaces: the fields after it are counted from its end
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[2]);
  } catch {
    return null;
  }
}

/** Runs the built CLI (`npx --no fleetplan ...` without npx's start-up cost). */
export function runCli(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['bin/fleetplan.mjs', ...args], { cwd: process.cwd(), env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.once('exit', (code) => resolve({ code, out }));
  });
}

export async function waitUntil(what: string, check: () => boolean | Promise<boolean>, timeoutMs: number, everyMs = 200): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (await check()) return;
    await sleep(everyMs);
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}

/** A fake OCM as its own process and `npm start` pointed at it, on an empty database in `dir`. */
export interface OcmFleetplan {
  fake: FakeProcess;
  server: ServerProcess;
  dbFile: string;
  base: string;
  /** SIGTERM to the server, then the fake stopped */
  stop(): Promise<void>;
}

/**
 * The first start of a real installation against OCM: the fake serves `fleet` (clusters, version
 * gates; see tests/fakes/serve.ts), the server runs with the OCM provider, no demo, a scheduler
 * tick every 2 s and the given admin password.
 */
export async function startOcmFleetplan(dir: string, fleet: unknown, adminPassword: string): Promise<OcmFleetplan> {
  const dbFile = path.join(dir, 'fleet.db');
  const fleetFile = path.join(dir, 'fleet.json');
  fs.writeFileSync(fleetFile, JSON.stringify(fleet));
  const fake = await startFake('ocm', fleetFile, path.join(dir, 'fake.log'));
  const port = await freePort();
  const server = startServer(
    {
      NODE_ENV: 'production',
      ...cleanEnv(),
      DATABASE_URL: dbFile,
      FLEETPLAN_PROVIDER: 'ocm',
      FLEETPLAN_OCM_URL: fake.url,
      FLEETPLAN_OCM_TOKEN: 'fake-ocm-token',
      FLEETPLAN_TICK_SECONDS: '2',
      FLEETPLAN_SEED_DEMO: '0',
      FLEETPLAN_SCHEDULER: 'on',
      FLEETPLAN_ADMIN_PASSWORD: adminPassword,
      NEXT_TELEMETRY_DISABLED: '1',
    },
    port,
    path.join(dir, 'server.log'),
  );
  const stop = async () => {
    server.kill('SIGTERM');
    await server.exited;
    await fake.stop();
  };
  try {
    await server.ready;
  } catch (err) {
    await stop();
    throw err;
  }
  return { fake, server, dbFile, base: `http://127.0.0.1:${port}`, stop };
}
