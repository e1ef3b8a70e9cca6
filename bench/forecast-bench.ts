// Forecast benchmark: the rollout simulation over 90 days on the demo fleet scaled to 1,000 and
// 10,000 clusters (same sectors, schedules, mutexes and soak rules, clusters cloned), plus the
// plan benchmark's synthetic fleet (every-minute schedules: the worst case for skipping ahead).
// Target: 90 days × 1,000 clusters in a few seconds.
import fs from 'node:fs';
import path from 'node:path';
import { generateDemoFleet, type DemoGraphDocument } from '../server/demo/demo-fleet';
import { defaultTargetVersion, forecastRollout } from '../server/domain/forecast/forecast-rollout';
import { validatePlanInput } from '../server/domain/plan/validate-plan-input';
import type { PlanInput } from '../server/domain/plan/types';
import { generateFleet } from './plan-bench';
import { openDatabase } from '../db/open-database';
import { demoScaleForClusters, seedDemo } from '../server/services/demo-seed-service';
import { createForecastService } from '../server/services/forecast-service';
import { organizationScope } from '../server/services/organization-scope';
import type { Db } from '../db/open-database';
import type { ForecastResult } from '../server/domain/forecast/forecast-rollout';
import { gatedForecastOptions, runForecastSliced } from '../server/services/forecast-runner';
import { loadPlanDocument } from '../server/repositories/plan-document-repository';
import { listSectorRows } from '../server/repositories/sector-repository';
import { computeSectorDepths } from '../lib/sector-depths';

const NOW = new Date('2024-07-10T08:00:00Z');
const iso = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, 'Z');

/** The demo fleet as an engine input document, its managed clusters cloned up to `count`. */
export function scaledDemoDocument(count: number): unknown {
  const graph = JSON.parse(
    fs.readFileSync(path.join(process.cwd(), 'server', 'demo', 'data', 'stable-4.13.json'), 'utf8'),
  ) as DemoGraphDocument;
  const fleet = generateDemoFleet(graph, NOW);
  const managed = fleet.clusters.filter((c) => c.upgradePolicy);
  const clusters: Record<string, unknown>[] = [];
  const renamed = new Map<string, string[]>();
  for (let i = 0; clusters.length < count; i++) {
    const c = managed[i % managed.length]!;
    const copy = Math.floor(i / managed.length);
    const name = copy === 0 ? c.name : `${c.name}-x${copy}`;
    (renamed.get(c.name) ?? renamed.set(c.name, []).get(c.name)!).push(name);
    clusters.push({
      name,
      version: c.version,
      channel: c.channel,
      availableUpgrades: c.availableUpgrades,
      healthy: c.healthy,
      upgradePolicy: c.upgradePolicy,
      ...(c.currentUpgrade
        ? { currentUpgrade: { version: c.currentUpgrade.version, nextRun: c.currentUpgrade.nextRun, state: c.currentUpgrade.state } }
        : {}),
    });
  }
  const versions: Record<string, { workloads: Record<string, { soakDays: number; reporting: string[] }> }> = {};
  for (const s of fleet.versionSoak) {
    const reporting = s.reporting.flatMap((n) => renamed.get(n) ?? []);
    (versions[s.version] ??= { workloads: {} }).workloads[s.workload] = { soakDays: s.soakDays, reporting };
  }
  return {
    now: iso(NOW),
    organization: {
      name: fleet.organization.name,
      blockedVersions: fleet.organization.blockedVersions.map((b) => b.pattern),
      sectors: fleet.organization.sectors.map((s) => ({ ...s, dependencies: s.dependencies.map((name) => ({ name })) })),
    },
    clusters,
    versionData: { checkIn: iso(NOW), versions },
  };
}

function validated(raw: unknown): PlanInput {
  const parsed = validatePlanInput(raw);
  if (!parsed.ok) throw new Error(`invalid bench input: ${JSON.stringify(parsed.problems.slice(0, 3))}`);
  return parsed.input;
}

const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

function timeForecast(label: string, input: PlanInput, horizonDays: number): number {
  const target = defaultTargetVersion(input) ?? undefined;
  const t0 = performance.now();
  const c0 = cpuMs();
  const r = forecastRollout(input, { targetVersion: target, horizonDays, upgradeMinutes: 90 });
  const elapsed = performance.now() - t0;
  const cpu = cpuMs() - c0;
  const reached = r.clusters.filter((c) => c.reachesTargetAt !== null).length;
  console.log(
    `forecast: ${label}: ${input.clusters.length.toLocaleString('en-US')} clusters × ${horizonDays} days: ${elapsed.toFixed(0)} ms (CPU ${cpu.toFixed(0)}), ` +
      `${r.stats.engineRuns} engine runs (${(elapsed / Math.max(1, r.stats.engineRuns)).toFixed(1)} ms each), ${r.stats.upgrades} upgrades, ` +
      `${reached} clusters reach ${target ?? '—'}${r.stats.truncated ? ' (TRUNCATED)' : ''}`,
  );
  return elapsed;
}

/**
 * Clones of the demo's one route-following cluster (eus-legacy-01: EUS 4.6 with the target 4.8.*,
 * two minors away, so the engine follows the path solver's route over the stored graph). The demo
 * seeds one at any scale; the bench adds one per 1,000 clusters so a large fleet's forecast pays
 * for route-following as a fleet with several such clusters would. Bench-only rows.
 */
function addRoutedClusters(db: Db, count: number): number {
  const insert = db.$client.prepare(
    `insert into clusters (organization_id, name, external_id, provider, position, version, channel, region, node_count,
       available_upgrades, healthy, health_issues, upgrade_policy, sector, upgrade_state, current_upgrade, policy_revision,
       observed_at, labels, pending_version_gates, fleetplan_labels)
     select organization_id, name || '-r' || ?, external_id || '-r' || ?, provider, position, version, channel, region, node_count,
       available_upgrades, healthy, health_issues, upgrade_policy, sector, upgrade_state, current_upgrade, policy_revision,
       observed_at, labels, pending_version_gates, fleetplan_labels
     from clusters where name = 'eus-legacy-01'`,
  );
  let added = 0;
  for (let i = 1; i <= count; i++) added += insert.run(String(i), String(i)).changes;
  return added;
}

type PagePhases = { load: number; simulate: number; shape: number; cpuSimulate: number };

/**
 * The steps of forecast-service.ts's forecastAt, timed one by one (the service times only the
 * whole): load = the stored plan document, its validation, the stored gates and the default
 * target; simulate = the sliced simulation; shape = the page's order of the result and one page.
 */
async function forecastPhases(db: Db, at: Date): Promise<PagePhases & { result: ForecastResult }> {
  const org = await organizationScope(db)();
  if (!org) throw new Error('no organization seeded');
  let t = performance.now();
  const parsed = validatePlanInput(await loadPlanDocument(db, org.id, at));
  if (!parsed.ok) throw new Error('the seeded plan document is not valid');
  const options = await gatedForecastOptions(db, org, at, {
    targetVersion: defaultTargetVersion(parsed.input) ?? undefined,
    horizonDays: 90,
    upgradeMinutes: 90,
  });
  const load = performance.now() - t;
  t = performance.now();
  const c = cpuMs();
  const result = await runForecastSliced(parsed.input, options);
  const simulate = performance.now() - t;
  const cpuSimulate = cpuMs() - c;
  t = performance.now();
  const depths = computeSectorDepths(await listSectorRows(db, org.id));
  const ordered = result.clusters
    .filter((x) => x.managed)
    .sort((a, b) => (depths.get(a.sector ?? '') ?? 0) - (depths.get(b.sector ?? '') ?? 0) || a.cluster.localeCompare(b.cluster));
  JSON.stringify(ordered.slice(0, 50));
  const shape = performance.now() - t;
  return { load, simulate, shape, cpuSimulate, result };
}

/**
 * What the Forecast page costs the server: `forecast.run` on the seeded demo database at about
 * `clusters` clusters (stored gates: health gate, unhealthy clusters; route-following clusters
 * added), 90 days. First its steps timed one by one (load, simulate, shape); then the service's
 * cold request (nothing kept for these inputs: a forecast nobody asked for yet) and warm (the next
 * page a fleet minute later, data unchanged).
 */
async function timeForecastPage(clusters: number): Promise<{ cold: number; warm: number }> {
  const db = openDatabase(':memory:');
  const seeded = await seedDemo(db, NOW, demoScaleForClusters(clusters));
  const routed = addRoutedClusters(db, Math.max(1, Math.round(clusters / 1000)));
  const phases = await forecastPhases(db, NOW);
  const routedNames = new Set(['eus-legacy-01', ...Array.from({ length: routed }, (_, i) => `eus-legacy-01-r${i + 1}`)]);
  const routedUpgrades = phases.result.clusters.filter((c) => routedNames.has(c.cluster)).reduce((n, c) => n + c.upgrades.length, 0);
  const total = seeded.clusters + routed;
  console.log(
    `forecast page: ${total.toLocaleString('en-US')} clusters (${routedNames.size} route-following, ${routedUpgrades} upgrades along their routes) × 90 days, ` +
      `steps: load ${phases.load.toFixed(0)} ms, simulate ${phases.simulate.toFixed(0)} ms (CPU ${phases.cpuSimulate.toFixed(0)}, ` +
      `${phases.result.stats.engineRuns} engine runs, ${phases.result.stats.decided.toLocaleString('en-US')} verdicts), shape ${phases.shape.toFixed(0)} ms`,
  );
  let clock = NOW;
  const forecast = createForecastService(db, () => new Date(clock), organizationScope(db));
  const request = (offset: number) => forecast.run({ horizonDays: 90, upgradeMinutes: 90, offset, limit: 50 });
  let t = performance.now();
  let c = cpuMs();
  const first = await request(0);
  const cold = performance.now() - t;
  const coldCpu = cpuMs() - c;
  if (first.cached) throw new Error('the first request was served from a kept forecast');
  clock = new Date(NOW.getTime() + 60_000);
  t = performance.now();
  c = cpuMs();
  const next = await request(50);
  const warm = performance.now() - t;
  const warmCpu = cpuMs() - c;
  if (!next.cached) throw new Error('the next page was not served from the kept forecast');
  console.log(
    `forecast page: ${total.toLocaleString('en-US')} clusters × 90 days: cold ${cold.toFixed(0)} ms (CPU ${coldCpu.toFixed(0)}, ` +
      `of which simulation ${first.elapsedMs} ms), warm ${warm.toFixed(0)} ms (CPU ${warmCpu.toFixed(0)})`,
  );
  db.$client.close();
  return { cold, warm };
}

/** Prints forecast figures: wall time, engine runs and upgrades per scenario. */
export async function runForecastBench(): Promise<void> {
  const demo1k = timeForecast('demo fleet scaled', validated(scaledDemoDocument(1_000)), 90);
  timeForecast('synthetic plan-bench fleet (every-minute schedules)', validated(generateFleet(1_000)), 90);
  timeForecast('demo fleet scaled', validated(scaledDemoDocument(10_000)), 90);
  console.log(`forecast: 1k × 90 days ${demo1k < 5000 ? 'within' : 'OVER'} the 5 s target`);
  await timeForecastPage(1_000);
  const page10k = await timeForecastPage(10_000);
  console.log(
    `forecast page: 10k × 90 days cold ${page10k.cold < 3000 ? 'within' : 'OVER'} the 3 s target, warm ${page10k.warm < 300 ? 'within' : 'OVER'} the 300 ms target`,
  );
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(__filename)) void runForecastBench();
