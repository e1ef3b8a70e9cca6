// A real provider's first start, as the README tells an operator: `npm start` on an empty
// database, the scheduler reads the fleet, `fleetplan import FILE` gives the clusters policies, and
// the next tick plans their upgrades. Before, the database started without an organization: the
// tick read nothing without one, and the import refused ("No organization yet"), so a real
// provider could never be given a policy.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeDatabase } from '@/db/connect';
import * as t from '@/db/schema';
import { prepareDatabase } from '@/server/cli/prepare-database';
import { runImportCommand } from '@/server/cli/import-command';
import { parseEnv } from '@/server/env';
import { createOcmProvider } from '@/server/integrations/providers/ocm';
import { runTick } from '@/server/scheduler/run-tick';
import { startFakeOcm, type FakeOcm } from '../fakes/fake-ocm';
import { startThrowawayPostgres, type ThrowawayPostgres } from '../support/throwaway-postgres';

const ORG = `
$schema: /openshift/openshift-cluster-manager-1.yml
name: first-start
upgradePolicyClusters:
- name: stage-1
  upgradePolicy: {workloads: [w], schedule: "* * * * *", conditions: {soakDays: 0}}
`;

let dir: string;
let ocm: FakeOcm;
beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fleetplan-first-start-'));
  ocm = await startFakeOcm({
    clusters: [
      { id: 'c-stage-1', name: 'stage-1', version: '4.13.10', releases: ['4.13.10', '4.13.11'] },
      { id: 'c-prod-1', name: 'prod-1', version: '4.13.10', releases: ['4.13.10', '4.13.11'] },
    ],
  });
});
afterAll(async () => {
  await ocm.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** `npm start`'s preparation of a new SQLite database in `dir` for OCM at `fake`, and that provider. */
async function installOn(fake: FakeOcm, name: string) {
  const file = path.join(dir, name);
  const env = parseEnv({
    DATABASE_URL: file,
    FLEETPLAN_PROVIDER: 'ocm',
    FLEETPLAN_OCM_URL: fake.url,
    FLEETPLAN_OCM_TOKEN: fake.token,
    FLEETPLAN_ADMIN_PASSWORD: 'long-enough-password',
  });
  const db = await prepareDatabase(env, () => undefined);
  return { file, db, provider: createOcmProvider({ baseUrl: fake.url, token: fake.token }) };
}

describe('a real provider on an empty database', () => {
  it('reads the fleet at the first tick, takes an imported organization file, and plans upgrades with it', async () => {
    const { file, db, provider } = await installOn(ocm, 'fleet.db');
    try {
      const tick = () => runTick({ db, provider, now: new Date(), holder: 'test' });
      expect((await tick()).status).toBe('succeeded');
      expect(
        db
          .select({ name: t.clusters.name, policy: t.clusters.upgradePolicy })
          .from(t.clusters)
          .all()
          .sort((a, b) => a.name.localeCompare(b.name)),
      ).toEqual([
        { name: 'prod-1', policy: null },
        { name: 'stage-1', policy: null },
      ]);

      const orgFile = path.join(dir, 'org.yml');
      fs.writeFileSync(orgFile, ORG);
      const out: string[] = [];
      const code = await runImportCommand([orgFile], {
        stdout: (s) => out.push(s),
        stderr: (s) => out.push(s),
        env: { DATABASE_URL: file },
      });
      expect(out.join('')).toMatch(/imported organization first-start: 1 managed, 1 unmanaged/);
      expect(code).toBe(0);

      expect((await tick()).status).toBe('succeeded');
      const attempts = db.select().from(t.upgradeLifecycles).all();
      expect(attempts.map((a) => [a.clusterName, a.toVersion])).toEqual([['stage-1', '4.13.11']]);
      // OCM is told at once (its start lead is longer than the engine's 6 minutes ahead)
      expect(ocm.writes().map((w) => [w.cluster, w.method, w.version])).toEqual([['c-stage-1', 'POST', '4.13.11']]);
    } finally {
      db.$client.close();
    }
  });
});

describe('OCM starts through the scheduler', () => {
  it("a start planned at its tick keeps its slot; one whose first request failed goes out later with OCM's notice, and OCM takes it", async () => {
    // the fake OCM runs on the ticks' clock: its 5-minute rule is judged at the tick's time
    let clock = new Date('2026-11-27T10:00:00.000Z');
    const fake = await startFakeOcm({
      now: () => clock,
      clusters: [
        { id: 'c-a', name: 'stage-1', version: '4.13.10', releases: ['4.13.10', '4.13.11'] },
        { id: 'c-b', name: 'prod-1', version: '4.13.10', releases: ['4.13.10', '4.13.11'] },
      ],
    });
    const { file, db, provider } = await installOn(fake, 'starts.db');
    try {
      const tick = async (at: Date) => {
        clock = at;
        const result = await runTick({ db, provider, now: at, realNow: () => at, holder: 'test' });
        expect(result.status).toBe('succeeded');
      };
      await tick(clock);
      const orgFile = path.join(dir, 'starts.yml');
      fs.writeFileSync(
        orgFile,
        ORG.replace('name: first-start', 'name: starts') +
          '- name: prod-1\n  upgradePolicy: {workloads: [v], schedule: "* * * * *", conditions: {soakDays: 0}}\n',
      );
      expect(await runImportCommand([orgFile], { stdout: () => undefined, stderr: () => undefined, env: { DATABASE_URL: file } })).toBe(0);

      // prod-1's first request meets an OCM error (a 500 on its policies): nothing is held there
      fake.onRequest((req) => fake.setPolicyFault('c-b', req.method === 'POST' && req.path.includes('/c-b/') ? 500 : null));
      const planning = new Date('2026-11-27T10:00:20.000Z');
      await tick(planning);
      fake.onRequest(null);
      fake.setPolicyFault('c-b', null);
      const attempt = (name: string) =>
        db
          .select()
          .from(t.upgradeLifecycles)
          .all()
          .find((a) => a.clusterName === name)!;
      const slotMs = (name: string) => new Date(attempt(name).slot).getTime();
      const slotOf = (name: string) => new Date(slotMs(name)).toISOString().replace('.000Z', 'Z');
      // the slot the engine planned at that tick is what OCM was told: not moved
      expect(fake.writes('c-a')).toMatchObject([{ method: 'POST', version: '4.13.11', nextRun: slotOf('stage-1') }]);
      expect(slotMs('stage-1') - planning.getTime()).toBeGreaterThanOrEqual(6 * 60_000);
      expect(fake.writes('c-b')).toEqual([]);

      // the next tick comes 3 minutes before prod-1's slot: its start moves past it, with room
      const late = new Date(slotMs('prod-1') - 3 * 60_000 + 936);
      await tick(late);
      const [write] = fake.writes('c-b');
      expect(write).toMatchObject({ method: 'POST', version: '4.13.11' });
      expect(Date.parse(write!.nextRun!)).toBeGreaterThanOrEqual(late.getTime() + 5 * 60_000);
      expect(Date.parse(write!.nextRun!)).toBeGreaterThan(slotMs('prod-1'));
      expect(fake.refusals()).toEqual([]);
    } finally {
      db.$client.close();
      await fake.close();
    }
  });
});

describe('replicas starting together on an empty PostgreSQL', () => {
  let server: ThrowawayPostgres | undefined;
  beforeAll(async () => {
    server = await startThrowawayPostgres();
  }, 60_000);
  afterAll(() => server?.stop());

  it('both start, and the first start makes its organization and admin once', async () => {
    const url = await server!.createDatabase('replicas_first_start');
    const env = parseEnv({
      DATABASE_URL: url,
      FLEETPLAN_PROVIDER: 'ocm',
      FLEETPLAN_OCM_URL: ocm.url,
      FLEETPLAN_OCM_TOKEN: ocm.token,
      FLEETPLAN_ADMIN_PASSWORD: 'long-enough-password',
      FLEETPLAN_SECRET_KEY: 'ab'.repeat(32),
    });
    const lines: string[] = [];
    const replicas = await Promise.allSettled([0, 1].map(() => prepareDatabase(env, (line) => lines.push(line))));
    const client = new Client({ connectionString: url });
    await client.connect();
    try {
      expect(replicas.map((r) => (r.status === 'fulfilled' ? 'started' : String(r.reason)))).toEqual(['started', 'started']);
      expect((await client.query('select name from organizations')).rows).toEqual([{ name: 'unnamed' }]);
      expect(lines.filter((line) => line.includes('starts empty'))).toHaveLength(1);
      expect(lines.filter((line) => line.includes("created user 'admin'"))).toHaveLength(1);
    } finally {
      await client.end();
      for (const r of replicas) if (r.status === 'fulfilled') await closeDatabase(r.value);
    }
  });
});
