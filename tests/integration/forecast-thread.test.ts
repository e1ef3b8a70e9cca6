// The production server computes forecasts in a worker thread of its own (server/background/
// forecast-thread.ts), built by `npm run build` and built here the same way, on its own connection
// to the server's database file. What it answers must be what the in-thread service answers; an
// expected error keeps its code; it warms the Forecast page's default forecast right after start;
// a worker that dies fails the requests it had in hand and is started again.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '@/db/open-database';
import { startForecastThread, type ForecastThread } from '@/server/background/forecast-thread';
import { PAGE_DEFAULT_FORECAST } from '@/server/background/forecast-warm-list';
import { renderFleetMetrics, renderFleetMetricsOffThread, useMetricsOffload } from '@/server/metrics/collect-fleet-metrics';
import { findFirstOrganization } from '@/server/repositories/organization-repository';
import { AppError } from '@/server/services/app-error';
import { createForecastService } from '@/server/services/forecast-service';
import { createPolicyService } from '@/server/services/policies/policy-service';
import { fixedOrganizationScope } from '@/server/services/organization-scope';
import { seedDemo } from '@/server/services/demo-seed-service';
import { bundleForecastWorker, bundleSchedulerWorker } from '../../scripts/build-worker.mjs';

const root = process.cwd();
// inside the checkout: the bundle loads better-sqlite3 from node_modules beside it
const workDir = path.join(root, 'test-results', `forecast-thread-${process.pid}`);
const workerFile = path.join(workDir, 'bundle', 'forecast-worker.mjs');
const savedDatabaseUrl = process.env.DATABASE_URL;
const threads: ForecastThread[] = [];
const AT = Date.parse('2026-03-02T10:00:00Z');

beforeAll(async () => {
  // the scheduler's bundle first: it clears the folder the two share
  await bundleSchedulerWorker(root, path.join(workDir, 'bundle', 'scheduler-worker.mjs'));
  await bundleForecastWorker(root, workerFile);
}, 90_000);
afterEach(async () => {
  for (const t of threads.splice(0)) await t.stop();
  if (savedDatabaseUrl === undefined) delete process.env.DATABASE_URL;
  else process.env.DATABASE_URL = savedDatabaseUrl;
});
afterAll(() => fs.rmSync(workDir, { recursive: true, force: true }));

async function seededDatabaseFile(name: string): Promise<{ file: string; organizationId: number }> {
  const file = path.join(workDir, `${name}.db`);
  const db = openDatabase(file);
  await seedDemo(db, new Date(AT));
  const organizationId = (await findFirstOrganization(db))!.id;
  db.$client.close();
  return { file, organizationId };
}

function settingsOf(org: Awaited<ReturnType<ReturnType<typeof createPolicyService>['getOrganization']>>) {
  return {
    sectors: org.sectors.map((s) => ({ name: s.name, maxParallelUpgrades: s.maxParallelUpgrades, dependencies: s.dependencies })),
    blockedVersions: org.blockedVersions.map((b) => ({ pattern: b.pattern, reason: b.reason })),
    upgradePolicyAllowedWorkloads: org.upgradePolicyAllowedWorkloads,
    upgradePolicyAllowedMutexes: org.upgradePolicyAllowedMutexes,
  };
}

function waitFor<T>(register: (resolve: (value: T) => void) => void, what: string, ms = 60_000): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), ms);
    register((value) => {
      clearTimeout(timer);
      resolve(value);
    });
  });
}

describe('the forecast thread', () => {
  it('answers as the service in this thread does, keeps error codes, and has the default forecast warm after start', async () => {
    const { file, organizationId } = await seededDatabaseFile('same');
    process.env.DATABASE_URL = file;
    let warmed: (n: number) => void = () => undefined;
    const firstWalk = waitFor<number>((resolve) => (warmed = resolve), 'the first warm walk');
    const thread = startForecastThread({ file: workerFile, onWarmed: (n) => warmed(n) });
    threads.push(thread);
    expect(await firstWalk).toBe(1);

    const db = openDatabase(file);
    try {
      const here = createForecastService(db, () => new Date(AT), fixedOrganizationScope(db, organizationId));
      const input = { horizonDays: 30, upgradeMinutes: 60, offset: 10, limit: 20, search: 'prod' };
      const expected = await here.run(input);
      const answered = await thread.run(organizationId, input, AT);
      const strip = ({ elapsedMs: _e, phasesMs: _p, cached: _c, ...rest }: typeof expected) => rest;
      expect(strip(answered)).toEqual(strip(expected));
      expect(answered.rows.length).toBeGreaterThan(0);
      expect(answered.cached).toBe(false);
      // a second page of the same simulation is read from the thread's kept result
      await expect(thread.run(organizationId, { ...input, offset: 0 }, AT)).resolves.toMatchObject({ cached: true });

      // the page's default forecast was computed before anyone asked (at the fleet's own time: the real clock here)
      const page = await thread.run(organizationId, PAGE_DEFAULT_FORECAST, Date.now());
      expect(page.cached).toBe(true);
      expect(page.total).toBeGreaterThan(0);

      const invalid = await thread.run(organizationId, { ...input, targetVersion: 'four' }, AT).catch((e: unknown) => e);
      expect(invalid).toBeInstanceOf(AppError);
      expect(invalid).toMatchObject({ code: 'INVALID_INPUT', problems: [{ path: 'targetVersion', message: 'not a semantic version' }] });
      await expect(thread.run(organizationId + 99, input, AT)).rejects.toMatchObject({ code: 'NOT_FOUND' });

      // the policy editor's forecast impact: a draft that blocks the fleet's target, compared there as here
      const policies = createPolicyService(
        db,
        () => new Date(AT),
        () => new Date(),
        fixedOrganizationScope(db, organizationId),
      );
      const none = await policies.previewForecastImpact({});
      const target = none.diff!.targetVersion!;
      const settings = await policies.getOrganization();
      const draft = {
        organization: {
          ...settingsOf(settings),
          blockedVersions: [
            ...settingsOf(settings).blockedVersions,
            { pattern: `^${target.replaceAll('.', '\\.')}$`, reason: 'regression' },
          ],
        },
      };
      const impactHere = await policies.previewForecastImpact(draft);
      expect(impactHere.ok && impactHere.diff.counts['no-longer']).toBeGreaterThan(0);
      await expect(thread.impact(organizationId, draft, AT)).resolves.toEqual(impactHere);
      await expect(thread.impact(organizationId, { clusters: [{ name: 'no-such-cluster', policy: null }] }, AT)).resolves.toMatchObject({
        ok: false,
        diff: null,
      });
    } finally {
      db.$client.close();
    }
  }, 120_000);

  it('answers a request after a fleet change with the last forecast, marked stale, until the new one is computed; runs at a lower priority', async () => {
    const { file, organizationId } = await seededDatabaseFile('stale');
    process.env.DATABASE_URL = file;
    const thread = startForecastThread({ file: workerFile });
    threads.push(thread);
    const input = { horizonDays: 30, upgradeMinutes: 60, offset: 0, limit: 20 };
    const first = await thread.run(organizationId, input, AT);
    expect(first.stale).toBe(false);
    const moved = first.rows[0]!;

    // Linux keeps nice values per thread: the forecast thread's is raised, this thread's is not
    const niceOf = (task: string) => {
      const stat = fs.readFileSync(`/proc/self/task/${task}/stat`, 'utf8');
      return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
    };
    const nices = fs.readdirSync('/proc/self/task').map(niceOf);
    expect(nices).toContain(10);
    expect(niceOf(String(process.pid))).toBe(0);

    const db = openDatabase(file);
    try {
      db.$client
        .prepare('UPDATE clusters SET version = ? WHERE name = ? AND organization_id = ?')
        .run('4.99.0', moved.cluster, organizationId);
    } finally {
      db.$client.close();
    }
    const later = AT + 10 * 60_000;
    const meanwhile = await thread.run(organizationId, input, later);
    expect(meanwhile).toMatchObject({ stale: true, cached: true, from: first.from });
    expect(meanwhile.rows.find((r) => r.cluster === moved.cluster)!.startVersion).toBe(moved.startVersion);

    const deadline = Date.now() + 60_000;
    let answer = meanwhile;
    while (answer.stale && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      answer = await thread.run(organizationId, input, later);
    }
    expect(answer.stale).toBe(false);
    expect(answer.from).not.toBe(first.from);
    expect(answer.rows.find((r) => r.cluster === moved.cluster)!.startVersion).toBe('4.99.0');
  }, 120_000);

  it('renders the metrics scrape as this thread would; a thread that cannot answer is replaced by rendering here', async () => {
    const { file } = await seededDatabaseFile('metrics');
    process.env.DATABASE_URL = file;
    const thread = startForecastThread({ file: workerFile });
    threads.push(thread);
    const db = openDatabase(file);
    try {
      const opts = { providerName: 'simulator' };
      const here = await renderFleetMetrics(db, new Date(AT), opts);
      expect(here).toMatch(/^aus_cluster_version_remaining_soak_days\{/m);
      await expect(thread.renderMetrics(AT, opts)).resolves.toBe(here);

      useMetricsOffload(thread);
      const fallbacks: string[] = [];
      await expect(renderFleetMetricsOffThread(db, new Date(AT), opts, (e) => fallbacks.push(e.message))).resolves.toBe(here);
      expect(fallbacks).toEqual([]);
      await thread.stop();
      await expect(renderFleetMetricsOffThread(db, new Date(AT), opts, (e) => fallbacks.push(e.message))).resolves.toBe(here);
      expect(fallbacks).toEqual(['the server is shutting down']);
    } finally {
      useMetricsOffload(undefined);
      db.$client.close();
    }
  }, 120_000);

  it('fails the forecasts a dead worker had in hand, and starts it again', async () => {
    const dying = path.join(workDir, 'dying-worker.mjs');
    const marker = path.join(workDir, 'died-once');
    fs.writeFileSync(
      dying,
      `import fs from 'node:fs';
import { parentPort } from 'node:worker_threads';
parentPort.on('message', (m) => {
  if (m.kind !== 'run') return;
  if (!fs.existsSync(${JSON.stringify(marker)})) { fs.writeFileSync(${JSON.stringify(marker)}, ''); process.exit(3); }
  parentPort.postMessage({ kind: 'done', id: m.id, output: { second: 'life' } });
});
`,
    );
    const lines: string[] = [];
    const thread = startForecastThread({ file: dying, restartAfterMs: 50, log: (l) => lines.push(l) });
    threads.push(thread);
    await expect(thread.run(1, PAGE_DEFAULT_FORECAST, AT)).rejects.toThrow('the forecast thread stopped (exit code 3)');
    expect(lines.join('\n')).toMatch(/exited \(code 3\); starting it again/);
    const deadline = Date.now() + 10_000;
    let answer: unknown;
    while (Date.now() < deadline) {
      answer = await thread.run(1, PAGE_DEFAULT_FORECAST, AT).catch((e: Error) => e.message);
      if (typeof answer !== 'string') break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(answer).toEqual({ second: 'life' });
  });

  it('gives up a forecast the worker never answers', async () => {
    const silent = path.join(workDir, 'silent-worker.mjs');
    fs.writeFileSync(silent, "import { parentPort } from 'node:worker_threads';\nparentPort.on('message', () => {});\n");
    const thread = startForecastThread({ file: silent, answerTimeoutMs: 100, log: () => undefined });
    threads.push(thread);
    await expect(thread.run(1, PAGE_DEFAULT_FORECAST, AT)).rejects.toThrow('the forecast thread did not answer within 0s');
  });
});
