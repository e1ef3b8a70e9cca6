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

/**
 * What the Forecast page costs the server: `forecast.run` on the seeded demo database at about
 * `clusters` clusters (stored gates: health gate, unhealthy clusters; route-following clusters
 * added), 90 days: the service's cold request (nothing kept for these inputs: a forecast nobody
 * asked for yet) with the steps it reports (load, simulate, order), and warm (the next page a fleet
 * minute later, data unchanged).
 */
async function timeForecastPage(clusters: number): Promise<{ cold: number; warm: number }> {
  const db = openDatabase(':memory:');
  const seeded = await seedDemo(db, NOW, demoScaleForClusters(clusters));
  const routed = addRoutedClusters(db, Math.max(1, Math.round(clusters / 1000)));
  const total = seeded.clusters + routed;
  let clock = NOW;
  const forecast = createForecastService(db, () => new Date(clock), organizationScope(db));
  const request = (offset: number, search?: string) =>
    forecast.run({ horizonDays: 90, upgradeMinutes: 90, offset, limit: search ? routed + 1 : 50, search });
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
  // the route-following clusters (eus-legacy-01 and its copies), from the kept forecast
  const routedRows = (await request(0, 'eus-legacy-01')).rows;
  const routedUpgrades = routedRows.reduce((n, r) => n + r.upgrades.length, 0);
  const { load, simulate, order } = first.phasesMs;
  console.log(
    `forecast page: ${total.toLocaleString('en-US')} clusters (${routedRows.length} route-following, ${routedUpgrades} upgrades along their routes) × 90 days, ` +
      `the service's steps: load ${load} ms, simulate ${simulate} ms (${first.stats.engineRuns} engine runs, ` +
      `${first.stats.decided.toLocaleString('en-US')} verdicts), order ${order} ms`,
  );
  console.log(
    `forecast page: ${total.toLocaleString('en-US')} clusters × 90 days: cold ${cold.toFixed(0)} ms (CPU ${coldCpu.toFixed(0)}), ` +
      `warm ${warm.toFixed(0)} ms (CPU ${warmCpu.toFixed(0)})`,
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
