// Forecast use case: the stored fleet (plus in-memory what-if overrides) run forward through the
// decision engine. Results are cached per input, so paging through 10,000 clusters re-uses one
// simulation; only one page of clusters is returned at a time.
import { createHash } from 'node:crypto';
import type { Db } from '@/db/open-database';
import { applyForecastOverrides, type ForecastOverrides } from '@/server/domain/forecast/forecast-overrides';
import {
  defaultTargetVersion,
  startForecast,
  type ClusterForecast,
  type ForecastResult,
  type SectorForecast,
} from '@/server/domain/forecast/forecast-rollout';
import { validatePlanInput } from '@/server/domain/plan/validate-plan-input';
import { computeSectorDepths } from '@/lib/sector-depths';
import { compareVersions, isSemver } from '@/server/domain/version/version';
import { loadGateState } from '@/server/scheduler/gate-state';
import { loadPlanDocument } from '@/server/repositories/plan-document-repository';
import { findOrganization } from '@/server/repositories/organization-repository';
import { listSectorRows } from '@/server/repositories/sector-repository';
import { AppError } from './app-error';

export interface ForecastRunInput {
  targetVersion?: string;
  horizonDays: number;
  upgradeMinutes: number;
  overrides?: ForecastOverrides;
  sector?: string;
  search?: string;
  offset: number;
  limit: number;
}

export interface ForecastRunOutput {
  from: string;
  until: string;
  targetVersion: string | null;
  upgradeMinutes: number;
  stepMinutes: number;
  frozen: boolean;
  exclusions: number;
  elapsedMs: number;
  cached: boolean;
  stats: ForecastResult['stats'];
  managedClusters: number;
  reachedClusters: number;
  sectors: (SectorForecast & { depth: number })[];
  /** versions appearing in the page's bars and the fleet's target, oldest first */
  versions: string[];
  total: number;
  offset: number;
  rows: ClusterForecast[];
}

type CacheEntry = {
  result: ForecastResult;
  elapsedMs: number;
  frozen: boolean;
  exclusions: number;
  order: Map<string, number>;
  depths: Map<string, number>;
};
const CACHE_SIZE = 6;
/** Engine runs per slice: one run of a 10k-cluster fleet takes ~0.2 s, then other requests get a turn. */
const SLICE_RUNS = 1;
const globalCache = globalThis as unknown as { __fleetplanForecastCache?: Map<string, Promise<CacheEntry>> };
const cache = (globalCache.__fleetplanForecastCache ??= new Map<string, Promise<CacheEntry>>());

export function createForecastService(db: Db, now: () => Date) {
  async function simulate(input: ForecastRunInput): Promise<CacheEntry & { cached: boolean }> {
    const org = findOrganization(db);
    if (!org) throw new AppError('NOT_FOUND', 'No organization is stored yet');
    if (input.targetVersion !== undefined && !isSemver(input.targetVersion)) {
      throw new AppError('INVALID_INPUT', `target version '${input.targetVersion}' is not a semantic version`, [
        { path: 'targetVersion', message: 'not a semantic version' },
      ]);
    }
    const at = now();
    // Minute resolution: reloads within the same minute share one simulation.
    at.setUTCSeconds(0, 0);
    const document = applyForecastOverrides(loadPlanDocument(db, org.id, at), input.overrides);
    const parsed = validatePlanInput(document);
    if (!parsed.ok)
      throw new AppError(
        'INVALID_INPUT',
        'The what-if policy is not valid',
        parsed.problems.map((p) => ({ path: p.path, message: p.message })),
      );
    // the scheduler's own gates, so the forecast's first step is what the next tick does
    const gates = loadGateState(db, org, at);
    const exclusions = input.overrides?.ignoreExclusions
      ? []
      : gates.exclusions.map((e) => ({
          scope: e.scope,
          subject: e.subject,
          startsAt: new Date(e.startsAt).toISOString(),
          endsAt: new Date(e.endsAt).toISOString(),
          reason: e.reason,
        }));
    const frozen = org.frozen && !input.overrides?.ignoreFreeze;
    const options = {
      targetVersion: input.targetVersion ?? defaultTargetVersion(parsed.input) ?? undefined,
      horizonDays: input.horizonDays,
      upgradeMinutes: input.upgradeMinutes,
      exclusions,
      frozen,
      healthGate: gates.healthGate,
      healthIssues: gates.healthIssues,
    };
    const key = createHash('sha1')
      .update(JSON.stringify([document, { ...options, healthIssues: [...options.healthIssues].filter(([, issues]) => issues.length > 0) }]))
      .digest('hex');
    const hit = cache.get(key);
    if (hit) {
      cache.delete(key);
      cache.set(key, hit);
      return { ...(await hit), cached: true };
    }
    // Simulate in slices and yield to the event loop between them, so a long forecast (10k
    // clusters) does not stall every other request of the server; identical concurrent
    // requests share the same promise.
    const sectorRows = listSectorRows(db, org.id);
    const depths = computeSectorDepths(sectorRows);
    const order = new Map(
      [...sectorRows]
        .sort((a, b) => (depths.get(a.name) ?? 0) - (depths.get(b.name) ?? 0) || a.position - b.position)
        .map((s, i) => [s.name, i]),
    );
    const run = (async (): Promise<CacheEntry> => {
      const t0 = performance.now();
      const sim = startForecast(parsed.input, options);
      while (!sim.advance(SLICE_RUNS)) await new Promise<void>((resolve) => setImmediate(resolve));
      const result = sim.finish();
      const elapsedMs = Math.round(performance.now() - t0);
      return { result, elapsedMs, frozen, exclusions: exclusions.length, order, depths };
    })();
    cache.set(key, run);
    while (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value as string);
    try {
      return { ...(await run), cached: false };
    } catch (e) {
      cache.delete(key);
      throw e;
    }
  }

  return {
    async run(input: ForecastRunInput): Promise<ForecastRunOutput> {
      const { result, elapsedMs, frozen, exclusions, order, depths, cached } = await simulate(input);
      const search = input.search?.trim().toLowerCase();
      const rank = (c: ClusterForecast) =>
        c.sector === null ? Number.MAX_SAFE_INTEGER : (order.get(c.sector) ?? Number.MAX_SAFE_INTEGER - 1);
      const filtered = result.clusters
        .filter((c) => c.managed && (!input.sector || c.sector === input.sector) && (!search || c.cluster.toLowerCase().includes(search)))
        .sort((a, b) => rank(a) - rank(b) || a.cluster.localeCompare(b.cluster));
      const rows = filtered.slice(input.offset, input.offset + input.limit);
      const versions = new Set<string>();
      for (const r of rows) {
        versions.add(r.startVersion);
        for (const u of r.upgrades) versions.add(u.version);
      }
      if (result.targetVersion) versions.add(result.targetVersion);
      const managed = result.clusters.filter((c) => c.managed);
      return {
        from: result.from,
        until: result.until,
        targetVersion: result.targetVersion,
        upgradeMinutes: result.upgradeMinutes,
        stepMinutes: result.stepMinutes,
        frozen,
        exclusions,
        elapsedMs,
        cached,
        stats: result.stats,
        managedClusters: managed.length,
        reachedClusters: managed.filter((c) => c.reachesTargetAt !== null).length,
        sectors: result.sectors
          .map((s) => ({ ...s, depth: depths.get(s.sector) ?? 0 }))
          .sort((a, b) => (order.get(a.sector) ?? 0) - (order.get(b.sector) ?? 0)),
        versions: [...versions].sort(compareVersions),
        total: filtered.length,
        offset: input.offset,
        rows,
      };
    },
  };
}

export type ForecastService = ReturnType<typeof createForecastService>;
