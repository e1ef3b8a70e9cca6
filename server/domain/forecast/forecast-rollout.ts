/**
 * Rollout forecast: runs the decision engine forward in simulated time.
 *
 * Each step calls the SAME `evaluateFleet` as the scheduler tick (engine plus gates: freeze,
 * maintenance exclusions, health gate) with `now` = the step time and feeds its result back:
 * decided upgrades become `currentUpgrade` (scheduled, started at nextRun, completed after
 * the assumed duration: the version changes and availableUpgrades shrinks to the remaining newer
 * candidates), cancelled upgrades are dropped, and the returned versionData (soak) is the next
 * step's input. Health stays as it is now for the whole forecast.
 *
 * What it must equal: a scheduler ticking on a fixed grid of `stepMinutes` that decides every
 * cluster at every tick (tests/property/evaluate-fleet.test.ts checks this against exactly that
 * loop). It gets there faster by visiting only the *interesting* ticks: between two ticks nothing
 * the engine looks at changes except soak (linear in time) and which schedules are within their
 * 2-hour window. Each cluster sleeps until the first tick at which its verdict could change — a
 * window opening, its soak crossing the threshold at today's rate (for each candidate the sector
 * rule lets through, not only the highest one the engine names), the tick from which its next
 * run leaves a maintenance exclusion, or any completion or release for the rest (mutex, sector,
 * versions) — and only awake clusters are decided. A completion's tick is visited, and the
 * tick before it soaks the versions left there, as the gridded scheduler would. Canaries
 * (plan/canaries.ts): each simulated completion in a canary sector becomes an upgrade result, so
 * the rest of the sector starts once its canaries completed and soaked the version; a cluster
 * waiting for the canaries' soak sleeps until it ends. Failures are not forecast (a canary failed
 * now stays unacknowledged: its version stays halted in its sector). Pure: no clock, no I/O.
 */
import { blockedReleasesFor, blockingPatternOf } from '../plan/blocked-versions';
import { boundExceeded, boundsForCluster } from '../plan/version-bounds';
import { compileSchedule, listRuns } from '../plan/cron-schedule';
import { SoakLedger } from '../plan/soak';
import { evaluateFleet, type FleetVersionView } from '../evaluation/evaluate-fleet';
import { engineOrderAfterMoves, engineOrderPositions, type ManagedCluster, type SectorTables } from '../plan/decide-upgrades';
import { MIN_LEAD_MS, WINDOW_MS } from '../plan/decide-upgrades';
import { DAY_MS, formatInstant, MINUTE_MS, parseInstant } from '../plan/time';
import type { Cluster, Decision, PlanInput, VersionData } from '../plan/types';
import type { UpgradeResult } from '../plan/canaries';
import {
  clusterLabelsOf,
  exclusionWindowOf,
  findExclusion,
  type ExclusionWindow,
  type GatedDecision,
  type GateState,
} from '../scheduling/apply-gates';
import { compareVersions } from '../version/version';

export const MAX_HORIZON_DAYS = 120;
export const DEFAULT_UPGRADE_MINUTES = 90;
export const DEFAULT_STEP_MINUTES = 10;

/** A period during which nothing starts: organization-wide, for one sector or one cluster. */
export type ForecastExclusion = {
  scope: 'organization' | 'sector' | 'cluster' | 'selector';
  /** sector or cluster name, or the label selector; absent for the organization */
  subject?: string | null;
  startsAt: string;
  endsAt: string;
  reason?: string;
};

export type ForecastOptions = {
  /** Version whose arrival is tracked per cluster and sector; absent = none. */
  targetVersion?: string;
  horizonDays: number;
  upgradeMinutes?: number;
  /** Tick grid of the simulated scheduler, in minutes (1..60). */
  stepMinutes?: number;
  exclusions?: ForecastExclusion[];
  /** Organization-wide freeze: nothing starts during the whole forecast. */
  frozen?: boolean;
  /** The scheduler's health gate: clusters with health issues get no new upgrade. */
  healthGate?: boolean;
  /** Per cluster: why it is unhealthy now (assumed to last the whole forecast). */
  healthIssues?: ReadonlyMap<string, readonly string[]>;
  /** Unacknowledged upgrade failures and what they halt (assumed unacknowledged the whole forecast). */
  halts?: GateState['halts'];
  /** Per cluster: provider version gates not agreed to (assumed not agreed to the whole forecast). */
  versionGates?: GateState['versionGates'];
  /** Per cluster: operators and removed-API use that hold some upgrades (assumed unchanged the whole forecast). */
  inhibitors?: GateState['inhibitors'];
  /** The stored graph's routes: a cluster with a target more than one minor away follows one, hop by hop. */
  routes?: GateState['routes'];
  /** Safety net against pathological inputs. */
  maxEngineRuns?: number;
  /**
   * Decide every cluster a completion wakes, its window shut or not (the simulation before it let
   * those sleep until their window opens): the reference the tests compare the shortcut with.
   */
  wakeEveryoneAtCompletion?: boolean;
};

export type ForecastUpgrade = {
  from: string;
  version: string;
  /** UTC instants */
  start: string;
  end: string;
  /** already scheduled or running when the forecast began */
  inFlight: boolean;
  /**
   * an EUS-to-EUS run taken control-plane-only (lifecycle.eusControlPlaneOnly): one attempt through
   * these releases to `version`, the workers rolled once at its end
   */
  via?: string[];
};

export type ClusterForecast = {
  cluster: string;
  sector: string | null;
  managed: boolean;
  startVersion: string;
  finalVersion: string;
  upgrades: ForecastUpgrade[];
  /** when the cluster runs >= targetVersion (its start when it already did); null = not within the horizon */
  reachesTargetAt: string | null;
  /** the target (or something newer) is among the versions its channel offers, or it already runs it */
  targetOffered: boolean;
  /** the engine's last verdict in the forecast, for "why not?" */
  lastDecision: { action: Decision['action']; reason?: GatedDecision['reason']; message: string } | null;
};

export type SectorForecast = {
  sector: string;
  clusters: number;
  /** clusters on >= target by the end of the horizon */
  reached: number;
  /** clusters whose channel never offers the target */
  notOffered: number;
  /** when every cluster of the sector runs >= target; null = not within the horizon */
  allReachAt: string | null;
};

/**
 * An approval gate the forecast reached and left pending (approvals are taken as they are now):
 * the rollout of `version` stops there; approved now, its first upgrade would start at `earliest`.
 */
export type PendingApprovalGate = {
  kind: 'before' | 'after';
  /** the sector whose gate it is */
  sector: string;
  version: string;
  /** the first slot a held cluster had when only the approval kept it (UTC) */
  earliest: string;
  /** the sectors and clusters it holds */
  heldSectors: string[];
  clusters: number;
};

export type ForecastResult = {
  from: string;
  until: string;
  targetVersion: string | null;
  stepMinutes: number;
  upgradeMinutes: number;
  clusters: ClusterForecast[];
  sectors: SectorForecast[];
  /** approval gates the rollout waits at, earliest first (empty without gates) */
  approvalGates: PendingApprovalGate[];
  /** `decided`: cluster verdicts the engine gave over all runs (what a run costs grows with it) */
  stats: { engineRuns: number; decided: number; upgrades: number; truncated: boolean };
};

type SimCluster = {
  /** position in `input.clusters` */
  index: number;
  base: Cluster;
  /** mutable state handed to the engine */
  state: Cluster;
  /** all candidates ever offered (the channel's newer versions), for after a completion */
  offered: string[];
  sector: string | null;
  upgrades: ForecastUpgrade[];
  /** completion time of the current upgrade */
  endsAt: number | null;
  /** the current upgrade is an EUS-to-EUS run: where it ends, and the channel it runs on */
  eusRun: { end: string; channel: string | null } | null;
  eligibleAt: number;
  reachedAt: number | null;
  /** the engine's last verdict (shaped for the result at the end: one per cluster and step otherwise) */
  lastDecision: GatedDecision | null;
  /** compiled schedule (null: invalid or suspended), computed once */
  compiled: ReturnType<typeof compileSchedule>;
};

/** The newest version any managed cluster is offered (unblocked by the organization), or null. */
export function defaultTargetVersion(input: PlanInput): string | null {
  let best: string | null = null;
  for (const c of input.clusters) {
    if (!c.upgradePolicy) continue;
    const { conditions } = c.upgradePolicy;
    const bounds = boundsForCluster(input.organization, conditions);
    for (const v of c.availableUpgrades) {
      if (blockingPatternOf(v, input.organization, conditions.blockedVersions) !== undefined) continue;
      // a version above the cluster's target or cap is never taken (version-bounds.ts)
      if (boundExceeded(v, bounds) !== undefined) continue;
      if (best === null || compareVersions(v, best) > 0) best = v;
    }
  }
  return best;
}

/**
 * A forecast that runs in slices (`advance`), so a server can yield between slices instead of
 * blocking for a whole large simulation; `finish` builds the result.
 */
export type ForecastSimulation = { advance: (maxEngineRuns: number) => boolean; finish: () => ForecastResult };

/**
 * Simulates the rollout from `input.now` for `options.horizonDays` days, in slices. `input` must
 * be a validated PlanInput; it is not modified.
 */
export function startForecast(input: PlanInput, options: ForecastOptions): ForecastSimulation {
  const fromMs = parseInstant(input.now);
  if (fromMs === null) throw new Error(`PlanInput.now is not an instant: ${input.now}`);
  const horizonDays = Math.min(Math.max(options.horizonDays, 0), MAX_HORIZON_DAYS);
  const untilMs = fromMs + horizonDays * DAY_MS;
  const durationMs = Math.max(1, options.upgradeMinutes ?? DEFAULT_UPGRADE_MINUTES) * MINUTE_MS;
  const stepMinutes = Math.min(60, Math.max(1, Math.round(options.stepMinutes ?? DEFAULT_STEP_MINUTES)));
  const stepMs = stepMinutes * MINUTE_MS;
  const maxRuns = options.maxEngineRuns ?? 50_000;
  const target = options.targetVersion ?? null;
  const ceilGrid = (ms: number) => Math.ceil(ms / stepMs) * stepMs;

  const exclusions: ExclusionWindow[] = (options.exclusions ?? [])
    .map((e) =>
      exclusionWindowOf({
        scope: e.scope,
        subject: e.subject ?? null,
        startsAt: parseInstant(e.startsAt) ?? 0,
        endsAt: parseInstant(e.endsAt) ?? 0,
        reason: e.reason ?? '',
      }),
    )
    .filter((e) => e.endsAt > e.startsAt && e.endsAt > fromMs);
  const labelled = exclusions.some((e) => e.scope === 'selector');
  const gates: GateState = {
    frozen: options.frozen ?? false,
    exclusions,
    ...(labelled ? { clusterLabels: clusterLabelsOf(input.clusters) } : {}),
    healthGate: options.healthGate ?? false,
    healthIssues: options.healthIssues ?? new Map(),
    ...(options.halts ? { halts: options.halts } : {}),
    ...(options.versionGates ? { versionGates: options.versionGates } : {}),
    ...(options.inhibitors ? { inhibitors: options.inhibitors } : {}),
    ...(options.routes ? { routes: options.routes } : {}),
  };

  const sims: SimCluster[] = input.clusters.map((c, index) => {
    const state: Cluster = { ...c, availableUpgrades: [...c.availableUpgrades] };
    const sector = c.upgradePolicy?.conditions.sector ?? null;
    const upgrades: ForecastUpgrade[] = [];
    let endsAt: number | null = null;
    if (c.currentUpgrade && c.upgradePolicy) {
      const start = parseInstant(c.currentUpgrade.nextRun) ?? fromMs;
      endsAt = start + durationMs;
      upgrades.push({
        from: c.version,
        version: c.currentUpgrade.version,
        start: formatInstant(start),
        end: formatInstant(endsAt),
        inFlight: true,
      });
    }
    const reached = target !== null && compareVersions(c.version, target) >= 0 ? fromMs : null;
    return {
      index,
      base: c,
      state,
      offered: c.availableUpgrades.filter((v) => compareVersions(v, c.version) > 0),
      sector,
      upgrades,
      endsAt,
      eusRun: null,
      eligibleAt: c.upgradePolicy ? fromMs : Infinity,
      reachedAt: reached,
      lastDecision: null,
      compiled: c.upgradePolicy && !c.upgradePolicy.schedule.suspend ? compileSchedule(c.upgradePolicy.schedule) : null,
    };
  });
  const byName = new Map(sims.map((s) => [s.base.name, s]));
  const managed = sims.filter((s) => s.base.upgradePolicy !== undefined);
  /** the managed clusters with an upgrade in flight (the ones with `endsAt`): a few among thousands */
  const inFlight = new Set(managed.filter((s) => s.endsAt !== null));

  let versionData: VersionData = input.versionData;
  // the canary sectors' completions the simulation adds to the input's (canaries.ts)
  const canarySectors = new Set(input.organization.sectors.filter((x) => x.canary).map((x) => x.name));
  let upgradeResults: UpgradeResult[] | undefined = input.upgradeResults;
  // Kept between engine runs (the engine would derive them from the clusters at every step): the
  // soak ledger follows each completion; the sector tables are rebuilt after one.
  let ledger: SoakLedger | null = null;
  let sectorTables: SectorTables = {};
  let engineRuns = 0;
  let decided = 0;
  let upgradesStarted = 0;
  let truncated = false;

  /** What the graph offers at `version` when the cluster took it as a hop of its route, and the channel it switched to; null otherwise. */
  const routedOffer = (c: Cluster, version: string): { offered: string[]; channel: string | null } | null => {
    const routes = options.routes;
    if (!routes || !c.upgradePolicy) return null;
    const { conditions } = c.upgradePolicy;
    const route = routes(
      c,
      boundsForCluster(input.organization, conditions),
      blockedReleasesFor(input.organization, conditions.blockedVersions),
    );
    if (route?.kind !== 'route' || route.nextHop !== version) return null;
    const offered = routes.successors(version);
    return offered ? { offered, channel: route.channel } : null;
  };

  /** after an EUS-to-EUS run: what the graph recommends from its last release, on the run's channel */
  const eusRunOffer = (run: { end: string; channel: string | null }): { offered: string[]; channel: string | null } | null => {
    const offered = options.routes?.successors(run.end);
    return offered ? { offered, channel: run.channel } : null;
  };

  /**
   * The canary sectors a completion gave a new result at this step: their scheduled upgrades are
   * decided again (a canary's new completion restarts its soak, and the engine then cancels the
   * others' scheduled upgrades as the scheduler would).
   */
  const canarySectorsWithNews = new Set<string>();
  /** the clusters (positions in `sims`) whose version changed since the engine's order was taken */
  const movedSinceOrder = new Set<number>();

  /** Applies completions and start transitions due at `t`; returns whether anything completed. */
  const advanceUpgrades = (t: number): boolean => {
    let completed = false;
    canarySectorsWithNews.clear();
    // in input order, as the records of completions (soak reporters, upgrade results) are kept
    for (const s of [...inFlight].sort((a, b) => a.index - b.index)) {
      const cu = s.state.currentUpgrade;
      if (!cu) continue;
      if (s.endsAt !== null && s.endsAt <= t) {
        // an EUS-to-EUS run ends on the route's last release (the attempt is held as its first hop meanwhile)
        const version = s.eusRun?.end ?? cu.version;
        const from = s.state.version;
        // a hop of a route (into another minor's channel) is offered what the graph recommends from there
        const routed = s.eusRun ? eusRunOffer(s.eusRun) : routedOffer(s.state, version);
        s.eusRun = null;
        if (routed) s.offered = routed.offered;
        s.state = {
          ...s.state,
          version,
          availableUpgrades: s.offered.filter((v) => compareVersions(v, version) > 0),
          ...(routed?.channel ? { channel: routed.channel } : {}),
        };
        delete s.state.currentUpgrade;
        movedSinceOrder.add(s.index);
        ledger?.moved(s.state, from);
        if (s.sector !== null && canarySectors.has(s.sector)) {
          upgradeResults = [...(upgradeResults ?? []), { cluster: s.base.name, version, outcome: 'completed', at: s.endsAt }];
          canarySectorsWithNews.add(s.sector);
        }
        if (target !== null && s.reachedAt === null && compareVersions(version, target) >= 0) s.reachedAt = s.endsAt;
        s.endsAt = null;
        inFlight.delete(s);
        completed = true;
      } else if (cu.state === 'scheduled' && (parseInstant(cu.nextRun) ?? 0) <= t) {
        s.state = { ...s.state, currentUpgrade: { ...cu, state: 'started' } };
      }
    }
    return completed;
  };

  /**
   * The earliest time one of the cluster's candidates may pass the version rules, for a cluster
   * held by them (NOT_SOAKED, SECTOR_BEHIND): a candidate its sector rule holds back waits for a
   * completion (which wakes everyone); the others when their soak crosses the threshold at
   * today's rate. The engine reports only the highest candidate's failure, so every candidate is
   * looked at: a lower one may be soaking while the highest waits for a sector.
   */
  const nextVersionChance = (s: SimCluster, t: number, soak: SoakLedger, view: FleetVersionView): number => {
    if (!s.state.upgradePolicy) return Infinity;
    let best = Infinity;
    for (const check of view.versionChecks(s.state as ManagedCluster)) {
      // an approval is not given within the forecast: a version awaiting one never passes
      if (check.blockedBy !== undefined || check.exceeds !== undefined || !check.sector.pass || check.awaits || check.held) continue;
      // a failed canary is not acknowledged within the forecast; canaries not there yet: a completion wakes everyone
      if (check.canary && (check.canary.kind === 'failed' || check.canary.readyAt === null)) continue;
      let at = check.canary?.kind === 'waiting' && check.canary.readyAt !== null ? Math.max(t, check.canary.readyAt) : t;
      for (const p of check.soak.perWorkload) {
        if (p.pass || p.required === null) continue;
        const rate = soak.reporters(check.version, p.workload);
        if (rate <= 0) {
          at = Infinity;
          break;
        }
        // one second of slack so float sums are past the threshold when we look again
        at = Math.max(at, t + ((p.required - p.soaked) / rate) * DAY_MS + 1000);
      }
      best = Math.min(best, at);
    }
    return best;
  };

  /**
   * When a cluster whose next run falls in a maintenance exclusion may next be given an upgrade:
   * the tick from which the first run after the lead time is the first one at or after the
   * exclusion's end (every run before it lies inside the exclusion), and not before that run
   * enters the 2-hour window. Per schedule and exclusion end.
   */
  const exclusionWake = new Map<string, number>();
  const afterExclusion = (s: SimCluster, t: number): number => {
    const compiled = s.compiled;
    const run = compiled ? listRuns(compiled, t + MIN_LEAD_MS, 1, t + WINDOW_MS)[0] : undefined;
    const excl = run === undefined ? undefined : findExclusion(exclusions, s.base.name, s.sector ?? undefined, run, s.base.labels);
    if (!compiled || !excl) return t;
    const key = `${compiled.key}\u0000${excl.endsAt}`;
    let wake = exclusionWake.get(key);
    if (wake === undefined) {
      const earliest = excl.endsAt - WINDOW_MS;
      // runs at most a window and a lead before the end: a schedule firing every minute has ~126
      const before = listRuns(compiled, earliest - MIN_LEAD_MS - 1, 200, excl.endsAt - 1);
      const last = before[before.length - 1];
      wake = last === undefined ? earliest : Math.max(earliest, last - MIN_LEAD_MS);
      exclusionWake.set(key, wake);
    }
    return Math.max(t, wake);
  };

  // The engine's order of the managed clusters (orderManagedClusters: by version, then soakDays,
  // then input order), kept as simulated clusters: only a completion changes a version.
  let engineOrder: SimCluster[] | null = null;
  let orderPositions: Int32Array | null = null;
  const orderOfSims = (): SimCluster[] => {
    const states = sims.map((s) => s.state);
    orderPositions =
      orderPositions === null ? engineOrderPositions(states) : engineOrderAfterMoves(states, orderPositions, movedSinceOrder);
    movedSinceOrder.clear();
    return Array.from(orderPositions, (i) => sims[i]!);
  };

  // approval gates and notBefore (sector-gates.ts): where the rollout waits for an operator
  const notBeforeOf = new Map(input.organization.sectors.flatMap((x) => (x.notBefore ? [[x.name, x.notBefore.at] as const] : [])));
  const pendingGates = new Map<
    string,
    { gate: Omit<PendingApprovalGate, 'earliest' | 'heldSectors' | 'clusters'>; earliest: number; held: Set<string>; clusters: Set<string> }
  >();
  const notePendingApproval = (s: SimCluster, d: GatedDecision, t: number, view: FleetVersionView) => {
    const awaits =
      d.version && s.state.upgradePolicy
        ? view.versionChecks(s.state as ManagedCluster).find((v) => v.version === d.version)?.awaits
        : undefined;
    if (!awaits) return;
    const key = `${awaits.kind}\u0000${awaits.sector}\u0000${awaits.version}`;
    let entry = pendingGates.get(key);
    if (!entry)
      pendingGates.set(
        key,
        (entry = {
          gate: { kind: awaits.kind, sector: awaits.sector, version: awaits.version },
          earliest: Infinity,
          held: new Set(),
          clusters: new Set(),
        }),
      );
    const slot = s.compiled ? (listRuns(s.compiled, t + MIN_LEAD_MS, 1, t + WINDOW_MS)[0] ?? t) : t;
    entry.earliest = Math.min(entry.earliest, slot);
    if (s.sector) entry.held.add(s.sector);
    entry.clusters.add(s.base.name);
  };

  /** Per schedule and grid tick `g0`: the first tick from `g0` on whose window holds a run (Infinity: none within the horizon). */
  const windowTicks = new Map<string, Map<number, number>>();
  const windowTickFrom = (compiled: NonNullable<SimCluster['compiled']>, g0: number): number => {
    let bySchedule = windowTicks.get(compiled.key);
    if (!bySchedule) windowTicks.set(compiled.key, (bySchedule = new Map<number, number>()));
    let tick = bySchedule.get(g0);
    if (tick === undefined) {
      const run = listRuns(compiled, g0 + MIN_LEAD_MS, 1, untilMs + WINDOW_MS)[0];
      tick = run === undefined ? Infinity : Math.max(g0, ceilGrid(run - WINDOW_MS));
      bySchedule.set(g0, tick);
    }
    return tick;
  };

  /**
   * When a cluster asleep at a completion's tick `t` (no upgrade in flight) is next decided: at
   * `t` — a completion may change its verdict — unless its window is shut at `t` and opens within
   * the horizon. Then the engine could only say OUTSIDE_WINDOW there (its first rule after an
   * upgrade in flight, a suspended schedule and a sector's notBefore, none of which applies), a
   * skip that takes no mutex, and it would sleep until that window's tick, where it is decided
   * anyway (so its last verdict is the same too): it sleeps until then without the engine run.
   * Most of a large fleet is asleep at any completion, with its window shut.
   */
  const wakeAtCompletion = (s: SimCluster, t: number): number => {
    if (!s.compiled || options.wakeEveryoneAtCompletion) return t;
    const notBefore = s.sector === null ? undefined : notBeforeOf.get(s.sector);
    if (notBefore !== undefined && t < notBefore) return t;
    const tick = windowTickFrom(s.compiled, t);
    return tick > t && tick <= untilMs ? tick : t;
  };

  let t = fromMs;
  let first = true;
  let done = false;

  /** Runs at most `slice` engine steps; returns true when the simulation is over. */
  const advance = (slice: number): boolean => {
    let ran = 0;
    while (!done && ran < slice) {
      if (t > untilMs) {
        done = true;
        break;
      }
      ran++;
      if (engineRuns >= maxRuns) {
        truncated = true;
        done = true;
        break;
      }
      const reset = first ? false : advanceUpgrades(t);
      if (reset) sectorTables = {};
      if (reset) for (const s of managed) if (!s.state.currentUpgrade && s.eligibleAt > t) s.eligibleAt = wakeAtCompletion(s, t);

      // Only awake clusters are decided: an asleep one's verdict cannot have changed since it was
      // given (that is what put it to sleep), and a skip takes no mutex. The first step decides
      // everyone (blocked or gated upgrades in flight are cancelled there).
      if (reset || engineOrder === null) engineOrder = orderOfSims();
      const order: ManagedCluster[] = [];
      const awake: ManagedCluster[] = [];
      for (const s of engineOrder) {
        const state = s.state as ManagedCluster;
        order.push(state);
        if (
          first ||
          (!state.currentUpgrade && s.eligibleAt <= t) ||
          (state.currentUpgrade?.state === 'scheduled' && s.sector !== null && canarySectorsWithNews.has(s.sector))
        )
          awake.push(state);
      }
      ledger ??= new SoakLedger(order);
      const step = { ...input, now: formatInstant(t), clusters: sims.map((s) => s.state), versionData };
      if (upgradeResults) step.upgradeResults = upgradeResults;
      const result = evaluateFleet(step, gates, {
        decideOnly: awake,
        order,
        kept: { soak: ledger, sectorTables },
      });
      engineRuns++;
      decided += awake.length;
      versionData = result.versionData;

      let released = false;
      for (const d of result.decisions) {
        const s = byName.get(d.cluster);
        if (!s) continue;
        s.lastDecision = d;
        if (d.action === 'upgrade' && d.version && d.nextRun) {
          const start = parseInstant(d.nextRun) ?? t;
          s.state = { ...s.state, currentUpgrade: { version: d.version, nextRun: d.nextRun, state: 'scheduled' } };
          // An EUS-to-EUS run is one attempt through every hop of its route (lifecycle/eus-procedure.ts):
          // held as its first hop, as the scheduler holds it, and done after each control-plane hop
          // took an upgrade's time (the workers roll once, within the last).
          const eusRoute = d.eusRoute && d.eusRoute.length > 2 ? d.eusRoute : null;
          s.eusRun = eusRoute ? { end: eusRoute[eusRoute.length - 1]!, channel: d.channel ?? null } : null;
          s.endsAt = start + durationMs * (eusRoute ? eusRoute.length - 1 : 1);
          inFlight.add(s);
          s.upgrades.push({
            from: s.state.version,
            version: s.eusRun?.end ?? d.version,
            start: d.nextRun,
            end: formatInstant(s.endsAt),
            inFlight: false,
            ...(eusRoute ? { via: eusRoute.slice(1, -1) } : {}),
          });
          s.eligibleAt = Infinity;
          upgradesStarted++;
        } else if (d.action === 'cancel') {
          s.state = { ...s.state };
          delete s.state.currentUpgrade;
          s.endsAt = null;
          s.eusRun = null;
          inFlight.delete(s);
          const last = s.upgrades[s.upgrades.length - 1];
          if (last?.inFlight) s.upgrades.pop();
          s.eligibleAt = t;
          released = true;
        } else {
          switch (d.reason) {
            // asleep until an upgrade completes or is released (freeze and health last the whole forecast)
            case 'UPGRADE_PENDING':
            case 'MUTEX_LOCKED':
            case 'MAX_PARALLEL_UPGRADES':
            case 'NO_AVAILABLE_UPGRADES':
            case 'NO_ROUTE':
            case 'VERSION_BLOCKED':
            case 'AT_TARGET':
            case 'ABOVE_CAP':
            case 'MAX_CONCURRENT_UPGRADES':
            case 'SUSPENDED':
            case 'FROZEN':
            case 'UNHEALTHY':
            case 'HALTED_BY_FAILURE':
            case 'CANARY_FAILED':
              s.eligibleAt = Infinity;
              break;
            case 'EXCLUDED':
              s.eligibleAt = afterExclusion(s, t);
              break;
            case 'AWAITING_APPROVAL':
              notePendingApproval(s, d, t, result);
              s.eligibleAt = nextVersionChance(s, t, ledger, result);
              break;
            // (the last three: held by the cluster itself for the whole forecast; a lower candidate may still soak)
            case 'NOT_SOAKED':
            case 'SECTOR_BEHIND':
            case 'AWAITING_CANARY':
            case 'VERSION_GATE':
            case 'OPERATOR_INCOMPATIBLE':
            case 'REMOVED_API_IN_USE':
              s.eligibleAt = nextVersionChance(s, t, ledger, result);
              break;
            case 'NOT_BEFORE':
              // no run before the sector's notBefore can be in the window before this tick
              s.eligibleAt = Math.max(t + 1, (notBeforeOf.get(s.sector ?? '') ?? t) - WINDOW_MS);
              break;
            default:
              s.eligibleAt = t;
          }
        }
      }
      if (released) for (const s of managed) if (!s.state.currentUpgrade) s.eligibleAt = Math.min(s.eligibleAt, t);

      // Next interesting tick: a completion (applied at the first tick at or after it), or a
      // window opening for an awake cluster.
      let next = Infinity;
      // (the first tick after `t` is on the grid even when `t`, the forecast's start, is not)
      for (const s of inFlight) next = Math.min(next, Math.max(ceilGrid(s.endsAt!), ceilGrid(t + 1)));
      const completionTick = next;
      for (const s of managed) {
        if (s.state.currentUpgrade || s.eligibleAt === Infinity) continue;
        const compiled = s.compiled;
        if (!compiled) continue;
        const g0 = Math.max(ceilGrid(t + 1), ceilGrid(s.eligibleAt));
        if (g0 >= next) continue;
        const tick = windowTickFrom(compiled, g0);
        // until its window opens the engine can only say OUTSIDE_WINDOW: asleep till then
        s.eligibleAt = tick;
        next = Math.min(next, tick);
      }
      first = false;
      if (next === Infinity) {
        done = true;
        break;
      }
      // A scheduler ticking on the grid also runs at the tick just before a completion is applied:
      // the engine credits the time since its last run to the version each cluster runs *now*, so
      // that tick soaks the old version up to there. No decision can change at it (or it would be
      // `next`), so only the soak is accumulated, by the engine's own rule.
      const soakTick = completionTick - stepMs;
      if (next === completionTick && soakTick > t && soakTick <= untilMs) {
        versionData = ledger.accumulate(versionData, soakTick);
      }
      t = next;
    }
    return done;
  };

  /** the targets and caps of a cluster: a version above them is never taken, so never "offered" */
  const boundsOfSim = (s: SimCluster) =>
    s.base.upgradePolicy ? boundsForCluster(input.organization, s.base.upgradePolicy.conditions) : [];

  const finish = (): ForecastResult => {
    // Completions between the last engine run and the horizon still count.
    advanceUpgrades(untilMs);

    const clusters: ClusterForecast[] = sims.map((s) => ({
      cluster: s.base.name,
      sector: s.sector,
      managed: s.base.upgradePolicy !== undefined,
      startVersion: s.base.version,
      finalVersion: s.state.version,
      upgrades: s.upgrades,
      reachesTargetAt: s.reachedAt === null ? null : formatInstant(s.reachedAt),
      targetOffered:
        target !== null &&
        (compareVersions(s.base.version, target) >= 0 ||
          s.offered.some((v) => compareVersions(v, target) >= 0 && boundExceeded(v, boundsOfSim(s)) === undefined)),
      lastDecision:
        s.lastDecision === null
          ? null
          : {
              action: s.lastDecision.action,
              ...(s.lastDecision.reason ? { reason: s.lastDecision.reason } : {}),
              message: s.lastDecision.message,
            },
    }));

    const sectorNames = input.organization.sectors.map((x) => x.name);
    const sectors: SectorForecast[] = sectorNames.map((name) => {
      const members = managed.filter((s) => s.sector === name);
      const reached = members.filter((s) => s.reachedAt !== null);
      const notOffered = clusters.filter((c) => c.managed && c.sector === name && !c.targetOffered).length;
      const all = target !== null && members.length > 0 && reached.length === members.length;
      return {
        sector: name,
        clusters: members.length,
        reached: reached.length,
        notOffered: target === null ? 0 : notOffered,
        allReachAt: all ? formatInstant(Math.max(...reached.map((s) => s.reachedAt as number))) : null,
      };
    });

    return {
      from: formatInstant(fromMs),
      until: formatInstant(untilMs),
      targetVersion: target,
      stepMinutes,
      upgradeMinutes: durationMs / MINUTE_MS,
      clusters,
      sectors,
      approvalGates: [...pendingGates.values()]
        .sort((a, b) => a.earliest - b.earliest)
        .map((e) => ({ ...e.gate, earliest: formatInstant(e.earliest), heldSectors: [...e.held].sort(), clusters: e.clusters.size })),
      stats: { engineRuns, decided, upgrades: upgradesStarted, truncated },
    };
  };

  return { advance, finish };
}

/** Simulates the rollout from `input.now` for `options.horizonDays` days in one go. */
export function forecastRollout(input: PlanInput, options: ForecastOptions): ForecastResult {
  const sim = startForecast(input, options);
  while (!sim.advance(Number.POSITIVE_INFINITY));
  return sim.finish();
}
