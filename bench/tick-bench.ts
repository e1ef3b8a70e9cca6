// One full scheduler tick (snapshot ingest + soak + plan + writes) for 10,000 clusters on a
// SQLite file. Target: under 2 s.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDatabase } from '@/db/open-database';
import { createFakeProvider } from '@/server/integrations/providers/fake-provider';
import { runTick } from '@/server/scheduler/run-tick';
import { insertTestFleet, type TestCluster } from '@/server/scheduler/test-fleet';

const CLUSTERS = 10_000;
const TARGET_MS = 2000;

export async function runTickBench(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fleetplan-tick-bench-'));
  const db = openDatabase(path.join(dir, 'bench.db'));
  const now = new Date('2021-08-30T18:00:00Z');
  const releases = Array.from({ length: 30 }, (_, i) => `4.13.${i + 1}`);
  const sectors = [
    { name: 'dev' },
    { name: 'stage', dependencies: ['dev'] },
    { name: 'prod', dependencies: ['stage'], maxParallelUpgrades: '10%' },
  ];
  const clusters: TestCluster[] = Array.from({ length: CLUSTERS }, (_, i) => {
    const sector = i % 10 === 0 ? 'dev' : i % 10 < 4 ? 'stage' : 'prod';
    return {
      name: `cluster-${String(i).padStart(5, '0')}`,
      version: `4.13.${1 + (i % 20)}`,
      releases,
      workloads: [`wl-${i % 25}`, ...(i % 3 === 0 ? ['shared'] : [])],
      schedule: i % 4 === 0 ? '* * * * *' : '0 13 * * 1-5',
      soakDays: sector === 'dev' ? 0 : sector === 'stage' ? 2 : 7,
      sector,
      ...(sector === 'prod' ? { mutexes: [`m-${i % 200}`] } : {}),
      ...(i % 97 === 0 ? { healthIssues: ['ClusterOperator dns Degraded'] } : {}),
    };
  });
  const t0 = performance.now();
  const { fakeClusters } = insertTestFleet(db, { sectors, clusters }, now);
  const provider = createFakeProvider({ clusters: fakeClusters });
  console.log(`generated ${CLUSTERS} clusters in ${Math.round(performance.now() - t0)} ms`);

  const results: number[] = [];
  for (let i = 0; i < 3; i++) {
    const at = new Date(now.getTime() + i * 60_000);
    const start = performance.now();
    const r = await runTick({ db, provider, now: at, holder: 'bench', realNow: () => at });
    const ms = performance.now() - start;
    results.push(ms);
    if (r.status !== 'succeeded') throw new Error(`tick ${i} ${r.status}: ${'error' in r ? r.error : r.reason}`);
    console.log(
      `tick ${i + 1}: ${ms.toFixed(0)} ms — ${r.summary.upgrades} upgrades, ${r.summary.skips} skips, ${r.summary.decisionsRecorded} decisions recorded, ${r.summary.intentsDone} intents done`,
    );
  }
  const first = results[0]!;
  console.log(
    `tick for ${CLUSTERS} clusters: first ${first.toFixed(0)} ms, steady ${Math.min(...results.slice(1)).toFixed(0)} ms (target < ${TARGET_MS} ms) ${Math.max(...results) < TARGET_MS ? 'OK' : 'OVER TARGET'}`,
  );
  db.$client.close();
  fs.rmSync(dir, { recursive: true, force: true });
}
