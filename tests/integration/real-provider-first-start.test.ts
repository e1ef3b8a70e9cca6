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

describe('a real provider on an empty database', () => {
  it('reads the fleet at the first tick, takes an imported organization file, and plans upgrades with it', async () => {
    const file = path.join(dir, 'fleet.db');
    const env = parseEnv({
      DATABASE_URL: file,
      FLEETPLAN_PROVIDER: 'ocm',
      FLEETPLAN_OCM_URL: ocm.url,
      FLEETPLAN_OCM_TOKEN: ocm.token,
      FLEETPLAN_ADMIN_PASSWORD: 'long-enough-password',
    });
    const db = await prepareDatabase(env, () => undefined);
    try {
      const provider = createOcmProvider({ baseUrl: ocm.url, token: ocm.token });
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
