// The served app at 10,000 clusters while the scheduler ticks: the built server (`npm start`) on
// the 10k demo fleet (`db:seed --clusters 10000`) with a tick every 10 s, and a client that asks
// for /api/healthz every 100 ms, the Fleet page's list every second and the Forecast page every 5 s
// (an operator with it open) for 60 s. The ticks run in
// the scheduler's worker thread; before they did, each one held the event loop for seconds and
// every request waited behind it. Needs `npm run build`.
// FLEETPLAN_BENCH_PORT: the port the server listens on (default: a free one the system picks), so
// that benchmarks run side by side on one machine stay apart; FLEETPLAN_BENCH_SERVER_NODE_OPTIONS:
// NODE_OPTIONS for the server only (node refuses --cpu-prof there: to profile the request thread,
// `--import` a module that starts node:inspector's Profiler in scripts/serve.mjs's main thread).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { openDatabase } from '@/db/open-database';
import { hashPassword } from '@/server/auth/password';
import { insertUser } from '@/server/repositories/user-repository';
import { listRecentTicks } from '@/server/repositories/scheduler-repository';
import { createTokenService } from '@/server/services/token-service';

const SAMPLE_MS = 60_000;
const TICK_SECONDS = 10;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}

function describe(label: string, ms: number[]): string {
  const s = [...ms].sort((a, b) => a - b);
  const f = (v: number) => `${Math.round(v)} ms`;
  return `${label.padEnd(34)} n=${String(s.length).padStart(4)}  p50 ${f(percentile(s, 50)).padStart(7)}  p95 ${f(percentile(s, 95)).padStart(7)}  p99 ${f(percentile(s, 99)).padStart(7)}  max ${f(s[s.length - 1] ?? NaN).padStart(7)}`;
}

/** failed requests (a reset connection, an error status) by URL path, counted beside the timings */
const failures = new Map<string, number>();

async function timed(url: string, headers: Record<string, string> = {}): Promise<number> {
  const t = performance.now();
  try {
    const res = await fetch(url, { headers });
    await res.arrayBuffer();
    if (!res.ok) throw new Error(`${url} answered ${res.status}`);
  } catch {
    const key = new URL(url).pathname;
    failures.set(key, (failures.get(key) ?? 0) + 1);
  }
  return performance.now() - t;
}

/** a Forecast page request: its time, and whether the server had the simulation already */
async function timedForecast(
  url: string,
  headers: Record<string, string>,
): Promise<{ ms: number; cached: boolean; stale: boolean; elapsedMs: number }> {
  const t = performance.now();
  const res = await fetch(url, { headers });
  const body = (await res.json()) as { result?: { data?: { cached: boolean; stale: boolean; elapsedMs: number } } };
  const ms = performance.now() - t;
  const data = body.result?.data;
  if (!res.ok || !data) throw new Error(`${url} answered ${res.status}: ${JSON.stringify(body).slice(0, 300)}`);
  return { ms, cached: data.cached, stale: data.stale, elapsedMs: data.elapsedMs };
}

async function waitUntilUp(base: string, server: ChildProcess): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (server.exitCode !== null) throw new Error(`the server exited (${server.exitCode})`);
    try {
      if ((await fetch(`${base}/api/healthz`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error('the server did not come up within 2 minutes');
}

export async function runServeBench(): Promise<void> {
  const root = process.cwd();
  if (!fs.existsSync(path.join(root, '.next', 'BUILD_ID'))) {
    console.log('skipped: needs the production build (`npm run build`)');
    return;
  }
  // without the worker's bundle the server ticks in its own thread (as `next dev` does): moving
  // dist/worker away measures what the worker thread saves
  const where = fs.existsSync(path.join(root, 'dist', 'worker', 'scheduler-worker.mjs')) ? 'the worker thread' : 'the server thread';
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fleetplan-serve-bench-'));
  const file = path.join(dir, 'fleet.db');
  const env = { ...process.env, DATABASE_URL: file, NEXT_TELEMETRY_DISABLED: '1' };
  const seed = spawnSync(process.execPath, ['--import', 'tsx', 'server/cli/seed-command.ts', '--reset', '--clusters', '10000'], {
    env,
    encoding: 'utf8',
  });
  if (seed.status !== 0) throw new Error(`seeding failed: ${seed.stderr}`);

  // a viewer's API token for the Fleet list (created as the Tokens page does, from a session)
  const db = openDatabase(file);
  const user = await insertUser(db, {
    username: 'bench',
    passwordHash: await hashPassword('bench-password-1'),
    role: 'viewer',
    createdAt: new Date(),
  });
  const { token } = await createTokenService({ db, realNow: () => new Date() }).create({
    name: 'bench',
    scope: 'viewer',
    actor: { name: 'bench', role: 'viewer', via: 'session', userId: user.id },
  });
  const clusters = db.$client.prepare('select count(*) n from clusters').get() as { n: number };
  db.$client.close();

  failures.clear();
  const port = process.env.FLEETPLAN_BENCH_PORT ? Number(process.env.FLEETPLAN_BENCH_PORT) : await freePort();
  const serverNodeOptions = process.env.FLEETPLAN_BENCH_SERVER_NODE_OPTIONS;
  const base = `http://127.0.0.1:${port}`;
  const server = spawn(process.execPath, ['scripts/start.mjs'], {
    env: {
      ...env,
      PORT: String(port),
      FLEETPLAN_TICK_SECONDS: String(TICK_SECONDS),
      ...(serverNodeOptions ? { NODE_OPTIONS: serverNodeOptions } : {}),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let serverLog = '';
  server.stdout?.on('data', (d: Buffer) => (serverLog += d.toString()));
  server.stderr?.on('data', (d: Buffer) => (serverLog += d.toString()));
  try {
    await waitUntilUp(base, server);
    const listInput = encodeURIComponent(JSON.stringify({ filter: {}, sort: 'name', direction: 'asc', offset: 0, limit: 50 }));
    const auth = { authorization: `Bearer ${token}` };
    // the first tick (2 s after start) and a first Fleet list warm the caches
    await timed(`${base}/api/trpc/clusters.list?input=${listInput}`, auth);
    // tick rows carry the fleet's clock (the simulator's runs fast): the window is told by id
    const before = openDatabase(file);
    const lastTickBefore = (await listRecentTicks(before, 1))[0]?.id ?? 0;
    before.$client.close();
    const forecastUrl = (input: object) => `${base}/api/trpc/forecast.run?input=${encodeURIComponent(JSON.stringify(input))}`;
    const page = { horizonDays: 90, upgradeMinutes: 90, offset: 0, limit: 50 };
    const health: number[] = [];
    const fleet: number[] = [];
    const forecastVisits: Awaited<ReturnType<typeof timedForecast>>[] = [];
    const until = Date.now() + SAMPLE_MS;
    await Promise.all([
      (async () => {
        while (Date.now() < until) {
          health.push(await timed(`${base}/api/healthz`));
          await new Promise((r) => setTimeout(r, 100));
        }
      })(),
      (async () => {
        while (Date.now() < until) {
          fleet.push(await timed(`${base}/api/trpc/clusters.list?input=${listInput}`, auth));
          await new Promise((r) => setTimeout(r, 1_000));
        }
      })(),
      (async () => {
        // the page's default forecast, as an operator with the Forecast page open asks for it
        while (Date.now() < until) {
          forecastVisits.push(await timedForecast(forecastUrl({ ...page, horizonDays: 60 }), auth));
          await new Promise((r) => setTimeout(r, 5_000));
        }
      })(),
    ]);
    const check = openDatabase(file);
    const ticks = (await listRecentTicks(check, 100)).filter((t) => t.id > lastTickBefore && t.status !== 'running');
    check.$client.close();
    const durations = ticks.map((t) => t.summary?.durationMs ?? 0);
    console.log(`${clusters.n} clusters, a tick every ${TICK_SECONDS} s, ${SAMPLE_MS / 1000} s of requests`);
    console.log(
      `ticks in the window: ${ticks.length} (${ticks.filter((t) => t.status === 'succeeded').length} succeeded), ` +
        `each ${durations.length ? `${Math.min(...durations)}–${Math.max(...durations)} ms` : '–'} (in ${where})`,
    );
    console.log(describe('GET /api/healthz', health));
    console.log(describe('Fleet list (clusters.list, 50 rows)', fleet));
    console.log(
      `${describe(
        'Forecast page open (every 5 s)',
        forecastVisits.map((v) => v.ms),
      )}  ` +
        `(${forecastVisits.filter((v) => v.stale).length} stale while recomputed, ${forecastVisits.filter((v) => v.cached && !v.stale).length} kept, ` +
        `${forecastVisits.filter((v) => !v.cached).length} computed on request)`,
    );
    // The Forecast page over HTTP while the scheduler keeps ticking. The server computes forecasts
    // in their own worker thread and keeps the page's default one warm: the first figure is what
    // an operator opening the page meets; the second asks for a simulation nobody asked for yet
    // (another upgrade duration), computed cold on the thread's warm JIT; then its next page.
    const first = await timedForecast(forecastUrl({ ...page, horizonDays: 60 }), auth);
    const cold = await timedForecast(forecastUrl({ ...page, upgradeMinutes: 75 }), auth);
    const next = await timedForecast(forecastUrl({ ...page, upgradeMinutes: 75, offset: 50 }), auth);
    console.log(
      `Forecast page (forecast.run): opening the page (60 days) ${Math.round(first.ms)} ms (${first.cached ? 'warmed before it was asked' : 'computed on request'}), ` +
        `a 90-day forecast nobody asked for yet ${Math.round(cold.ms)} ms (${cold.cached ? 'kept' : 'cold'}; simulation ${cold.elapsedMs} ms), its next page ${Math.round(next.ms)} ms`,
    );
    console.log(`failed requests: ${failures.size ? [...failures].map(([p, n]) => `${p} ${n}`).join(', ') : 'none'}`);
  } catch (err) {
    console.log(serverLog.split('\n').slice(-30).join('\n'));
    throw err;
  } finally {
    server.kill('SIGTERM');
    await new Promise((r) => server.once('exit', r));
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
