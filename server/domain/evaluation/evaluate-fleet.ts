/**
 * The single domain entry point over a fleet: the decision engine (PlanRun) plus the scheduler's
 * gates (decideWithGates), returning per cluster the decision, every rule the engine applied
 * with its numbers, and every gate. The scheduler tick, each forecast step, the cluster "why
 * not", the sector overview, the Fleet table's soak column and the metrics all read it, so what
 * the dashboard explains is what the scheduler does.
 *
 * Explanations are recorded in the same engine run that makes the decisions, at each cluster's
 * turn (mutexes taken earlier in the order count), and only for the clusters asked for: the tick
 * and the forecast ask for none and pay nothing extra. Pure and synchronous: time is `input.now`.
 */
import { PlanRun, type ManagedCluster, type RunKept, type SectorMin, type VersionCheck } from '@/server/domain/plan/decide-upgrades';
import { parseInstant } from '@/server/domain/plan/time';
import type { Decision, PlanInput, PlanResult, RuleCheck, VersionData } from '@/server/domain/plan/types';
import {
  candidateHoldsOf,
  decideWithGates,
  gateChecks,
  heldBackDecision,
  type GateCheck,
  type GatedDecision,
  type GateState,
} from '@/server/domain/scheduling/apply-gates';
import { findNeverUpgrades, type NeverUpgrades } from './never-upgrades';
export type { NeverUpgrades } from './never-upgrades';
import { candidateRuleChecks, candidateSoak, clusterRuleChecks, type CandidateEvaluation, type CandidateSoak } from './rule-checks';

/** No freeze, no exclusions, no health gate: the plain engine (the `plan` command's view). */
export const NO_GATES: GateState = { frozen: false, exclusions: [], healthGate: false, healthIssues: new Map() };

export interface ClusterEvaluation {
  cluster: string;
  managed: boolean;
  sector: string | null;
  /** position in the engine's order (0-based), when managed */
  order?: number;
  /** what the scheduler does: the engine's decision after the gates (absent when unmanaged) */
  decision?: GatedDecision;
  /** the engine's own decision in the run that counted (a gated cluster sat that run out) */
  engineDecision?: Decision;
  /** cluster-level rules at the cluster's turn: pending upgrade, suspend, window, mutexes, available */
  checks: RuleCheck[];
  /** every available upgrade newer than the cluster's version, highest first, against every rule */
  candidates: CandidateEvaluation[];
  /** available upgrades that are not newer than the cluster's version */
  ignoredVersions: string[];
  /** every gate at the instant the cluster's upgrade would start (empty when unmanaged) */
  gates: GateCheck[];
}

/**
 * What the engine sees of each cluster's candidate versions at `now` (soak accumulated, blocked
 * and sector rules) without deciding anything: one engine run's indexes, no decisions.
 */
export interface FleetVersionView {
  now: string;
  nowMs: number;
  /** soak accumulated up to `now` */
  versionData: VersionData;
  /**
   * The version `workload` must reach in the dependency sectors of `sector` before the sector may
   * move past it: the lowest version of the nearest dependency clusters running it (the engine's
   * sector rule), or null when no dependency runs it.
   */
  sectorFloor(sector: string, workload: string): SectorMin | null;
  /**
   * The candidate versions of one cluster (highest first) with the blocked and soak rules'
   * verdicts, computed on demand without messages (cheap enough for every cluster of a large
   * fleet); null for an unknown or unmanaged cluster.
   */
  candidateSoak(cluster: string): CandidateSoakVerdict[] | null;
  /** The engine's version rules (blocked, sector, soak per workload) for each of a managed cluster's candidates, highest first. */
  versionChecks(cluster: ManagedCluster): VersionCheck[];
  /** The newest candidate version not blocked for the cluster (org or its own patterns), if any. */
  newestUnblocked(cluster: string): string | null;
  /**
   * Why a managed cluster will never upgrade as configured with the releases available now, or
   * null when it may (never-upgrades.ts; worked out for the whole fleet on first use).
   */
  neverUpgrades(cluster: string): NeverUpgrades | null;
  /** every managed cluster that will never upgrade as configured, by name (what neverUpgrades reads) */
  allNeverUpgrades(): ReadonlyMap<string, NeverUpgrades>;
}

export interface FleetEvaluation extends FleetVersionView {
  /** one per managed cluster (per decided one, see EvaluateOptions.decide), in the engine's order: what the scheduler acts on */
  decisions: GatedDecision[];
  /** engine runs needed to reach a mutex-consistent result */
  runs: number;
  /** the explained clusters (see EvaluateOptions.explain), by name */
  clusters: ReadonlyMap<string, ClusterEvaluation>;
}

export type CandidateSoakVerdict = { version: string; blockedBy: string | null; soak: CandidateSoak };

export interface EvaluateOptions {
  /** clusters to explain: true = all, a list = those names (unknown names are left out) */
  explain?: boolean | readonly string[];
  /**
   * The clusters to decide, in the engine's order (default: all). The others sit the run out and
   * get no decision. Only for a caller that knows those clusters' decisions are skips, which take
   * no mutex and so cannot change anyone else's: the forecast's clusters that nothing has woken
   * since their last verdict (a pending upgrade, a window not yet open, soak not yet reached).
   * Objects of `input.clusters`, so they need `order` too.
   */
  decideOnly?: readonly ManagedCluster[];
  /**
   * The engine's order of `input.clusters` (orderManagedClusters) when the caller already has it:
   * the forecast keeps it between completions, since only a version change moves it.
   */
  order?: ManagedCluster[];
  /** more the caller keeps between runs over the same clusters (see RunKept): the forecast's soak ledger and sector tables */
  kept?: Omit<RunKept, 'order'>;
}

type Explained = { run: PlanRun; checks: RuleCheck[]; newer: string[]; ignored: string[]; cluster: ManagedCluster; order: number };

/** Evaluates the fleet at `input.now` under `gates`; `input` must be validated and is not modified. */
export function evaluateFleet(input: PlanInput, gates: GateState, options: EvaluateOptions = {}): FleetEvaluation {
  const wanted = options.explain === true ? null : new Set(options.explain || []);
  const explainAll = options.explain === true;
  let lastRun: PlanRun | undefined;
  // what the clusters themselves hold (version gates, operators, removed APIs): candidate rules in the engine
  const holds = candidateHoldsOf(gates);
  let lastEngine: Decision[] = [];
  let explained = new Map<string, Explained>();

  const engineRun = (plain: PlanInput, heldBack: ReadonlySet<string>): PlanResult => {
    // a re-run for the gates is over the same input: it borrows the first run's indexes
    const run = new PlanRun(plain, lastRun, {
      ...options.kept,
      order: options.order,
      ...(holds ? { holds } : {}),
      ...(gates.routes ? { routes: gates.routes } : {}),
    });
    const turn = new Map<string, Explained>();
    const decisions: Decision[] = [];
    const decideOne = (c: ManagedCluster) => decisions.push(heldBack.has(c.name) ? heldBackDecision(c.name) : run.decide(c));
    if (!explainAll && wanted!.size === 0 && options.decideOnly) {
      options.decideOnly.forEach(decideOne);
    } else {
      const only = options.decideOnly ? new Set(options.decideOnly) : null;
      run.order.forEach((c, order) => {
        if (explainAll || wanted!.has(c.name)) {
          const { newer, ignored } = run.candidates(c);
          turn.set(c.name, { run, checks: clusterRuleChecks(run, c, newer), newer, ignored, cluster: c, order });
        }
        if (only === null || only.has(c)) decideOne(c);
      });
    }
    lastRun = run;
    lastEngine = decisions;
    explained = turn;
    return { now: run.now, decisions, versionData: run.versionData };
  };

  const plan = decideWithGates(input, gates, engineRun);
  const run = lastRun!;
  const clusters = new Map<string, ClusterEvaluation>();
  if (explainAll || wanted!.size > 0) {
    const engineByName = new Map(lastEngine.map((d) => [d.cluster, d]));
    const gatedByName = new Map(plan.decisions.map((d) => [d.cluster, d]));
    for (const c of input.clusters) {
      if (!explainAll && !wanted!.has(c.name)) continue;
      const e = explained.get(c.name);
      if (!e) {
        const { newer, ignored } = run.candidates(c);
        clusters.set(c.name, {
          cluster: c.name,
          managed: false,
          sector: null,
          checks: [{ rule: 'pending', pass: false, message: 'cluster has no upgrade policy' }],
          candidates: newer.map((version) => ({ version, chosen: false, checks: [], blockedBy: null, soak: null })),
          ignoredVersions: ignored,
          gates: [],
        });
        continue;
      }
      const decision = gatedByName.get(c.name)!;
      const engineDecision = engineByName.get(c.name)!;
      const chosen = decision.action === 'upgrade' ? decision.version : undefined;
      const sector = e.cluster.upgradePolicy.conditions.sector;
      clusters.set(c.name, {
        cluster: c.name,
        managed: true,
        sector: sector ?? null,
        order: e.order,
        decision,
        engineDecision,
        checks: e.checks,
        candidates: candidateRuleChecks(e.run, e.cluster, chosen, e.newer),
        ignoredVersions: e.ignored,
        gates: gateChecks(c.name, sector, gateInstant(run, e.cluster, decision), gates, chosen, c.version),
      });
    }
  }
  return {
    ...versionViewOf(run),
    now: plan.now,
    decisions: plan.decisions,
    versionData: plan.versionData,
    runs: plan.runs,
    clusters,
  };
}

/**
 * The candidate verdicts of the fleet at `input.now` without the decisions: the same engine run
 * evaluateFleet makes (soak, blocked and sector rules do not depend on who takes which mutex),
 * so views that show only soak and versions need not pay for deciding 10,000 clusters.
 * `kept.order`: orderManagedClusters(input.clusters) as the caller already has it (it depends on
 * the clusters alone; a caller viewing the same clusters minute after minute orders them once).
 */
export function fleetVersionView(input: PlanInput, kept: Pick<RunKept, 'order'> = {}): FleetVersionView {
  return versionViewOf(new PlanRun(input, undefined, kept));
}

/**
 * The managed clusters by name, by the engine order they come from: a caller that keeps the order
 * across runs (fleetVersionView's `kept.order`) keeps this too, instead of a new 10,000-entry map
 * per run. Orders are never modified, so the map stays true to its order.
 */
const managedByNameOf = new WeakMap<readonly ManagedCluster[], ReadonlyMap<string, ManagedCluster>>();

function versionViewOf(run: PlanRun): FleetVersionView {
  let managed: ReadonlyMap<string, ManagedCluster> | undefined;
  const managedByName = () => {
    if (managed) return managed;
    managed = managedByNameOf.get(run.order);
    if (!managed) managedByNameOf.set(run.order, (managed = new Map(run.order.map((c) => [c.name, c]))));
    return managed;
  };
  let never: Map<string, NeverUpgrades> | undefined;
  return {
    now: run.now,
    nowMs: run.nowMs,
    versionData: run.versionData,
    sectorFloor: (sector, workload) => run.requiredMin(sector, workload),
    neverUpgrades: (name) => (never ??= findNeverUpgrades(run)).get(name) ?? null,
    allNeverUpgrades: () => (never ??= findNeverUpgrades(run)),
    versionChecks: (c) => run.candidates(c).newer.map((version) => run.checkVersion(c, version)),
    newestUnblocked: (name) => {
      const c = managedByName().get(name);
      return (c && run.candidates(c).newer.find((v) => run.isBlocked(c, v) === undefined && run.exceededBound(c, v) === undefined)) ?? null;
    },
    candidateSoak: (name) => {
      const c = managedByName().get(name);
      if (!c) return null;
      return run.candidates(c).newer.map((version) => {
        const check = run.checkVersion(c, version);
        return { version, blockedBy: check.blockedBy ?? null, soak: candidateSoak(check) };
      });
    },
  };
}

/**
 * When the cluster's upgrade would start, for its gates: the decided upgrade's run, a scheduled
 * upgrade's run, else the next run in the window (a gated upgrade's run), else now.
 */
function gateInstant(run: PlanRun, c: ManagedCluster, decision: GatedDecision): number {
  const decided = parseInstant(decision.nextRun);
  if (decided !== null) return decided;
  const cu = c.currentUpgrade;
  if (cu?.state === 'scheduled') {
    const at = parseInstant(cu.nextRun);
    if (at !== null && at > run.nowMs) return at;
  }
  return run.nextRunInWindow(c.upgradePolicy.schedule) ?? run.nowMs;
}
