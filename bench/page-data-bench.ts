// What the Fleet, Sectors and cluster detail pages and a metrics scrape cost the server on a
// 10,000-cluster fleet: the service calls behind each page's tRPC procedures, summed per page.
// "new minute" is the first load at a new fleet minute with the data unchanged (the fleet clock
// moves a minute per real second in the demo, ticks write once a minute); "after a write" the
// first load after a scheduler tick's write (soak figures; no cluster changed); "a cluster moved"
// the first load after a tick that changed one cluster (its upgrade's progress, a new version:
// what nearly every tick of a live fleet does); "warm" the same page loaded again right after.
// `page-data` runs on a SQLite file; `page-data-pg` on the same fleet copied into a throw-away
// PostgreSQL server, where the database's own work is not this process's CPU: it prints the Fleet
// list's wall time too (target < 300 ms, issue 15).
import { eq, sql } from 'drizzle-orm';
import { createFakeProvider } from '@/server/integrations/providers/fake-provider';
import { parseEnv } from '@/server/env';
import { renderFleetMetrics } from '@/server/metrics/collect-fleet-metrics';
import { runTick } from '@/server/scheduler/run-tick';
import { createServices, type Services } from '@/server/services/create-services';
import { tablesOf } from '@/server/repositories/dialect';
import { BENCH_FLEET_SIZE, BENCH_FLEET_START, openBenchFleet, type BenchDatabase } from './bench-fleet';
import { loadAverage } from './load-average';

const ROUNDS = 5;
const MINUTE_MS = 60_000;
/** the Fleet list's wall time on PostgreSQL (issue 15) */
const FLEET_LIST_TARGET_MS = 300;

type Call = [procedure: string, run: () => Promise<unknown>];

function pages(services: Services, metrics: () => Promise<unknown>, cluster: string): Record<string, Call[]> {
  return {
    fleet: [
      ['clusters.list', async () => await services.clusters.list({ filter: {}, sort: 'name', direction: 'asc', offset: 0, limit: 50 })],
      ['clusters.facets', async () => await services.clusters.facets()],
      ['clusters.versionDistribution', async () => await services.clusters.versionDistribution()],
      ['fleet.status', async () => await services.fleet.status()],
    ],
    sectors: [
      ['sectors.overview', async () => await services.sectors.overview()],
      ['policies.organization', async () => await services.policies.getOrganization()],
    ],
    'cluster detail': [
      ['clusters.byName', async () => await services.clusters.byName(cluster)],
      ['clusters.explain', async () => await services.clusterExplain.explain(cluster)],
    ],
    metrics: [['renderFleetMetrics', metrics]],
  };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** CPU time of this process in ms: on a shared machine steadier than wall time, and what blocks the event loop. */
function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/** Runs the page's calls in order; the total and each call's CPU time in ms, and each call's wall time. */
async function timePage(calls: Call[]): Promise<{ total: number; each: Map<string, number>; wall: Map<string, number> }> {
  const each = new Map<string, number>();
  const wall = new Map<string, number>();
  const start = cpuMs();
  for (const [name, run] of calls) {
    const t = cpuMs();
    const w = performance.now();
    await run();
    each.set(name, cpuMs() - t);
    wall.set(name, performance.now() - w);
  }
  return { total: cpuMs() - start, each, wall };
}

export async function runPageDataBench(database: BenchDatabase = 'sqlite'): Promise<void> {
  const fleet = await openBenchFleet(database, 'page-data');
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
  const byPage = pages(services, async () => await renderFleetMetrics(db, at, { providerName: 'simulator' }), fleet.clusterNames[5]!);

  const newMinute = new Map<string, number[]>();
  const afterWrite = new Map<string, number[]>();
  const warm = new Map<string, number[]>();
  const clusterMoved = new Map<string, number[]>();
  const clusterMovedCalls = new Map<string, number[]>();
  const newMinuteCalls = new Map<string, number[]>();
  const afterWriteCalls = new Map<string, number[]>();
  const push = (m: Map<string, number[]>, key: string, ms: number) => (m.get(key) ?? m.set(key, []).get(key)!).push(ms);
  // what every tick writes when no cluster moved: the accumulated soak (and its own rows); the
  // clusters, sectors and policies stay (a change of those loads the whole fleet again)
  const { versionSoak, clusters } = tablesOf(db);
  const touch = async () => await db.update(versionSoak).set({ soakDays: sql`${versionSoak.soakDays} + 0.001` });
  const moveCluster = async (issue: string, name: string) =>
    await db
      .update(clusters)
      .set({ healthIssues: [issue] })
      .where(eq(clusters.name, name));
  const fleetListWall: Record<string, number[]> = { 'a cluster moved': [], 'after a write': [], 'new minute': [], warm: [] };
  const fleetListMs = (page: string, timed: Awaited<ReturnType<typeof timePage>>, column: string) => {
    if (page === 'fleet') fleetListWall[column]!.push(timed.wall.get('clusters.list')!);
  };
  let minute = 0;
  for (let round = 0; round < ROUNDS; round++) {
    for (const [page, calls] of Object.entries(byPage)) {
      await touch();
      at = new Date(BENCH_FLEET_START.getTime() + ++minute * MINUTE_MS);
      const written = await timePage(calls);
      await moveCluster(`bench round ${round} ${page}`, fleet.clusterNames[7]!);
      at = new Date(BENCH_FLEET_START.getTime() + ++minute * MINUTE_MS);
      const moved = await timePage(calls);
      at = new Date(BENCH_FLEET_START.getTime() + ++minute * MINUTE_MS);
      const first = await timePage(calls);
      const again = await timePage(calls);
      push(afterWrite, page, written.total);
      push(clusterMoved, page, moved.total);
      for (const [name, ms] of moved.each) push(clusterMovedCalls, name, ms);
      push(newMinute, page, first.total);
      push(warm, page, again.total);
      for (const [name, ms] of first.each) push(newMinuteCalls, name, ms);
      for (const [name, ms] of written.each) push(afterWriteCalls, name, ms);
      fleetListMs(page, moved, 'a cluster moved');
      fleetListMs(page, written, 'after a write');
      fleetListMs(page, first, 'new minute');
      fleetListMs(page, again, 'warm');
    }
  }
  const cell = (values: number[]) => median(values).toFixed(0).padStart(6);
  console.log(`page data for ${BENCH_FLEET_SIZE} clusters, median of ${ROUNDS} rounds (CPU ms):`);
  console.log(
    `  ${'page'.padEnd(15)} ${'a cluster moved'.padStart(16)} ${'after a write'.padStart(14)} ${'new minute'.padStart(11)} ${'warm'.padStart(6)}`,
  );
  for (const page of Object.keys(byPage)) {
    console.log(
      `  ${page.padEnd(15)} ${cell(clusterMoved.get(page)!).padStart(16)} ${cell(afterWrite.get(page)!).padStart(14)} ${cell(newMinute.get(page)!).padStart(11)} ${cell(warm.get(page)!)}`,
    );
  }
  console.log('  per procedure (a cluster moved / after a write / new minute):');
  for (const [name, values] of afterWriteCalls) {
    console.log(
      `    ${name.padEnd(30)} ${median(clusterMovedCalls.get(name)!).toFixed(1).padStart(7)} ${median(values).toFixed(1).padStart(7)} ${median(newMinuteCalls.get(name)!).toFixed(1).padStart(7)}`,
    );
  }
  if (database === 'postgres') {
    const medians = Object.entries(fleetListWall).map(([column, values]) => `${column} ${median(values).toFixed(0)}`);
    const slowest = Math.max(...Object.values(fleetListWall).map(median));
    console.log(
      `  Fleet list (clusters.list) on PostgreSQL, wall ms, median of ${ROUNDS}: ${medians.join(', ')} ` +
        `(target < ${FLEET_LIST_TARGET_MS} ms) ${slowest < FLEET_LIST_TARGET_MS ? 'OK' : 'OVER TARGET'}; load average ${loadAverage()}`,
    );
  }
  await fleet.dispose();
}
