// The app runs its scheduler in a worker thread (server/background): the worker built as
// `npm run build` builds it, on its own connection to the server's database file. "Run now" is
// sent there and answered with the tick's outcome, the status the Scheduler page shows comes
// back from it, stopping releases the lease, and a worker that dies is started again.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '@/db/open-database';
import { startSchedulerThread, type SchedulerThread } from '@/server/background/scheduler-thread';
import { getLease, listRecentTicks, SCHEDULER_LEASE_NAME } from '@/server/repositories/scheduler-repository';
import { seedDemo } from '@/server/services/demo-seed-service';
import { bundleSchedulerWorker } from '../../scripts/build-worker.mjs';
import { waitFor } from '@/tests/support/wait-for';

const root = process.cwd();
// inside the checkout: the bundle loads better-sqlite3 from node_modules beside it
const workDir = path.join(root, 'test-results', `scheduler-thread-${process.pid}`);
const workerFile = path.join(workDir, 'bundle', 'scheduler-worker.mjs');
const SETTINGS = ['DATABASE_URL', 'FLEETPLAN_SCHEDULER', 'FLEETPLAN_TICK_SECONDS'];
const savedEnv = Object.fromEntries(SETTINGS.map((k) => [k, process.env[k]]));
const threads: SchedulerThread[] = [];

beforeAll(async () => {
  await bundleSchedulerWorker(root, workerFile);
}, 60_000);
afterEach(async () => {
  for (const t of threads.splice(0)) await t.stop(2_000);
  for (const [key, value] of Object.entries(savedEnv)) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
});
afterAll(() => fs.rmSync(workDir, { recursive: true, force: true }));

async function seededDatabaseFile(name: string): Promise<string> {
  const file = path.join(workDir, `${name}.db`);
  const db = openDatabase(file);
  await seedDemo(db, new Date());
  db.$client.close();
  return file;
}

describe('the scheduler thread', () => {
  it('runs "run now" ticks on its own connection, reports its status, and releases the lease when stopped', async () => {
    const file = await seededDatabaseFile('run-now');
    // the worker reads the settings as the server does: this database, the loop off (ticks on request only)
    process.env.DATABASE_URL = file;
    process.env.FLEETPLAN_SCHEDULER = 'off';
    const thread = startSchedulerThread({ file: workerFile, intervalSeconds: 60 });
    threads.push(thread);
    const db = openDatabase(file);
    try {
      const outcome = await thread.runTick(db, { dryRun: false });
      expect(outcome).toMatchObject({ status: 'succeeded' });
      if (outcome.status !== 'succeeded') throw new Error('unreachable');
      expect(outcome.summary.decisionsRecorded).toBeGreaterThan(0);

      const [tick] = await listRecentTicks(db, 1);
      expect(tick).toMatchObject({ id: outcome.tickId, status: 'succeeded', dryRun: false, holder: `${os.hostname()}:${process.pid}` });
      const status = await waitFor(
        () => {
          const s = thread.runtimeStatus();
          return s.lastResult?.status === 'succeeded' ? s : undefined;
        },
        10_000,
        'the status after the tick',
      );
      expect(status).toMatchObject({ started: false, running: false, intervalSeconds: 60, holder: `${os.hostname()}:${process.pid}` });
      expect((await getLease(db, SCHEDULER_LEASE_NAME))?.holder).toBe(`${os.hostname()}:${process.pid}`);

      await thread.stop(2_000);
      // released: the row stays (its fencing token must keep rising), expired
      expect((await getLease(db, SCHEDULER_LEASE_NAME))?.expiresAt.getTime()).toBeLessThanOrEqual(Date.now());
      await expect(thread.runTick(db, { dryRun: true })).resolves.toMatchObject({
        status: 'skipped',
        reason: 'the server is shutting down',
      });
    } finally {
      db.$client.close();
    }
  });

  it('ticks on its own when the scheduler is on', async () => {
    const file = await seededDatabaseFile('loop');
    process.env.DATABASE_URL = file;
    process.env.FLEETPLAN_SCHEDULER = 'on';
    process.env.FLEETPLAN_TICK_SECONDS = '60';
    const thread = startSchedulerThread({ file: workerFile, intervalSeconds: 60 });
    threads.push(thread);
    // the worker starts, opens the database, waits 2 s and ticks the demo fleet: on a loaded machine that can take over 10 s
    const status = await waitFor(
      () => {
        const s = thread.runtimeStatus();
        return s.lastResult ? s : undefined;
      },
      20_000,
      'the first tick (2 s after start)',
    );
    expect(status.started).toBe(true);
    expect(status.lastResult).toMatchObject({ status: 'succeeded' });
    const db = openDatabase(file);
    try {
      expect((await listRecentTicks(db, 5)).map((t) => t.status)).toEqual(['succeeded']);
    } finally {
      db.$client.close();
    }
  });

  it('answers the ticks a dead worker had in hand, and starts it again', async () => {
    // a worker that dies on its first "run now" and answers the next one
    const dying = path.join(workDir, 'dying-worker.mjs');
    const marker = path.join(workDir, 'died-once');
    fs.writeFileSync(
      dying,
      `import fs from 'node:fs';
import { parentPort } from 'node:worker_threads';
parentPort.on('message', (m) => {
  if (m.kind !== 'runTick') return;
  if (!fs.existsSync(${JSON.stringify(marker)})) { fs.writeFileSync(${JSON.stringify(marker)}, ''); process.exit(3); }
  parentPort.postMessage({ kind: 'tickDone', id: m.id, outcome: { status: 'skipped', reason: 'second life' } });
});
parentPort.postMessage({ kind: 'status', status: { started: true, running: false, intervalSeconds: 60, holder: 'h', nextTickAt: null, lastResult: null, deliveriesInFlight: 0 } });
`,
    );
    const lines: string[] = [];
    const thread = startSchedulerThread({ file: dying, intervalSeconds: 60, restartAfterMs: 50, log: (l) => lines.push(l) });
    threads.push(thread);
    const db = openDatabase(':memory:');
    await expect(thread.runTick(db, { dryRun: false })).resolves.toEqual({
      status: 'skipped',
      reason: 'the scheduler thread stopped (exit code 3)',
    });
    expect(thread.runtimeStatus().started).toBe(false);
    expect(lines.join('\n')).toMatch(/exited \(code 3\); starting it again/);
    await waitFor(() => (thread.runtimeStatus().started ? true : undefined), 10_000, 'the restarted worker');
    await expect(thread.runTick(db, { dryRun: false })).resolves.toEqual({ status: 'skipped', reason: 'second life' });
  });

  it('gives up a "run now" the worker never answers, and waits longer each time a worker keeps dying', async () => {
    const silent = path.join(workDir, 'silent-worker.mjs');
    fs.writeFileSync(silent, "import { parentPort } from 'node:worker_threads';\nparentPort.on('message', () => {});\n");
    const quiet = startSchedulerThread({ file: silent, intervalSeconds: 60, runNowTimeoutMs: 100, log: () => undefined });
    threads.push(quiet);
    await expect(quiet.runTick(openDatabase(':memory:'), { dryRun: false })).resolves.toEqual({
      status: 'skipped',
      reason: 'the scheduler thread did not answer within 0s',
    });

    const crashing = path.join(workDir, 'crashing-worker.mjs');
    fs.writeFileSync(crashing, 'process.exit(4);\n');
    const lines: string[] = [];
    const dying = startSchedulerThread({ file: crashing, intervalSeconds: 60, restartAfterMs: 20, log: (l) => lines.push(l) });
    threads.push(dying);
    await waitFor(() => (lines.length >= 3 ? true : undefined), 10_000, 'three restarts');
    expect(lines.slice(0, 3).map((l) => l.replace(/.*starting it again in /, ''))).toEqual(['0.02s', '0.04s', '0.08s']);
  });
});
