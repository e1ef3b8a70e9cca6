// A real provider's first start, as the README tells an operator: `npm start` on an empty
// database, the scheduler reads the fleet, `fleetplan import FILE` gives the clusters policies, and
// the next tick plans their upgrades. Before, the database started without an organization: the
// tick read nothing without one, and the import refused ("No organization yet"), so a real
// provider could never be given a policy.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as t from '@/db/schema';
import { prepareDatabase } from '@/server/cli/prepare-database';
import { runImportCommand } from '@/server/cli/import-command';
import { parseEnv } from '@/server/env';
import { createOcmProvider } from '@/server/integrations/providers/ocm';
import { runTick } from '@/server/scheduler/run-tick';
import { startFakeOcm, type FakeOcm } from '../fakes/fake-ocm';

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
