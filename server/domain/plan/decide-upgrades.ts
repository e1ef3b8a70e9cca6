/**
 * The upgrade decision engine (contracts/plan.md "What the engine does, in order").
 *
 * 1. Accumulate soak (soak.ts).
 * 2. Order managed clusters by current version (semver), then policy soakDays (absent = 0), then
 *    input order; the order gives priority when clusters share a mutex.
 * 3. A cluster holds its mutexes while it has a currentUpgrade and, within this run, once it is
 *    given an upgrade (a cancelled upgrade still holds them for this run).
 * 4. For each cluster the first rule that applies decides: pending/cancel, suspended, the
 *    sector's notBefore, window, mutexes (or the sector's maxParallelUpgrades), version (blocked,
 *    bound, sector, soak, canaries, approval), upgrade. notBefore, canaries (canaries.ts) and
 *    approval gates (sector-gates.ts) act only where a sector declares them.
 *
 * Everything per run is precomputed or memoized (sector minimum versions, next run per schedule,
 * regex results), so a run is O(clusters × (workloads + candidate versions)), not quadratic.
 */
import { blockedReleasesFor, blockingPatternOf } from './blocked-versions';
import { compileSchedule, describeSchedule, listRuns } from './cron-schedule';
import { accumulateSoak, type SoakLedger } from './soak';
import { boundExceeded, boundsForCluster, describeBound, reachesBound, type AppliedBound } from './version-bounds';
import { describeRoute, type RouteFinder, type RouteVerdict } from './route-following';
import { isEusToEusRoute } from '../lifecycle/eus-procedure';
import { formatInstant, HOUR_MS, MINUTE_MS, parseInstant } from './time';
import {
  afterGatedSectors,
  approvalSet,
  describeApprovalWait,
  describeNotBefore,
  unapprovedGate,
  type ApprovalWait,
  type NotBefore,
} from './sector-gates';
import {
  canaryHold,
  canaryPoliciesOf,
  canarySetsOf,
  describeCanaryHold,
  indexResults,
  type CanaryHold,
  type CanarySet,
  type UpgradeResult,
} from './canaries';
import type { Cluster, Decision, DecisionReason, PlanInput, PlanResult, Schedule, Sector, UpgradePolicy, VersionData } from './types';
import { compareVersions } from '../version/version';

/** Cluster Service refuses upgrades scheduled less than 5 minutes ahead; AUS uses 6. */
export const MIN_LEAD_MS = 6 * MINUTE_MS;
/** An upgrade is only scheduled when the next run is at most this far from now. */
export const WINDOW_MS = 2 * HOUR_MS;

export type ManagedCluster = Cluster & { upgradePolicy: UpgradePolicy };

type Holder = { name: string; sector?: string };

export type SectorMin = { version: string; cluster: string; sector: string };

export type CheckResult = { pass: true } | { pass: false; reason: DecisionReason; message: string };

export type VersionCheck = {
  version: string;
  blockedBy?: string;
  /** the target or cap the version is above (version-bounds.ts): never taken */
  exceeds?: AppliedBound;
  sector: { pass: boolean; message: string; required?: SectorMin };
  soak: { pass: boolean; message: string; perWorkload: { workload: string; soaked: number; required: number | null; pass: boolean }[] };
  /** the approval gate the version waits for in the cluster's sector; absent when none applies or all are approved */
  awaits?: ApprovalWait;
  /** what the sector's canaries hold the version for (a failure, or a completion and soak to wait for); absent: nothing */
  canary?: CanaryHold;
  /** what the cluster itself holds the version for (a provider version gate, an operator, a removed API); absent: nothing */
  held?: CandidateHold;
};

/** A candidate the cluster itself cannot take yet, as its provider reports (facts, not policy). */
export type CandidateHold = { reason: 'VERSION_GATE' | 'OPERATOR_INCOMPATIBLE' | 'REMOVED_API_IN_USE'; message: string };
/**
 * Per cluster and candidate: the hold, or null. The engine skips a held candidate as it skips a
 * blocked one, so a lower candidate the cluster can take (a z-stream below a gated minor) is taken
 * instead; the rules live in server/domain/lifecycle (gates.ts, inhibitors.ts).
 */
export type CandidateHolds = (c: ManagedCluster, version: string) => CandidateHold | null;

/** Rounds half to even (Python's `round`): 2.5 → 2, 3.5 → 4. Exact for P% × n with integers. */
export function percentOfRoundedHalfEven(percent: number, n: number): number {
  const scaled = percent * n; // result = scaled / 100
  const floor = Math.floor(scaled / 100);
  const rem = scaled - floor * 100;
  if (rem > 50) return floor + 1;
  if (rem < 50) return floor;
  return floor % 2 === 0 ? floor : floor + 1;
}

/** Whether a version soaked `soaked` days for a workload meets the policy's soakDays (`required`; null: no soak condition). */
function soakMet(soaked: number, required: number | null): boolean {
  return required === null || soaked >= required;
}

function soakDaysOf(c: ManagedCluster): number {
  return c.upgradePolicy.conditions.soakDays ?? 0;
}

/** Orders managed clusters: version ascending, then soakDays ascending, then input order. */
export function orderManagedClusters(clusters: readonly Cluster[]): ManagedCluster[] {
  return Array.from(engineOrderPositions(clusters), (i) => clusters[i] as ManagedCluster);
}

/**
 * The positions in `clusters` of its managed clusters, in the engine's order (orderManagedClusters):
 * for a caller keeping its own record per cluster, which it can then order without a lookup.
 */
export function engineOrderPositions(clusters: readonly Cluster[]): Int32Array {
  // A fleet runs a few dozen distinct versions and soakDays values: rank those once, then place
  // the clusters by (version rank, soakDays rank) with a stable counting sort — linear, and
  // cheap enough for the forecast, which orders the whole fleet after every completion.
  const versionRank = ranksOf(clusters, (c) => c.version, compareVersions);
  const soakRank = ranksOf(
    clusters,
    (c) => soakDaysOf(c as ManagedCluster),
    (a, b) => a - b,
  );
  const soakKinds = soakRank.size;
  const keys = new Int32Array(clusters.length).fill(-1);
  let kinds = 0;
  clusters.forEach((c, i) => {
    if (c.upgradePolicy === undefined) return;
    const key = versionRank.get(c.version)! * soakKinds + soakRank.get(soakDaysOf(c as ManagedCluster))!;
    keys[i] = key;
    kinds = Math.max(kinds, key + 1);
  });
  const starts = new Int32Array(kinds + 1);
  for (const key of keys) if (key >= 0) starts[key + 1]!++;
  for (let k = 1; k <= kinds; k++) starts[k]! += starts[k - 1]!;
  const positions = new Int32Array(starts[kinds]!);
  keys.forEach((key, i) => {
    if (key >= 0) positions[starts[key]!++] = i;
  });
  return positions;
}

/**
 * engineOrderPositions after the clusters at the positions `moved` changed version, given the
 * order before (`previous`, of the same clusters): the others keep their relative order (their
 * keys did not change), the moved ones are sorted by the engine's key and merged in. For the
 * forecast, which reorders the whole fleet after every completion while only a few clusters moved.
 */
export function engineOrderAfterMoves(clusters: readonly Cluster[], previous: Int32Array, moved: ReadonlySet<number>): Int32Array {
  if (moved.size === 0) return previous;
  const before = (i: number, j: number): boolean => {
    const a = clusters[i] as ManagedCluster;
    const b = clusters[j] as ManagedCluster;
    return (compareVersions(a.version, b.version) || soakDaysOf(a) - soakDaysOf(b) || i - j) < 0;
  };
  const movers = [...moved].filter((i) => clusters[i]?.upgradePolicy !== undefined).sort((i, j) => (before(i, j) ? -1 : 1));
  const out = new Int32Array(previous.length);
  let n = 0;
  let m = 0;
  for (const i of previous) {
    if (moved.has(i)) continue;
    while (m < movers.length && before(movers[m]!, i)) out[n++] = movers[m++]!;
    out[n++] = i;
  }
  while (m < movers.length) out[n++] = movers[m++]!;
  return out;
}

/** Dense ranks of the managed clusters' values of `valueOf` (values comparing equal share one). */
function ranksOf<T>(clusters: readonly Cluster[], valueOf: (c: Cluster) => T, compare: (a: T, b: T) => number): Map<T, number> {
  const distinct = new Set<T>();
  for (const c of clusters) if (c.upgradePolicy !== undefined) distinct.add(valueOf(c));
  const sorted = [...distinct].sort(compare);
  const rank = new Map<T, number>();
  let dense = -1;
  sorted.forEach((v, i) => {
    if (i === 0 || compare(sorted[i - 1]!, v) !== 0) dense++;
    rank.set(v, dense);
  });
  return rank;
}

type SectorCounts = {
  /** sector → its managed clusters */
  clusters: Map<string, number>;
  /** sector → mutex → number of the sector's clusters having that mutex */
  mutexClusters: Map<string, Map<string, number>>;
};
/** sector → workload → lowest current version of the sector's clusters running it */
type SectorMins = Map<string, Map<string, SectorMin>>;

function countSectorClusters(order: readonly ManagedCluster[]): SectorCounts {
  const clusters = new Map<string, number>();
  const mutexClusters = new Map<string, Map<string, number>>();
  for (const c of order) {
    const { sector, mutexes } = c.upgradePolicy.conditions;
    if (sector === undefined) continue;
    clusters.set(sector, (clusters.get(sector) ?? 0) + 1);
    if (mutexes.length === 0) continue;
    let counts = mutexClusters.get(sector);
    if (!counts) mutexClusters.set(sector, (counts = new Map<string, number>()));
    for (const m of mutexes) counts.set(m, (counts.get(m) ?? 0) + 1);
  }
  return { clusters, mutexClusters };
}

function sectorWorkloadMins(order: readonly ManagedCluster[]): SectorMins {
  const mins = new Map<string, Map<string, SectorMin>>();
  for (const c of order) {
    const sector = c.upgradePolicy.conditions.sector;
    if (sector === undefined) continue;
    let bySector = mins.get(sector);
    if (!bySector) mins.set(sector, (bySector = new Map<string, SectorMin>()));
    // the order is by version: the first cluster met is the lowest (the first of equals)
    for (const w of c.upgradePolicy.workloads) if (!bySector.has(w)) bySector.set(w, { version: c.version, cluster: c.name, sector });
  }
  return mins;
}

/**
 * The sector tables of a run, built when a rule first needs them. They read only the clusters'
 * versions, sectors, mutexes and workloads, and the input's sectors and approvals, so runs over
 * clusters that differ only in their upgrades in flight can share them (an empty object to start).
 */
export type SectorTables = {
  counts?: SectorCounts;
  mins?: SectorMins;
  approvals?: ReadonlySet<string>;
  /** sector → the sectors it follows (directly or not) that have an after-gate */
  afterGates?: Map<string, string[]>;
  /** sector with a canary rule → its canaries (names, versions, offers) */
  canaries?: Map<string, CanarySet>;
};

/**
 * What a caller running the engine again and again over the same clusters — the forecast, between
 * two completions — keeps from run to run instead of the run deriving it again. Each must describe
 * the run's `input.clusters` (versions, health, policies) exactly.
 */
export type RunKept = {
  /** the engine's order of the managed clusters (orderManagedClusters) */
  order?: ManagedCluster[];
  /** accumulates the soak of exactly these clusters (a ledger kept in step with their versions) */
  soak?: SoakLedger;
  /** sector tables shared by the runs */
  sectorTables?: SectorTables;
  /** the provider-side holds of candidates (the scheduler's gate state gives them; none without) */
  holds?: CandidateHolds;
  /** the path solver's routes over the stored update graph (route-following.ts); none without a graph */
  routes?: RouteFinder;
};

/** One engine run over a validated input: precomputed indexes plus the lock state. */
export class PlanRun {
  readonly nowMs: number;
  readonly now: string;
  readonly order: ManagedCluster[];
  readonly versionData: VersionData;
  private readonly input: PlanInput;
  private readonly sectors: Map<string, Sector>;
  /** the sector tables, built on first use (shared with a re-run over the same input) */
  private readonly holds: CandidateHolds | undefined;
  private readonly routes: RouteFinder | undefined;
  private readonly lazy: SectorTables;
  /** some sector declares an approval gate (else the approval rule is skipped) */
  private readonly gated: boolean;
  /** some sector declares canaries (else the canary rule is skipped) */
  private readonly canaried: boolean;
  /** the canaries' upgrade results by cluster, built on first use */
  private canaryResults: Map<string, UpgradeResult[]> | undefined;
  /** sector → workload → requiredMin's answer */
  private readonly requiredMinCache: Map<string, Map<string, SectorMin | null>>;
  private readonly windowCache: Map<string, number | null>;
  private readonly nextRunCache: Map<string, number | null>;
  /** the OUTSIDE_WINDOW message per schedule (same for every cluster sharing it in this run) */
  private readonly outsideWindowCache: Map<string, string>;
  private readonly holders = new Map<string, Holder[]>();
  private readonly sectorHolders = new Map<string, Map<string, number>>();
  /** sector → its clusters upgrading (held), whatever their mutexes: maxConcurrentUpgrades */
  private readonly sectorUpgrading = new Map<string, number>();

  /**
   * A run over `input`. `again` — an earlier run over the very same input — lends its indexes
   * (order, soak, sector tables and memoized schedule answers depend only on the input) so a
   * second run with other clusters held back (the scheduler's gates) costs only its decisions.
   * `kept` is what a caller running the engine again and again over the same clusters (the
   * forecast) already has from the previous run: see RunKept.
   */
  constructor(input: PlanInput, again?: PlanRun, kept: RunKept = {}) {
    this.input = input;
    if (again && again.input === input) {
      this.nowMs = again.nowMs;
      this.now = again.now;
      this.order = again.order;
      this.versionData = again.versionData;
      this.sectors = again.sectors;
      this.lazy = again.lazy;
      this.requiredMinCache = again.requiredMinCache;
      this.windowCache = again.windowCache;
      this.nextRunCache = again.nextRunCache;
      this.outsideWindowCache = again.outsideWindowCache;
      this.gated = again.gated;
      this.canaried = again.canaried;
      this.canaryResults = again.canaryResults;
    } else {
      const nowMs = parseInstant(input.now);
      if (nowMs === null) throw new Error(`PlanInput.now is not an instant: ${input.now}`);
      this.nowMs = nowMs;
      this.now = formatInstant(nowMs);
      this.order = kept.order ?? orderManagedClusters(input.clusters);
      this.versionData = kept.soak ? kept.soak.accumulate(input.versionData, nowMs) : accumulateSoak(input.versionData, this.order, nowMs);
      this.sectors = new Map();
      this.lazy = kept.sectorTables ?? {};
      this.requiredMinCache = new Map();
      this.windowCache = new Map();
      this.nextRunCache = new Map();
      this.outsideWindowCache = new Map();
      let gated = false;
      let canaried = false;
      for (const sector of input.organization.sectors) {
        this.sectors.set(sector.name, sector);
        if (sector.approval) gated = true;
        if (sector.canary) canaried = true;
      }
      this.gated = gated;
      this.canaried = canaried;
    }
    this.holds = kept.holds ?? again?.holds;
    this.routes = kept.routes ?? again?.routes;
    for (const c of this.order) if (c.currentUpgrade) this.hold(c);
  }

  /** Per sector: its managed clusters and how many of them have each mutex (built when a concurrency rule first needs them). */
  private get sectorCounts(): SectorCounts {
    return (this.lazy.counts ??= countSectorClusters(this.order));
  }

  /** Per sector and workload: the lowest version running it (built when the sector rule first needs it). */
  private get sectorMins(): SectorMins {
    return (this.lazy.mins ??= sectorWorkloadMins(this.order));
  }

  /** The approval gate `version` waits for in the cluster's sector (its before-gate, then the after-gates of the sectors it follows). */
  approvalWait(c: ManagedCluster, version: string): ApprovalWait | undefined {
    const name = c.upgradePolicy.conditions.sector;
    if (!this.gated || name === undefined) return undefined;
    const approved = (this.lazy.approvals ??= approvalSet(this.input.approvals));
    return unapprovedGate(this.sectors, approved, name, version, this.afterGatesOf(name));
  }

  /** The sectors `name` follows, directly or through others, that declare an after-gate (in dependency order). */
  private afterGatesOf(name: string): string[] {
    const all = (this.lazy.afterGates ??= new Map<string, string[]>());
    let hit = all.get(name);
    if (!hit) all.set(name, (hit = afterGatedSectors(this.sectors, name)));
    return hit;
  }

  /** Whether any approval gate applies to the cluster's sector (its own before-gate, an after-gate of one it follows). */
  hasApprovalGates(c: ManagedCluster): boolean {
    const name = c.upgradePolicy.conditions.sector;
    if (!this.gated || name === undefined) return false;
    return this.sectors.get(name)?.approval?.before === true || this.afterGatesOf(name).length > 0;
  }

  /** The canaries of every sector with a canary rule (built when the canary rule first needs them). */
  private get canarySets(): Map<string, CanarySet> {
    return (this.lazy.canaries ??= canarySetsOf(canaryPoliciesOf(this.input), this.order));
  }

  /** The canaries of the sector, when it has a canary rule and clusters (the Sectors page and the cluster page show them). */
  canariesOf(sector: string): CanarySet | undefined {
    return this.canaried ? this.canarySets.get(sector) : undefined;
  }

  /** Whether the cluster is one of its sector's canaries. */
  isCanary(c: ManagedCluster): boolean {
    const name = c.upgradePolicy.conditions.sector;
    return name !== undefined && this.canariesOf(name)?.names.has(c.name) === true;
  }

  /** What the cluster's sector's canaries hold `version` for (canaries.ts), if anything. */
  canaryHoldOf(c: ManagedCluster, version: string): CanaryHold | undefined {
    const name = c.upgradePolicy.conditions.sector;
    if (!this.canaried || name === undefined) return undefined;
    const set = this.canarySets.get(name);
    const policy = this.sectors.get(name)?.canary;
    if (!set || !policy) return undefined;
    if (!this.canaryResults) {
      const all = new Set<string>();
      for (const x of this.canarySets.values()) for (const n of x.names) all.add(n);
      this.canaryResults = indexResults(this.input.upgradeResults, all);
    }
    return canaryHold(name, policy, set.canaries, set.names.has(c.name), version, this.canaryResults, this.nowMs);
  }

  describeCanaryHold(hold: CanaryHold): string {
    return describeCanaryHold(hold, this.nowMs);
  }

  notBeforeOf(sector: string): NotBefore | undefined {
    return this.sectors.get(sector)?.notBefore;
  }

  /** The sector's notBefore while it still holds a start at `at`, else undefined. */
  notBeforeHolding(c: ManagedCluster, at: number): NotBefore | undefined {
    const name = c.upgradePolicy.conditions.sector;
    const nb = name === undefined ? undefined : this.sectors.get(name)?.notBefore;
    return nb && at < nb.at ? nb : undefined;
  }

  describeApprovalWait(c: ManagedCluster, wait: ApprovalWait): string {
    return describeApprovalWait(wait, c.upgradePolicy.conditions.sector ?? wait.sector);
  }

  /** Takes the cluster's mutexes for the rest of this run. */
  hold(c: ManagedCluster): void {
    const sector = c.upgradePolicy.conditions.sector;
    if (sector !== undefined) this.sectorUpgrading.set(sector, (this.sectorUpgrading.get(sector) ?? 0) + 1);
    for (const m of c.upgradePolicy.conditions.mutexes) {
      let list = this.holders.get(m);
      if (!list) this.holders.set(m, (list = []));
      list.push(sector === undefined ? { name: c.name } : { name: c.name, sector });
      if (sector !== undefined) {
        let counts = this.sectorHolders.get(sector);
        if (!counts) this.sectorHolders.set(sector, (counts = new Map<string, number>()));
        counts.set(m, (counts.get(m) ?? 0) + 1);
      }
    }
  }

  isBlocked(c: ManagedCluster, version: string): string | undefined {
    return blockingPatternOf(version, this.input.organization, c.upgradePolicy.conditions.blockedVersions);
  }

  /** The targets and caps that apply to the cluster (organization, sector, policy); usually none. */
  boundsOf(c: ManagedCluster): AppliedBound[] {
    const { conditions } = c.upgradePolicy;
    return boundsForCluster(this.input.organization, conditions, this.sectors);
  }

  /** The bound `version` is above for the cluster, if any: such a candidate is never taken. */
  exceededBound(c: ManagedCluster, version: string): AppliedBound | undefined {
    const bounds = this.boundsOf(c);
    return bounds.length === 0 ? undefined : boundExceeded(version, bounds);
  }

  describeBound(c: ManagedCluster, bound: AppliedBound): string {
    return describeBound(bound, c.upgradePolicy.conditions.sector);
  }

  /** First run strictly after now + 6 min, if it is at most 2 h after now (memoized per schedule). */
  nextRunInWindow(schedule: Schedule): number | null {
    const compiled = compileSchedule(schedule);
    if (!compiled) return null;
    let hit = this.windowCache.get(compiled.key);
    if (hit === undefined) {
      hit = listRuns(compiled, this.nowMs + MIN_LEAD_MS, 1, this.nowMs + WINDOW_MS)[0] ?? null;
      this.windowCache.set(compiled.key, hit);
    }
    return hit;
  }

  /** First run strictly after now + 6 min, however far (for messages). */
  nextRunAfterLead(schedule: Schedule): number | null {
    const compiled = compileSchedule(schedule);
    if (!compiled) return null;
    let hit = this.nextRunCache.get(compiled.key);
    if (hit === undefined) {
      hit = listRuns(compiled, this.nowMs + MIN_LEAD_MS, 1)[0] ?? null;
      this.nextRunCache.set(compiled.key, hit);
    }
    return hit;
  }

  describeOutsideWindow(schedule: Schedule): string {
    const compiled = compileSchedule(schedule);
    if (!compiled) return this.outsideWindowMessage(schedule);
    let hit = this.outsideWindowCache.get(compiled.key);
    if (hit === undefined) this.outsideWindowCache.set(compiled.key, (hit = this.outsideWindowMessage(schedule)));
    return hit;
  }

  private outsideWindowMessage(schedule: Schedule): string {
    const next = this.nextRunAfterLead(schedule);
    const when = next === null ? 'it never fires' : `next ${formatInstant(next)}`;
    if (schedule.location === 'UTC' && schedule.isoWeek === undefined) {
      return `next run of '${schedule.cron}' is more than 2h away (${when})`;
    }
    return `no run of ${describeSchedule(schedule)} within 2h (${when})`;
  }

  /** Rule 4: mutexes, or the sector's maxParallelUpgrades; then the sector's maxConcurrentUpgrades. */
  checkMutexes(c: ManagedCluster): CheckResult {
    const mutexes = this.checkMutexLocks(c);
    return mutexes.pass ? this.checkSectorConcurrency(c) : mutexes;
  }

  /** The sector's maxConcurrentUpgrades: its clusters upgrading at once, mutexes or not (beyond the reference). */
  checkSectorConcurrency(c: ManagedCluster): CheckResult {
    const name = c.upgradePolicy.conditions.sector;
    const limitSpec = name === undefined ? undefined : this.sectors.get(name)?.maxConcurrentUpgrades;
    if (name === undefined || !limitSpec) return { pass: true };
    const n = this.sectorCounts.clusters.get(name) ?? 1;
    const limit = Math.max(1, limitSpec.kind === 'count' ? limitSpec.value : percentOfRoundedHalfEven(limitSpec.value, n));
    const upgrading = this.sectorUpgrading.get(name) ?? 0;
    if (upgrading < limit) return { pass: true };
    return {
      pass: false,
      reason: 'MAX_CONCURRENT_UPGRADES',
      message: `sector ${name} reached maxConcurrentUpgrades ${limitSpec.raw}: ${upgrading} of its ${n} clusters are upgrading (limit ${limit})`,
    };
  }

  private checkMutexLocks(c: ManagedCluster): CheckResult {
    const { mutexes, sector: sectorName } = c.upgradePolicy.conditions;
    const sector = sectorName === undefined ? undefined : this.sectors.get(sectorName);
    const mpu = sector?.maxParallelUpgrades;
    if (!sector || !mpu) {
      for (const m of mutexes) {
        const holder = this.holders.get(m)?.[0];
        if (holder) return { pass: false, reason: 'MUTEX_LOCKED', message: `mutex ${m} held by ${holder.name}` };
      }
      return { pass: true };
    }
    for (const m of mutexes) {
      const outside = this.holders.get(m)?.find((h) => h.sector !== sector.name);
      if (outside) {
        return { pass: false, reason: 'MUTEX_LOCKED', message: `mutex ${m} held outside sector ${sector.name} by ${outside.name}` };
      }
    }
    for (const m of mutexes) {
      const n = this.sectorCounts.mutexClusters.get(sector.name)?.get(m) ?? 1;
      const limit = Math.max(1, mpu.kind === 'count' ? mpu.value : percentOfRoundedHalfEven(mpu.value, n));
      const held = this.sectorHolders.get(sector.name)?.get(m) ?? 0;
      if (held >= limit) {
        return {
          pass: false,
          reason: 'MAX_PARALLEL_UPGRADES',
          message: `sector ${sector.name} reached maxParallelUpgrades ${mpu.raw}: ${held} of ${n} clusters sharing mutex ${m} are upgrading (limit ${limit})`,
        };
      }
    }
    return { pass: true };
  }

  /**
   * Lowest current version of the clusters running `workload` in the nearest dependency sectors
   * of `sectorName` that host it (a dependency without such a cluster is looked through to its
   * own dependencies; one with such a cluster is not).
   */
  requiredMin(sectorName: string, workload: string): SectorMin | null {
    // by sector, then workload: no key string to build and hash at each of the many calls
    let bySector = this.requiredMinCache.get(sectorName);
    if (!bySector) this.requiredMinCache.set(sectorName, (bySector = new Map<string, SectorMin | null>()));
    const hit = bySector.get(workload);
    if (hit !== undefined) return hit;
    let best: SectorMin | null = null;
    const visited = new Set<string>();
    // depth first, dependencies in their order (the first of equal minimums wins), with a stack of
    // its own: validation accepts a chain of 100,000 sectors, too deep for the call stack
    const stack = [{ dependencies: this.sectors.get(sectorName)?.dependencies ?? [], next: 0 }];
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!;
      if (top.next >= top.dependencies.length) {
        stack.pop();
        continue;
      }
      const dep = top.dependencies[top.next++]!;
      if (visited.has(dep)) continue;
      visited.add(dep);
      const min = this.sectorMins.get(dep)?.get(workload);
      if (min) {
        if (!best || compareVersions(min.version, best.version) < 0) best = min;
      } else stack.push({ dependencies: this.sectors.get(dep)?.dependencies ?? [], next: 0 });
    }
    bySector.set(workload, best);
    return best;
  }

  /**
   * The first of `workloads` that the nearest dependency sectors of `sectorName` run below
   * `version` (requiredMin), with that lowest version; undefined when none does.
   */
  private sectorShortfall(
    sectorName: string,
    workloads: readonly string[],
    version: string,
  ): { workload: string; required: SectorMin } | undefined {
    for (const workload of workloads) {
      const required = this.requiredMin(sectorName, workload);
      if (required && compareVersions(required.version, version) < 0) return { workload, required };
    }
    return undefined;
  }

  /** Rule 5 conditions for one candidate version. */
  checkVersion(c: ManagedCluster, version: string): VersionCheck {
    const { workloads, conditions } = c.upgradePolicy;
    const blockedBy = this.isBlocked(c, version);
    let sector: VersionCheck['sector'] = { pass: true, message: 'no sector' };
    if (conditions.sector !== undefined) {
      const behind = this.sectorShortfall(conditions.sector, workloads, version);
      sector = behind
        ? {
            pass: false,
            required: behind.required,
            message: `${version}: ${behind.required.cluster} in sector ${behind.required.sector} still runs ${behind.required.version} (workload ${behind.workload})`,
          }
        : { pass: true, message: `dependency sectors of ${conditions.sector} run ${version} or newer` };
    }
    const required = conditions.soakDays ?? null;
    const soakOfVersion = this.versionData.versions[version]?.workloads;
    const perWorkload = workloads.map((w) => {
      const soaked = soakOfVersion?.[w]?.soakDays ?? 0;
      return { workload: w, soaked, required, pass: soakMet(soaked, required) };
    });
    const failing = perWorkload.find((p) => !p.pass);
    const soak = failing
      ? {
          pass: false,
          perWorkload,
          message: `${version} has soaked ${failing.soaked.toFixed(2)} of ${required} days for workload ${failing.workload}`,
        }
      : {
          pass: true,
          perWorkload,
          message: required === null ? 'no soak condition' : `${version} has soaked at least ${required} days for every workload`,
        };
    const out: VersionCheck = { version, sector, soak };
    if (blockedBy !== undefined) out.blockedBy = blockedBy;
    const exceeds = this.exceededBound(c, version);
    if (exceeds) out.exceeds = exceeds;
    const awaits = this.approvalWait(c, version);
    if (awaits) out.awaits = awaits;
    const canary = this.canaryHoldOf(c, version);
    if (canary) out.canary = canary;
    const held = this.holds?.(c, version);
    if (held) out.held = held;
    return out;
  }

  /**
   * Whether `version` passes every rule 5 condition of checkVersion (sector, soak, canaries,
   * approval, the cluster's holds): `check.sector.pass && check.soak.pass && !check.canary &&
   * !check.awaits && !check.held`, without the check's messages. The engine asks it of each
   * candidate and builds the full check only for the first failing one, the one it explains: a
   * cluster behind its dependency sectors fails every candidate it is offered.
   */
  versionPasses(c: ManagedCluster, version: string): boolean {
    const { workloads, conditions } = c.upgradePolicy;
    if (conditions.sector !== undefined && this.sectorShortfall(conditions.sector, workloads, version)) return false;
    const required = conditions.soakDays ?? null;
    if (required !== null) {
      const soakOfVersion = this.versionData.versions[version]?.workloads;
      for (const w of workloads) if (!soakMet(soakOfVersion?.[w]?.soakDays ?? 0, required)) return false;
    }
    if (this.canaryHoldOf(c, version)) return false;
    if (this.approvalWait(c, version)) return false;
    if (this.holds?.(c, version)) return false;
    return true;
  }

  /**
   * The route the cluster follows to a target more than one minor away (route-following.ts), or
   * null when it climbs as usual (no target that far, no stored graph, its version not in it).
   */
  routeOf(c: Cluster): RouteVerdict | null {
    if (!this.routes || c.upgradePolicy === undefined) return null;
    const m = c as ManagedCluster;
    const bounds = this.boundsOf(m);
    // no target, no route (route-following.ts): most clusters, at every run
    if (bounds.length === 0) return null;
    return this.routes(c, bounds, blockedReleasesFor(this.input.organization, m.upgradePolicy.conditions.blockedVersions));
  }

  /**
   * Available upgrades newer than the cluster's version, highest first, and the ignored ones. A
   * cluster following a route has one candidate, the route's next hop (the graph's edge is the
   * evidence: before a channel switch the cluster does not offer it yet), and the available
   * upgrades off the route are ignored; one without a route to its target has none.
   */
  candidates(c: Cluster): { newer: string[]; ignored: string[]; offRoute?: string[] } {
    const newer: string[] = [];
    const ignored: string[] = [];
    for (const v of c.availableUpgrades) (compareVersions(v, c.version) > 0 ? newer : ignored).push(v);
    newer.sort((a, b) => compareVersions(b, a));
    const route = this.routeOf(c);
    if (route === null) return { newer, ignored };
    // every route passing a blocked release: nothing is taken (the cluster waits, VERSION_BLOCKED)
    const hop = route.kind === 'route' && !route.blockedHop ? route.nextHop : undefined;
    return { newer: hop === undefined ? [] : [hop], ignored, offRoute: newer.filter((v) => v !== hop) };
  }

  /**
   * Nothing left below the cluster's bounds: it runs its target (AT_TARGET), or every unblocked
   * candidate is above a target or cap it has not reached (ABOVE_CAP).
   */
  private boundVerdict(c: ManagedCluster, newer: readonly string[]): Decision {
    const bounds = this.boundsOf(c);
    const above = newer.filter((v) => this.isBlocked(c, v) === undefined);
    const reached = bounds.find((b) => b.kind === 'targetVersion' && reachesBound(c.version, b.bound));
    if (reached) {
      return {
        cluster: c.name,
        action: 'skip',
        reason: 'AT_TARGET',
        message: `runs ${c.version}, at its ${this.describeBound(c, reached)}; ${above.join(', ')} not taken`,
      };
    }
    const bound = this.exceededBound(c, above[above.length - 1]!)!;
    return {
      cluster: c.name,
      action: 'skip',
      reason: 'ABOVE_CAP',
      message: `${above.join(', ')} ${above.length === 1 ? 'is' : 'are'} above ${this.describeBound(c, bound)}`,
    };
  }

  /** Decides for one cluster (rules 1-6), taking its mutexes when it gets an upgrade. */
  decide(c: ManagedCluster): Decision {
    const cluster = c.name;
    const current = c.currentUpgrade;
    if (current) {
      const nextRunMs = parseInstant(current.nextRun) ?? 0;
      const blockedBy = this.isBlocked(c, current.version);
      if (current.state === 'scheduled' && nextRunMs > this.nowMs && blockedBy !== undefined) {
        return {
          cluster,
          action: 'cancel',
          version: current.version,
          reason: 'VERSION_BLOCKED',
          message: `scheduled upgrade to ${current.version} (nextRun ${current.nextRun}) targets a blocked version (${blockedBy})`,
        };
      }
      const exceeds = current.state === 'scheduled' && nextRunMs > this.nowMs ? this.exceededBound(c, current.version) : undefined;
      if (exceeds) {
        return {
          cluster,
          action: 'cancel',
          version: current.version,
          reason: 'ABOVE_CAP',
          message: `scheduled upgrade to ${current.version} (nextRun ${current.nextRun}) is above ${this.describeBound(c, exceeds)}`,
        };
      }
      const future = current.state === 'scheduled' && nextRunMs > this.nowMs;
      // a canary failing (or canaries set) after the upgrade was planned holds it, as a cap does
      const canary = future ? this.canaryHoldOf(c, current.version) : undefined;
      if (canary) {
        return {
          cluster,
          action: 'cancel',
          version: current.version,
          reason: canary.kind === 'failed' ? 'CANARY_FAILED' : 'AWAITING_CANARY',
          message: `scheduled upgrade to ${current.version} (nextRun ${current.nextRun}): ${this.describeCanaryHold(canary)}`,
        };
      }
      // a gate set or an approval revoked after the upgrade was planned holds it, as a cap does
      const awaits = future ? this.approvalWait(c, current.version) : undefined;
      if (awaits) {
        return {
          cluster,
          action: 'cancel',
          version: current.version,
          reason: 'AWAITING_APPROVAL',
          message: `scheduled upgrade to ${current.version} (nextRun ${current.nextRun}): ${this.describeApprovalWait(c, awaits)}`,
        };
      }
      const early = future ? this.notBeforeHolding(c, nextRunMs) : undefined;
      if (early) {
        return {
          cluster,
          action: 'cancel',
          version: current.version,
          reason: 'NOT_BEFORE',
          message: `scheduled upgrade to ${current.version} (nextRun ${current.nextRun}): sector ${c.upgradePolicy.conditions.sector} starts ${describeNotBefore(early)}`,
        };
      }
      const what = current.state === 'started' ? 'started' : 'already scheduled';
      return {
        cluster,
        action: 'skip',
        reason: 'UPGRADE_PENDING',
        message: `upgrade to ${current.version} ${what} (nextRun ${current.nextRun})`,
      };
    }
    const { schedule } = c.upgradePolicy;
    if (schedule.suspend) return { cluster, action: 'skip', reason: 'SUSPENDED', message: 'schedule suspended' };
    const nextRun = this.nextRunInWindow(schedule);
    const early = this.notBeforeHolding(c, nextRun ?? this.nowMs);
    if (early) {
      return {
        cluster,
        action: 'skip',
        reason: 'NOT_BEFORE',
        message: `sector ${c.upgradePolicy.conditions.sector} starts ${describeNotBefore(early)}`,
      };
    }
    if (nextRun === null) {
      return { cluster, action: 'skip', reason: 'OUTSIDE_WINDOW', message: this.describeOutsideWindow(schedule) };
    }
    const mutex = this.checkMutexes(c);
    if (!mutex.pass) return { cluster, action: 'skip', reason: mutex.reason, message: mutex.message };

    const { newer } = this.candidates(c);
    const route = this.routeOf(c);
    if (route?.kind === 'no-route') {
      return { cluster, action: 'skip', reason: 'NO_ROUTE', message: `no route to the target ${route.target}: ${route.message}` };
    }
    if (route?.kind === 'route' && route.blockedHop)
      return { cluster, action: 'skip', reason: 'VERSION_BLOCKED', message: describeRoute(route) };
    if (newer.length === 0) return { cluster, action: 'skip', reason: 'NO_AVAILABLE_UPGRADES', message: 'no available upgrades' };
    let firstFailure: VersionCheck | undefined;
    let anyAboveBound = false;
    for (const v of newer) {
      if (this.isBlocked(c, v) !== undefined) continue;
      if (this.exceededBound(c, v)) {
        anyAboveBound = true;
        continue;
      }
      if (this.versionPasses(c, v)) {
        this.hold(c);
        // an EUS-to-EUS route the policy takes control-plane-only: one attempt through every hop
        const eusRoute =
          route?.kind === 'route' &&
          c.upgradePolicy?.lifecycle?.eusControlPlaneOnly &&
          isEusToEusRoute(route.path, route.channel ?? c.channel)
            ? [...route.path]
            : null;
        const note = route
          ? `; ${describeRoute(route)}${eusRoute ? `, as one EUS-to-EUS run to ${eusRoute[eusRoute.length - 1]} (control plane only, the workers roll once)` : ''}`
          : firstFailure
            ? `; higher ${firstFailure.version} not eligible (${this.failureMessage(c, firstFailure)})`
            : '';
        return {
          cluster,
          action: 'upgrade',
          version: v,
          nextRun: formatInstant(nextRun),
          message: `upgrade to ${v} at ${formatInstant(nextRun)}${note}`,
          ...(route?.kind === 'route' && route.channel ? { channel: route.channel } : {}),
          ...(eusRoute ? { eusRoute } : {}),
        };
      }
      firstFailure ??= this.checkVersion(c, v);
    }
    if (!firstFailure && anyAboveBound) return this.boundVerdict(c, newer);
    if (!firstFailure) {
      return { cluster, action: 'skip', reason: 'VERSION_BLOCKED', message: `all available upgrades are blocked (${newer.join(', ')})` };
    }
    if (!firstFailure.sector.pass) return { cluster, action: 'skip', reason: 'SECTOR_BEHIND', message: firstFailure.sector.message };
    if (!firstFailure.soak.pass) return { cluster, action: 'skip', reason: 'NOT_SOAKED', message: firstFailure.soak.message };
    if (firstFailure.canary) {
      return {
        cluster,
        action: 'skip',
        version: firstFailure.version,
        reason: firstFailure.canary.kind === 'failed' ? 'CANARY_FAILED' : 'AWAITING_CANARY',
        message: this.describeCanaryHold(firstFailure.canary),
      };
    }
    if (!firstFailure.awaits && firstFailure.held) {
      return {
        cluster,
        action: 'skip',
        version: firstFailure.version,
        reason: firstFailure.held.reason,
        message: firstFailure.held.message,
      };
    }
    // the version awaiting approval is named: the gate's key for the views (Sectors graph, forecast)
    return {
      cluster,
      action: 'skip',
      version: firstFailure.version,
      reason: 'AWAITING_APPROVAL',
      message: this.describeApprovalWait(c, firstFailure.awaits!),
    };
  }

  /** The first version rule a candidate fails: sector, soak, canaries, then approval. */
  private failureMessage(c: ManagedCluster, check: VersionCheck): string {
    if (!check.sector.pass) return check.sector.message;
    if (!check.soak.pass) return check.soak.message;
    if (check.canary) return this.describeCanaryHold(check.canary);
    if (check.awaits) return this.describeApprovalWait(c, check.awaits);
    return check.held?.message ?? check.soak.message;
  }
}

/**
 * Decides upgrades for every managed cluster of a validated input (see the module comment for
 * the order of rules). Pure: `input.now` is the clock.
 */
export function decideUpgrades(input: PlanInput): PlanResult {
  const run = new PlanRun(input);
  const decisions = run.order.map((c) => run.decide(c));
  return { now: run.now, decisions, versionData: run.versionData };
}
