// Forecast use case: the stored fleet (plus in-memory what-if overrides) run forward through the
// decision engine. A simulation of 10,000 clusters costs seconds, so results are kept per
// database connection and keyed by what they depend on: the stored inputs
// (readForecastInputsRevision: the configuration — policies, exclusions, a freeze, the health
// gate — and the fleet's observed state — versions, upgrades, health, soak reporting) and the
// request's options, not by the clock. Paging and filtering read the kept result; only one page of
// clusters is returned at a time. A kept forecast is re-used while the fleet clock has moved less
// than MAX_AGE_MS past its start (the scheduler, when it runs, writes sooner than that), or for a
// few minutes of paging.
//
// On a running fleet nearly every tick changes the observed state (a completion, soak reporting),
// so a caller that allows it (the server's forecast thread) is answered at once with the last
// forecast of the same configuration and options — marked `stale`, its start shown — while the new
// one is computed; the page asks again until it is fresh. A forecast computed before a change of
// configuration is never shown as the answer to it.
import type { Db } from '@/db/open-database';
import { applyForecastOverrides, type ForecastOverrides } from '@/server/domain/forecast/forecast-overrides';
import {
  defaultTargetVersion,
  type ClusterForecast,
  type ForecastResult,
  type SectorForecast,
} from '@/server/domain/forecast/forecast-rollout';
import { validatePlanInput } from '@/server/domain/plan/validate-plan-input';
import { computeSectorDepths } from '@/lib/sector-depths';
import { compareVersions, isSemver } from '@/server/domain/version/version';
import { loadPlanDocument } from '@/server/repositories/plan-document-repository';
import { readForecastInputsRevision } from '@/server/repositories/data-version-repository';
import type { OrganizationScope } from './organization-scope';
import type { PolicyDraft } from './policies/evaluate-draft';
import type { ForecastImpact } from './policies/preview-forecast-impact';
import { listSectorRows } from '@/server/repositories/sector-repository';
import { AppError } from './app-error';
import { gatedForecastOptions, runForecastSliced } from './forecast-runner';
import { evaluationInstant } from './stored-fleet-evaluation';
import { keepRecent } from '@/lib/keep-recent';

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
  /** the simulation's wall time (phasesMs.simulate) */
  elapsedMs: number;
  /** where computing this forecast went: reading and validating its inputs, simulating, putting the clusters in the page's order */
  phasesMs: ForecastPhases;
  cached: boolean;
  /**
   * the fleet has moved since this forecast was computed (its start is `from`): it is the last one
   * of the same configuration and options, shown while a new one is computed — ask again shortly
   */
  stale: boolean;
  stats: ForecastResult['stats'];
  managedClusters: number;
  reachedClusters: number;
  sectors: (SectorForecast & { depth: number })[];
  /** approval gates the rollout waits at (approvals as they are now), earliest first */
  approvalGates: ForecastResult['approvalGates'];
  /** versions appearing in the page's bars and the fleet's target, oldest first */
  versions: string[];
  total: number;
  offset: number;
  rows: ClusterForecast[];
}

export interface ForecastPhases {
  load: number;
  simulate: number;
  order: number;
}

type CacheEntry = {
  result: ForecastResult;
  /** the fleet minute the forecast starts at */
  fromMs: number;
  /** when it was computed, on the wall clock */
  computedAtRealMs: number;
  elapsedMs: number;
  phasesMs: ForecastPhases;
  frozen: boolean;
  exclusions: number;
  /** managed clusters in the page's order (sector depth, sector position, name) */
  ordered: ClusterForecast[];
  order: Map<string, number>;
  depths: Map<string, number>;
};
const CACHE_SIZE = 6;
/** How far the fleet clock may move past a kept forecast's start before it is simulated again. */
const MAX_AGE_MS = 60 * 60_000;
/**
 * ...or while it is this fresh on the wall clock: the simulator's clock runs an hour a minute, and
 * paging through a forecast must not compute it again (the page shows the minute it starts at).
 */
const PAGING_GRACE_MS = 3 * 60_000;
/** how long, on the wall clock, a forecast may be shown as `stale` while a newer one is computed */
const STALE_FOR_MS = 10 * 60_000;
/** a forecast being computed, and once done its result */
type Kept = { promise: Promise<CacheEntry>; entry?: CacheEntry };
type Cache = {
  /** by organization, both input tokens and options */
  exact: Map<string, Kept>;
  /** the last forecast computed, by organization, configuration token and options */
  latest: Map<string, CacheEntry>;
};
// on globalThis: Next may load this module more than once; per connection: keys are data versions
const globalCache = globalThis as unknown as { __fleetplanForecastCaches?: WeakMap<Db['$client'], Cache> };
const caches = (globalCache.__fleetplanForecastCaches ??= new WeakMap<Db['$client'], Cache>());

export interface ForecastRunOptions {
  /**
   * answer with the last forecast of the same configuration while a newer one is computed
   * (`stale: true`); without it the caller waits for the new one
   */
  serveStale?: boolean;
  /** told of a computation that goes on after the answer (the forecast thread counts it as work) */
  onBackgroundWork?: (work: Promise<unknown>) => void;
}

/**
 * Where the server computes forecasts: its forecast worker thread (server/background/forecast-thread.ts),
 * which runs this same service on its own database connection and keeps the results warm.
 */
export interface ForecastOffload {
  run(organizationId: number, input: ForecastRunInput, atMs: number): Promise<ForecastRunOutput>;
  /** the policy editor's forecast impact of a draft (policies/preview-forecast-impact.ts) */
  impact(organizationId: number, draft: PolicyDraft, atMs: number): Promise<ForecastImpact>;
}

const processOffload = globalThis as unknown as { __fleetplanForecastOffload?: ForecastOffload };

/** The app's forecast thread, set up by instrumentation.ts; without one (tests, the CLI, `next dev`) forecasts run in this thread. */
export function useForecastOffload(offload: ForecastOffload | undefined): void {
  processOffload.__fleetplanForecastOffload = offload;
}

export function processForecastOffload(): ForecastOffload | undefined {
  return processOffload.__fleetplanForecastOffload;
}

export function createForecastService(
  db: Db,
  now: () => Date,
  scope: OrganizationScope,
  opts: {
    /** the server's forecast thread; without one the forecast is computed here */
    offload?: ForecastOffload;
    /** the wall clock (ms), for the paging grace */
    realNowMs?: () => number;
  } = {},
) {
  const { offload, realNowMs = Date.now } = opts;
  async function simulate(
    input: ForecastRunInput,
    runOptions: ForecastRunOptions,
  ): Promise<CacheEntry & { cached: boolean; stale: boolean }> {
    if (input.targetVersion !== undefined && !isSemver(input.targetVersion)) {
      throw new AppError('INVALID_INPUT', `target version '${input.targetVersion}' is not a semantic version`, [
        { path: 'targetVersion', message: 'not a semantic version' },
      ]);
    }
    // Minute resolution: the scheduler's grid (a copy: the clock's own Date is left as it is).
    const at = evaluationInstant(now());
    // read before loading: a write that lands during the simulation moves it for the next request
    const org = await scope();
    const revision = org ? await readForecastInputsRevision(db, org.id) : null;
    const options = [input.targetVersion ?? null, input.horizonDays, input.upgradeMinutes, input.overrides ?? null];
    const key = revision && JSON.stringify([org!.id, revision.configuration, revision.observation, ...options]);
    const lineKey = revision && JSON.stringify([org!.id, revision.configuration, ...options]);
    let cache = caches.get(db.$client);
    if (!cache) caches.set(db.$client, (cache = { exact: new Map(), latest: new Map() }));
    const { exact, latest } = cache;

    const fresh = (e: CacheEntry) =>
      at.getTime() >= e.fromMs && (at.getTime() - e.fromMs < MAX_AGE_MS || realNowMs() - e.computedAtRealMs < PAGING_GRACE_MS);
    const servableStale = () => {
      if (!runOptions.serveStale || lineKey === null) return null;
      const e = latest.get(lineKey);
      return e && at.getTime() >= e.fromMs && realNowMs() - e.computedAtRealMs < STALE_FOR_MS ? e : null;
    };

    const kept = key === null ? undefined : exact.get(key);
    if (kept) {
      if (!kept.entry) {
        // being computed (a request before, or the warming): the last one meanwhile, if allowed
        const stale = servableStale();
        if (stale) return { ...stale, cached: true, stale: true };
      }
      const entry = kept.entry ?? (await kept.promise.catch(() => null));
      if (entry && fresh(entry)) {
        keepRecent(exact, key!, kept, CACHE_SIZE);
        return { ...entry, cached: true, stale: false };
      }
    }
    const stale = servableStale();
    const computing: Kept = { promise: forecastAt(input, at) };
    if (key !== null) keepRecent(exact, key, computing, CACHE_SIZE);
    computing.promise.then(
      (entry) => {
        computing.entry = entry;
        if (lineKey !== null) keepRecent(latest, lineKey, entry, CACHE_SIZE);
      },
      () => {
        if (key !== null && exact.get(key) === computing) exact.delete(key);
      },
    );
    if (stale) {
      runOptions.onBackgroundWork?.(computing.promise.catch(() => undefined));
      return { ...stale, cached: true, stale: true };
    }
    return { ...(await computing.promise), cached: false, stale: false };
  }

  async function forecastAt(input: ForecastRunInput, at: Date): Promise<CacheEntry> {
    const loadStart = performance.now();
    const org = await scope();
    if (!org) throw new AppError('NOT_FOUND', 'No organization is stored yet');
    const document = applyForecastOverrides(await loadPlanDocument(db, org.id, at), input.overrides);
    const parsed = validatePlanInput(document);
    if (!parsed.ok)
      throw new AppError(
        'INVALID_INPUT',
        'The what-if policy is not valid',
        parsed.problems.map((p) => ({ path: p.path, message: p.message })),
      );
    const options = await gatedForecastOptions(db, org, at, {
      targetVersion: input.targetVersion ?? defaultTargetVersion(parsed.input) ?? undefined,
      horizonDays: input.horizonDays,
      upgradeMinutes: input.upgradeMinutes,
      ignoreExclusions: input.overrides?.ignoreExclusions,
      ignoreFreeze: input.overrides?.ignoreFreeze,
    });
    const frozen = options.frozen ?? false;
    const exclusions = options.exclusions ?? [];
    const sectorRows = await listSectorRows(db, org.id);
    const depths = computeSectorDepths(sectorRows);
    const order = new Map(
      [...sectorRows]
        .sort((a, b) => (depths.get(a.name) ?? 0) - (depths.get(b.name) ?? 0) || a.position - b.position)
        .map((s, i) => [s.name, i]),
    );
    // identical concurrent requests share the same promise (the cache above)
    const t0 = performance.now();
    const result = await runForecastSliced(parsed.input, options);
    const t1 = performance.now();
    const rank = (c: ClusterForecast) =>
      c.sector === null ? Number.MAX_SAFE_INTEGER : (order.get(c.sector) ?? Number.MAX_SAFE_INTEGER - 1);
    const ordered = result.clusters.filter((c) => c.managed).sort((a, b) => rank(a) - rank(b) || a.cluster.localeCompare(b.cluster));
    const phasesMs = { load: Math.round(t0 - loadStart), simulate: Math.round(t1 - t0), order: Math.round(performance.now() - t1) };
    return {
      result,
      fromMs: at.getTime(),
      computedAtRealMs: realNowMs(),
      elapsedMs: phasesMs.simulate,
      phasesMs,
      frozen,
      exclusions: exclusions.length,
      ordered,
      order,
      depths,
    };
  }

  return {
    async run(input: ForecastRunInput, runOptions: ForecastRunOptions = {}): Promise<ForecastRunOutput> {
      if (offload) {
        // the organization is picked here, with the request's rights; the thread computes it
        const org = await scope();
        if (!org) throw new AppError('NOT_FOUND', 'No organization is stored yet');
        return offload.run(org.id, input, now().getTime());
      }
      const { result, elapsedMs, phasesMs, frozen, exclusions, ordered, order, depths, cached, stale } = await simulate(input, runOptions);
      const search = input.search?.trim().toLowerCase();
      const filtered =
        input.sector || search
          ? ordered.filter((c) => (!input.sector || c.sector === input.sector) && (!search || c.cluster.toLowerCase().includes(search)))
          : ordered;
      const rows = filtered.slice(input.offset, input.offset + input.limit);
      const versions = new Set<string>();
      for (const r of rows) {
        versions.add(r.startVersion);
        for (const u of r.upgrades) versions.add(u.version);
      }
      if (result.targetVersion) versions.add(result.targetVersion);
      return {
        from: result.from,
        until: result.until,
        targetVersion: result.targetVersion,
        upgradeMinutes: result.upgradeMinutes,
        stepMinutes: result.stepMinutes,
        frozen,
        exclusions,
        elapsedMs,
        phasesMs,
        cached,
        stale,
        stats: result.stats,
        managedClusters: ordered.length,
        reachedClusters: ordered.filter((c) => c.reachesTargetAt !== null).length,
        sectors: result.sectors
          .map((s) => ({ ...s, depth: depths.get(s.sector) ?? 0 }))
          .sort((a, b) => (order.get(a.sector) ?? 0) - (order.get(b.sector) ?? 0)),
        approvalGates: result.approvalGates,
        versions: [...versions].sort(compareVersions),
        total: filtered.length,
        offset: input.offset,
        rows,
      };
    },
  };
}

export type ForecastService = ReturnType<typeof createForecastService>;
