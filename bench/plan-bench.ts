// Decision-engine benchmark: deterministic generated fleets of 1,000 and 10,000 managed clusters.
// Targets: 10k under 0.5 s on a 2-core machine; 10k/1k ratio under 15 (i.e. no quadratic parts).
import { createRng } from '@/server/domain/random';
import { decideUpgrades } from '../server/domain/plan/decide-upgrades';
import { validatePlanInput } from '../server/domain/plan/validate-plan-input';
import type { PlanInput } from '../server/domain/plan/types';

const WORKLOADS = 50;
const SECTORS = 20;
const MUTEXES = 100;
const VERSIONS = 30;
const RUNS = 7;
const NOW = '2024-03-12T09:30:00Z';

const SCHEDULES: unknown[] = [
  '* * * * *',
  '*/15 * * * *',
  '0 10 * * 1-5',
  '30 9-17 * * mon-fri',
  '0 10 8-14 * 5',
  '45 11 * * *',
  '0 */2 * * *',
  '0 3 * * 0',
  { cron: '0 11 * * 2', location: 'Europe/Zurich', isoWeek: '@odd' },
  { cron: '15 10 * * *', location: 'America/New_York' },
  { cron: '0 18 * * 1-5', location: 'Asia/Tokyo', isoWeek: '@even' },
  { cron: '*/30 * * * *', location: 'Australia/Lord_Howe' },
];

/** A fleet document (raw, as a user would write it) with `clusterCount` managed clusters. */
export function generateFleet(clusterCount: number, seed = 42): unknown {
  const rng = createRng(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rng() * list.length)] as T;
  const versions = Array.from({ length: VERSIONS }, (_, i) =>
    i < 10 ? `4.13.${i * 2}` : i < 28 ? `4.14.${i - 10}` : `4.15.0-rc.${i - 27}`,
  );
  const workloads = Array.from({ length: WORKLOADS }, (_, i) => `wl-${i}`);
  const mutexes = Array.from({ length: MUTEXES }, (_, i) => `m-${i}`);
  const sectors = Array.from({ length: SECTORS }, (_, i) => {
    const deps = i === 0 ? [] : [{ name: `sector-${Math.floor(rng() * i)}` }];
    if (i > 3 && rng() < 0.3) deps.push({ name: `sector-${Math.floor(rng() * i)}` });
    const unique = [...new Map(deps.map((d) => [d.name, d])).values()];
    const sector: Record<string, unknown> = { name: `sector-${i}`, dependencies: unique };
    if (i % 4 === 1) sector.maxParallelUpgrades = i % 8 === 1 ? '25%' : '3';
    return sector;
  });
  const clusters = Array.from({ length: clusterCount }, (_, i) => {
    const vi = Math.floor(rng() * (VERSIONS - 4));
    const version = versions[vi] as string;
    const available = versions.slice(vi + 1).filter(() => rng() < 0.35);
    const ws = [...new Set(Array.from({ length: 1 + Math.floor(rng() * 3) }, () => pick(workloads)))];
    const ms = [...new Set(Array.from({ length: Math.floor(rng() * 3) }, () => pick(mutexes)))];
    const conditions: Record<string, unknown> = { mutexes: ms, soakDays: Math.floor(rng() * 6) };
    if (rng() < 0.9) conditions.sector = `sector-${Math.floor(rng() * SECTORS)}`;
    if (rng() < 0.1) conditions.blockedVersions = ['^4\\.14\\.(3|7)$'];
    const cluster: Record<string, unknown> = {
      name: `cluster-${String(i).padStart(5, '0')}`,
      version,
      channel: `stable-${version.split('.').slice(0, 2).join('.')}`,
      availableUpgrades: available,
      healthy: rng() > 0.05,
      upgradePolicy: { workloads: ws, schedule: pick(SCHEDULES), conditions },
    };
    if (rng() < 0.05 && available.length) {
      cluster.currentUpgrade = { version: available[0], nextRun: '2024-03-12T10:00:00Z', state: rng() < 0.5 ? 'scheduled' : 'started' };
    }
    return cluster;
  });
  const versionData: Record<string, unknown> = {};
  for (const v of versions) {
    const entry: Record<string, unknown> = {};
    for (const w of workloads) {
      if (rng() < 0.5) entry[w] = { soakDays: Math.round(rng() * 2000) / 100, reporting: [] };
    }
    versionData[v] = { workloads: entry };
  }
  // Clusters already reporting their current version, so accumulation adds time (the common case).
  for (const c of clusters) {
    const byWorkload = (versionData[c.version as string] as { workloads: Record<string, { soakDays: number; reporting: string[] }> })
      .workloads;
    for (const w of (c.upgradePolicy as { workloads: string[] }).workloads) {
      byWorkload[w] ??= { soakDays: 0, reporting: [] };
      if (rng() < 0.8) byWorkload[w].reporting.push(c.name as string);
    }
  }
  return {
    now: NOW,
    organization: { name: 'bench-org', blockedVersions: ['^.*-rc\\..*$'], sectors },
    clusters,
    versionData: { checkIn: '2024-03-11T09:30:00Z', versions: versionData },
  };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}

function timeDecide(input: PlanInput): { medianMs: number; firstMs: number; upgrades: number } {
  const times: number[] = [];
  let upgrades = 0;
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    const result = decideUpgrades(input);
    times.push(performance.now() - t0);
    upgrades = result.decisions.filter((d) => d.action === 'upgrade').length;
  }
  return { medianMs: median(times), firstMs: times[0] as number, upgrades };
}

/** Prints the benchmark figures (decideUpgrades incl. soak accumulation, median of runs). */
export async function runPlanBench(): Promise<void> {
  const results: Record<number, number> = {};
  for (const n of [1_000, 10_000]) {
    const raw = generateFleet(n);
    const t0 = performance.now();
    const parsed = validatePlanInput(raw);
    const validateMs = performance.now() - t0;
    if (!parsed.ok) throw new Error(`generated fleet is invalid: ${JSON.stringify(parsed.problems.slice(0, 3))}`);
    const { medianMs, firstMs, upgrades } = timeDecide(parsed.input);
    results[n] = medianMs;
    console.log(
      `plan: ${n.toLocaleString('en-US')} clusters, ${WORKLOADS} workloads, ${SECTORS} sectors, ${MUTEXES} mutexes, ${VERSIONS} versions: ` +
        `decideUpgrades median ${medianMs.toFixed(1)} ms (first run ${firstMs.toFixed(1)} ms, ${RUNS} runs), validate ${validateMs.toFixed(1)} ms, ${upgrades} upgrades`,
    );
  }
  const ratio = (results[10_000] ?? 0) / (results[1_000] ?? 1);
  const ok10k = (results[10_000] ?? Infinity) < 500;
  console.log(`plan: 10k/1k ratio ${ratio.toFixed(2)} (target < 15), 10k ${ok10k ? 'within' : 'OVER'} the 500 ms target`);
  await Promise.resolve();
}
