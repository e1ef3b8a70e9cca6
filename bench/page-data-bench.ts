// What the Fleet, Sectors and cluster detail pages and a metrics scrape cost the server on a
// 10,000-cluster fleet: the service calls behind each page's tRPC procedures, summed per page.
// "cold" is the first load at a new fleet minute (nothing evaluated yet for it, as after a
// scheduler tick or any write); "warm" is the same page loaded again right after.
import { createFakeProvider } from '@/server/integrations/providers/fake-provider';
import { parseEnv } from '@/server/env';
import { collectFleetMetrics } from '@/server/metrics/collect-fleet-metrics';
import { runTick } from '@/server/scheduler/run-tick';
import { createServices, type Services } from '@/server/services/create-services';
import { BENCH_FLEET_SIZE, BENCH_FLEET_START, createBenchFleet } from './bench-fleet';

const ROUNDS = 3;
const MINUTE_MS = 60_000;

type Call = [procedure: string, run: () => unknown];

function pages(services: Services, metrics: () => void, cluster: string): Record<string, Call[]> {
  return {
    fleet: [
      ['clusters.list', () => services.clusters.list({ filter: {}, sort: 'name', direction: 'asc', offset: 0, limit: 50 })],
      ['clusters.facets', () => services.clusters.facets()],
      ['clusters.versionDistribution', () => services.clusters.versionDistribution()],
      ['fleet.status', () => services.fleet.status()],
    ],
    sectors: [
      ['sectors.overview', () => services.sectors.overview()],
      ['policies.organization', () => services.policies.getOrganization()],
    ],
    'cluster detail': [
      ['clusters.byName', () => services.clusters.byName(cluster)],
      ['clusters.explain', () => services.clusterExplain.explain(cluster)],
    ],
    metrics: [['collectFleetMetrics', metrics]],
  };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** Runs the page's calls in order; the total and each call's time in ms. */
function timePage(calls: Call[]): { total: number; each: Map<string, number> } {
  const each = new Map<string, number>();
  const start = performance.now();
  for (const [name, run] of calls) {
    const t = performance.now();
    run();
    each.set(name, performance.now() - t);
  }
  return { total: performance.now() - start, each };
}

export async function runPageDataBench(): Promise<void> {
  const fleet = createBenchFleet('page-data');
  const { db } = fleet;
  let at = BENCH_FLEET_START;
  const tick = await runTick({
    db,
    provider: createFakeProvider({ clusters: fleet.fakeClusters }),
    now: at,
    holder: 'bench',
    realNow: () => at,
  });
  if (tick.status !== 'succeeded') throw new Error(`seeding tick ${tick.status}`);
  const services = createServices({ db, fleetNow: () => at, realNow: () => at, env: parseEnv({}) });
  const byPage = pages(services, () => collectFleetMetrics(db, at), fleet.clusterNames[5]!);

  const cold = new Map<string, number[]>();
  const warm = new Map<string, number[]>();
  const coldCalls = new Map<string, number[]>();
  let minute = 0;
  for (let round = 0; round < ROUNDS; round++) {
    for (const [page, calls] of Object.entries(byPage)) {
      at = new Date(BENCH_FLEET_START.getTime() + ++minute * MINUTE_MS);
      const first = timePage(calls);
      const again = timePage(calls);
      (cold.get(page) ?? cold.set(page, []).get(page)!).push(first.total);
      (warm.get(page) ?? warm.set(page, []).get(page)!).push(again.total);
      for (const [name, ms] of first.each) (coldCalls.get(name) ?? coldCalls.set(name, []).get(name)!).push(ms);
    }
  }
  console.log(`page data for ${BENCH_FLEET_SIZE} clusters, median of ${ROUNDS} rounds (ms):`);
  for (const page of Object.keys(byPage)) {
    console.log(
      `  ${page.padEnd(15)} cold ${median(cold.get(page)!).toFixed(0).padStart(5)}   warm ${median(warm.get(page)!).toFixed(0).padStart(5)}`,
    );
  }
  console.log('  cold, per procedure:');
  for (const [name, values] of coldCalls) console.log(`    ${name.padEnd(30)} ${median(values).toFixed(1).padStart(7)}`);
  fleet.dispose();
}
