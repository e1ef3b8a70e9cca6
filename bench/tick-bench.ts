// One full scheduler tick (snapshot ingest + soak + plan + writes) for 10,000 clusters on a
// SQLite file. Target: under 2 s.
import { createFakeProvider } from '@/server/integrations/providers/fake-provider';
import { runTick } from '@/server/scheduler/run-tick';
import { BENCH_FLEET_SIZE as CLUSTERS, BENCH_FLEET_START, createBenchFleet } from './bench-fleet';

const TARGET_MS = 2000;

export async function runTickBench(): Promise<void> {
  const now = BENCH_FLEET_START;
  const t0 = performance.now();
  const fleet = createBenchFleet('tick');
  const { db, fakeClusters } = fleet;
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
  fleet.dispose();
}
