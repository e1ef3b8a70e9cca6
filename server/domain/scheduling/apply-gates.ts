/**
 * Gates the scheduler applies on top of the decision engine: the organization-wide freeze,
 * maintenance exclusion windows and the optional health gate. Pure: time and data come in.
 *
 * An upgrade that a gate stops no longer holds its mutexes, so clusters the engine skipped with
 * MUTEX_LOCKED because of it may go instead. To stay mutex-consistent the engine is re-run with
 * the gated clusters held back (suspended for that run), until no further upgrade is gated; the
 * gated set only grows, so this ends after at most one run per cluster (usually two runs).
 *
 * Scheduled-but-not-started upgrades whose start falls in a freeze or an exclusion are cancelled,
 * because "nothing starts" there; the health gate only stops new upgrades (a health flap should
 * not cancel work that a later check at start time may still allow).
 */
import type { Decision, PlanInput, PlanResult } from '@/server/domain/plan/types';
import type { CandidateHolds } from '@/server/domain/plan/decide-upgrades';
import type { RouteFinder } from '@/server/domain/plan/route-following';
import { parseInstant } from '@/server/domain/plan/time';
import { haltReason, hasHalts, type HaltIndex } from '@/server/domain/lifecycle/halts';
import { versionGateFor, type PendingGate } from '@/server/domain/lifecycle/gates';
import { upgradeInhibitors, type ClusterInhibitorFacts } from '@/server/domain/lifecycle/inhibitors';
import { matchesLabels, parseLabelSelector, type LabelSelector } from '@/server/domain/labels/label-selector';

export const GATE_REASONS = [
  'FROZEN',
  'EXCLUDED',
  'UNHEALTHY',
  'PROVIDER_ERROR',
  'HALTED_BY_FAILURE',
  'VERSION_GATE',
  'OPERATOR_INCOMPATIBLE',
  'REMOVED_API_IN_USE',
] as const;
export type GateReason = (typeof GATE_REASONS)[number];

export interface ExclusionWindow {
  /** `selector`: every cluster whose labels the selector in `subject` matches, whenever it appeared */
  scope: 'organization' | 'sector' | 'cluster' | 'selector';
  /** sector or cluster name, or the selector's text; null for the organization */
  subject: string | null;
  /** the parsed selector of a `selector` exclusion (exclusionWindowOf) */
  selector?: LabelSelector;
  startsAt: number;
  endsAt: number;
  reason: string;
}

/**
 * An exclusion as the gates judge it: a selector exclusion's text parsed. Its text was refused
 * on write when invalid; one that still fails to parse (written by hand into the database)
 * covers every cluster, because an exclusion that is meant to stop upgrades must not silently
 * stop nothing.
 */
export function exclusionWindowOf(e: Omit<ExclusionWindow, 'selector'>): ExclusionWindow {
  if (e.scope !== 'selector') return e;
  const parsed = parseLabelSelector(e.subject ?? '');
  return { ...e, selector: parsed.ok ? parsed.selector : { text: e.subject ?? '', requirements: [] } };
}

export interface GateState {
  frozen: boolean;
  frozenReason?: string | null;
  exclusions: readonly ExclusionWindow[];
  healthGate: boolean;
  /** per cluster: why it is unhealthy (degraded operators, firing critical alerts); empty = fine */
  healthIssues: ReadonlyMap<string, readonly string[]>;
  /** clusters the provider could not read this time, with its message: nothing new is decided on stale data */
  providerErrors?: ReadonlyMap<string, string>;
  /** unacknowledged upgrade failures (lifecycle/halts.ts): their version is halted where they apply */
  halts?: HaltIndex;
  /** per cluster: its labels (provider's overlaid by fleetplan's), for exclusions by selector; absent = none */
  clusterLabels?: ReadonlyMap<string, Readonly<Record<string, string>>>;
  /** per cluster: the provider's version gates it has not agreed to (they hold upgrades to their minor) */
  versionGates?: ReadonlyMap<string, readonly PendingGate[]>;
  /**
   * per cluster: installed operators with a maxOpenShiftVersion and removed APIs still called
   * (lifecycle/inhibitors.ts); only clusters that have any
   */
  inhibitors?: ReadonlyMap<string, ClusterInhibitorFacts>;
  /**
   * the path solver's routes over the stored update graph: a cluster whose target is more than one
   * minor away follows one (plan/route-following.ts); absent without a stored graph
   */
  routes?: RouteFinder;
}

/**
 * The holds the cluster itself puts on candidates — a provider version gate not agreed to, an
 * operator that stops before the target's minor, a removed API still called — for the engine,
 * which skips a held candidate and takes the best one left (a z-stream below a gated minor).
 * Undefined when the state has none. The gate checks below list them too, for the explanation.
 */
export function candidateHoldsOf(state: GateState): CandidateHolds | undefined {
  const gates = state.versionGates;
  const inhibitors = state.inhibitors;
  if (!(gates && gates.size > 0) && !(inhibitors && inhibitors.size > 0)) return undefined;
  return (c, version) => {
    const gate = gates ? versionGateFor(gates.get(c.name) ?? [], version) : null;
    if (gate) return { reason: 'VERSION_GATE', message: gate.message };
    const found = inhibitors ? upgradeInhibitors(inhibitors.get(c.name), c.version, version)[0] : undefined;
    return found ? { reason: found.reason, message: found.message } : null;
  };
}

/**
 * The clusters' labels as `GateState.clusterLabels` holds them, from a plan input's clusters (their
 * labels are already the effective ones): what exclusions by selector match.
 */
export function clusterLabelsOf(clusters: PlanInput['clusters']): ReadonlyMap<string, Readonly<Record<string, string>>> {
  return new Map(clusters.map((c) => [c.name, c.labels ?? {}] as const));
}

/** A decision after the gates; `reason` may now be a gate reason too. */
export type GatedDecision = Omit<Decision, 'reason'> & { reason?: Decision['reason'] | GateReason };

export interface GatedPlan {
  now: string;
  decisions: GatedDecision[];
  versionData: PlanResult['versionData'];
  /** engine runs needed to reach a mutex-consistent result */
  runs: number;
}

/** The exclusion window covering `cluster` (in `sector`, with `labels`) at instant `at`, if any. */
export function findExclusion(
  exclusions: readonly ExclusionWindow[],
  cluster: string,
  sector: string | undefined,
  at: number,
  labels: Readonly<Record<string, string>> = {},
): ExclusionWindow | undefined {
  return exclusions.find(
    (e) =>
      at >= e.startsAt &&
      at < e.endsAt &&
      (e.scope === 'organization' ||
        (e.scope === 'sector' && e.subject === sector) ||
        (e.scope === 'cluster' && e.subject === cluster) ||
        (e.scope === 'selector' && matchesLabels((e.selector ? e : exclusionWindowOf(e)).selector as LabelSelector, labels))),
  );
}

export const GATE_NAMES = ['freeze', 'exclusion', 'health', 'provider', 'halt', 'version-gate', 'operators', 'removed-apis'] as const;
export type GateName = (typeof GATE_NAMES)[number];

/**
 * One gate for one cluster, as a named check: `reason` is the decision reason it gives when it
 * fails; `details` holds its numbers. A list, so later gates (e.g. checks at start time) add
 * entries instead of fields.
 */
export interface GateCheck {
  gate: GateName;
  pass: boolean;
  reason: GateReason;
  message: string;
  details: Record<string, string | number | boolean | null>;
}

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * Every gate for `cluster` (in `sector`) for an upgrade starting at `at`; `version` names the
 * upgrade in the messages when there is one. The scheduler stops an upgrade at the first failing
 * gate of this list, in this order.
 */
export function gateChecks(
  cluster: string,
  sector: string | undefined,
  at: number,
  state: GateState,
  version?: string,
  /** the version the cluster runs (what an upgrade to `version` starts from) */
  fromVersion?: string,
): GateCheck[] {
  const frozenWhy = state.frozenReason ? `: ${state.frozenReason}` : '';
  const excl = findExclusion(state.exclusions, cluster, sector, at, state.clusterLabels?.get(cluster));
  const issues = state.healthIssues.get(cluster) ?? [];
  const providerError = state.providerErrors?.get(cluster);
  const halted = version && state.halts ? haltReason(state.halts, cluster, sector, version) : null;
  const gate = version ? versionGateFor(state.versionGates?.get(cluster) ?? [], version) : null;
  const inhibitors = version && fromVersion ? upgradeInhibitors(state.inhibitors?.get(cluster), fromVersion, version) : [];
  const operators = inhibitors.find((i) => i.reason === 'OPERATOR_INCOMPATIBLE');
  const removedApis = inhibitors.find((i) => i.reason === 'REMOVED_API_IN_USE');
  return [
    {
      gate: 'freeze',
      pass: !state.frozen,
      reason: 'FROZEN',
      message: state.frozen
        ? `organization frozen${frozenWhy}; ${version ? `upgrade to ${version} not scheduled` : 'no upgrade starts'}`
        : 'organization not frozen',
      details: { frozen: state.frozen, frozenReason: state.frozenReason ?? null },
    },
    excl
      ? {
          gate: 'exclusion',
          pass: false,
          reason: 'EXCLUDED',
          message: `maintenance exclusion (${excl.scope}${excl.subject ? ` ${excl.subject}` : ''}) until ${iso(excl.endsAt)}: ${excl.reason}`,
          details: { at: iso(at), scope: excl.scope, subject: excl.subject, startsAt: iso(excl.startsAt), endsAt: iso(excl.endsAt) },
        }
      : {
          gate: 'exclusion',
          pass: true,
          reason: 'EXCLUDED',
          message: `no maintenance exclusion at ${iso(at)}`,
          details: { at: iso(at) },
        },
    {
      gate: 'health',
      pass: !(state.healthGate && issues.length > 0),
      reason: 'UNHEALTHY',
      message:
        issues.length === 0
          ? 'no health issues'
          : state.healthGate
            ? `health gate: ${issues.join('; ')}`
            : `health gate off (issues: ${issues.join('; ')})`,
      details: { healthGate: state.healthGate, issues: issues.length },
    },
    {
      gate: 'provider',
      pass: providerError === undefined,
      reason: 'PROVIDER_ERROR',
      message: providerError === undefined ? 'the provider read the cluster' : `the provider could not read the cluster: ${providerError}`,
      details: {},
    },
    {
      gate: 'halt',
      pass: halted === null,
      reason: 'HALTED_BY_FAILURE',
      message: halted ?? (version ? `no unacknowledged failure of ${version} halts it` : 'no upgrade to halt'),
      details: {},
    },
    {
      gate: 'version-gate',
      pass: gate === null,
      reason: 'VERSION_GATE',
      message: gate ? gate.message : version ? `no version gate pending for ${version}` : 'no upgrade to gate',
      details: gate ? { gateId: gate.id, minor: gate.minor } : {},
    },
    {
      gate: 'operators',
      pass: operators === undefined,
      reason: 'OPERATOR_INCOMPATIBLE',
      message: operators?.message ?? (version ? `no installed operator limits ${version}` : 'no upgrade to check'),
      details: {},
    },
    {
      gate: 'removed-apis',
      pass: removedApis === undefined,
      reason: 'REMOVED_API_IN_USE',
      message: removedApis?.message ?? (version ? `no API ${version} removes is in use` : 'no upgrade to check'),
      details: {},
    },
  ];
}

type ClusterIndex = ReadonlyMap<string, PlanInput['clusters'][number]>;

function gateFor(
  d: Decision,
  input: PlanInput,
  sectorOf: (cluster: string) => string | undefined,
  state: GateState,
  versionOf: (cluster: string) => string | undefined,
): { reason: GateReason; message: string } | null {
  if (d.action !== 'upgrade') return null;
  const sector = sectorOf(d.cluster);
  const at = parseInstant(d.nextRun) ?? parseInstant(input.now) ?? 0;
  const fromVersion = state.inhibitors?.has(d.cluster) ? versionOf(d.cluster) : undefined;
  const failed = gateChecks(d.cluster, sector, at, state, d.version, fromVersion).find((g) => !g.pass);
  return failed ? { reason: failed.reason, message: failed.message } : null;
}

/** What a held-back cluster gets from its engine run (the gate's decision replaces it). */
export function heldBackDecision(cluster: string): Decision {
  return { cluster, action: 'skip', reason: 'SUSPENDED', message: 'held back by a gate for this run' };
}

/**
 * Runs the engine and applies the gates. Returns the decisions in the engine's order with gated
 * upgrades turned into skips (FROZEN / EXCLUDED / UNHEALTHY) and gated scheduled upgrades into
 * cancels; the engine's versionData (soak) is that of the plain input. `decide` is one engine
 * run in which the `heldBack` clusters (gated upgrades) sit the run out: they neither upgrade
 * nor take mutexes, as if their schedule were suspended (evaluateFleet's run, which also records
 * explanations, gives them heldBackDecision).
 */
export function decideWithGates(
  input: PlanInput,
  state: GateState,
  decide: (input: PlanInput, heldBack: ReadonlySet<string>) => PlanResult,
): GatedPlan {
  let result = decide(input, new Set());
  // no gate can act: the engine's result as it is (the forecast runs this thousands of times)
  if (
    !state.frozen &&
    state.exclusions.length === 0 &&
    !(state.healthGate && state.healthIssues.size > 0) &&
    !(state.providerErrors && state.providerErrors.size > 0) &&
    !(state.halts && hasHalts(state.halts))
    // version gates and inhibitors hold candidates inside the engine (candidateHoldsOf): the
    // engine never chooses a held version, so they cannot gate a decision here
  )
    return { now: result.now, decisions: result.decisions, versionData: result.versionData, runs: 1 };
  const gated = new Map<string, { reason: GateReason; message: string }>();
  // the cluster index (10,000 entries at scale) is built only when a gate needs a cluster:
  // a sector for exclusions or halts, a scheduled upgrade to cancel under a freeze or exclusion
  let index: ClusterIndex | undefined;
  const clusterNamed = (name: string) => (index ??= new Map(input.clusters.map((c) => [c.name, c]))).get(name);
  const sectorMatters = state.exclusions.length > 0 || (state.halts !== undefined && hasHalts(state.halts));
  const sectorOf = (name: string) => (sectorMatters ? clusterNamed(name)?.upgradePolicy?.conditions.sector : undefined);
  const mayCancel = state.frozen || state.exclusions.length > 0;
  const versionData = result.versionData;
  let runs = 1;
  for (;;) {
    let added = false;
    for (const d of result.decisions) {
      if (gated.has(d.cluster)) continue;
      const g = gateFor(d, input, sectorOf, state, (name) => clusterNamed(name)?.version);
      if (g) {
        gated.set(d.cluster, g);
        added = true;
      }
    }
    // a freeze gates every upgrade at once: no re-run can free anything
    if (!added || state.frozen) break;
    result = decide(input, new Set(gated.keys()));
    runs++;
  }
  const nowMs = parseInstant(input.now) ?? 0;
  const decisions: GatedDecision[] = result.decisions.map((d) => {
    const g = gated.get(d.cluster);
    if (g) return { cluster: d.cluster, action: 'skip', reason: g.reason, message: g.message };
    if (!mayCancel || d.action !== 'skip' || d.reason !== 'UPGRADE_PENDING') return d;
    const cluster = clusterNamed(d.cluster);
    const cu = cluster?.currentUpgrade;
    if (cluster && cu && cu.state === 'scheduled') {
      const runAt = parseInstant(cu.nextRun) ?? nowMs;
      if (runAt > nowMs) {
        if (state.frozen)
          return {
            cluster: d.cluster,
            action: 'cancel',
            version: cu.version,
            reason: 'FROZEN',
            message: `organization frozen: scheduled upgrade to ${cu.version} cancelled`,
          };
        const excl = findExclusion(state.exclusions, d.cluster, cluster.upgradePolicy?.conditions.sector, runAt, cluster.labels);
        if (excl)
          return {
            cluster: d.cluster,
            action: 'cancel',
            version: cu.version,
            reason: 'EXCLUDED',
            message: `scheduled upgrade to ${cu.version} falls in a maintenance exclusion: ${excl.reason}`,
          };
      }
    }
    return d;
  });
  return { now: result.now, decisions, versionData, runs };
}
