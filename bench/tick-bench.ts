// One full scheduler tick (snapshot ingest + soak + plan + writes) for 10,000 clusters on a
// SQLite file (`tick`, target under 2 s) or on PostgreSQL (`tick-pg`, the same fleet copied into a
// throw-away server; target under 3 s, issue 15).
import { createFakeProvider } from '@/server/integrations/providers/fake-provider';
import { runTick } from '@/server/scheduler/run-tick';
import { BENCH_FLEET_SIZE as CLUSTERS, BENCH_FLEET_START, openBenchFleet, type BenchDatabase } from './bench-fleet';
import { loadAverage } from './load-average';

const TARGET_MS: Record<BenchDatabase, number> = { sqlite: 2000, postgres: 3000 };

export async function runTickBench(database: BenchDatabase = 'sqlite'): Promise<void> {
  const now = BENCH_FLEET_START;
  const t0 = performance.now();
  const fleet = await openBenchFleet(database, 'tick');
  const { db, fakeClusters } = fleet;
  const provider = createFakeProvider({ clusters: fakeClusters });
  console.log(
    `generated ${CLUSTERS} clusters${database === 'postgres' ? ' (copied into PostgreSQL)' : ''} in ${Math.round(performance.now() - t0)} ms`,
  );

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
  const target = TARGET_MS[database];
  const onPostgres = database === 'postgres' ? ` on PostgreSQL (load average ${loadAverage()})` : '';
  console.log(
    `tick for ${CLUSTERS} clusters${onPostgres}: first ${first.toFixed(0)} ms, steady ${Math.min(...results.slice(1)).toFixed(0)} ms (target < ${target} ms) ${Math.max(...results) < target ? 'OK' : 'OVER TARGET'}`,
  );
  await fleet.dispose();
}
