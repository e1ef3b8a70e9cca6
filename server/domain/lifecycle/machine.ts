/**
 * The upgrade lifecycle: one explicit state machine per upgrade attempt (one cluster, one target
 * version, one slot). Pure: the tick (server/scheduler/run-tick.ts) passes the time, the provider's
 * reading of the cluster, what the rest of fleetplan says (freeze, exclusions, ...) and the hook
 * verdicts; `stepAttempt` returns the new attempt, the transitions to record and the effects to
 * carry out. The only effect that writes to a provider's upgrade API is `start` (and `cancel-at-
 * provider` for an upgrade the provider holds but has not begun); after the platform upgrade
 * completed, `approve-installplan` approves one operator's InstallPlan (operator-approvals.ts).
 *
 *   scheduled ─▶ pre-checks ─▶ (pre-hook) ─▶ started ─▶ upgrading ─▶ (operator-approvals) ─▶ (post-hook) ─▶ post-checks ─▶ completed
 *   exits: skipped(reason) before the start, cancelled(reason), failed(reason), timed-out
 *
 * With lifecycle.eusControlPlaneOnly and an EUS-to-EUS route (eus-procedure.ts), the attempt's
 * target is the route's end and `started`/`upgrading` are replaced by
 *   pre-checks ─▶ pausing-workers ─▶ control-plane-hop (each hop, each admin ack a note) ─▶ unpausing-workers ─▶ workers-rolling ─▶ (operator-approvals) ─▶ …
 *
 * - `scheduled`: fleetplan-side only (nothing at the provider). At `slot - preCheckLead` the gates
 *   are evaluated once as a notice (`precheck-failed` effect when one fails). At `slot -
 *   startLeadMs` (the provider's minimum lead) → `pre-checks`. Before that, an un-managed, frozen,
 *   excluded, blocked or halted cluster, or a withdrawn engine decision, cancels the attempt.
 * - `pre-checks`: the start gates (gates.ts) on a fresh reading; a failing gate → `skipped`.
 * - `pre-hook`: waits across ticks for the hook's verdict, re-checking the gates each tick.
 * - `started`: the start effect was issued (its intent written first). Until the provider is seen
 *   to hold the upgrade (`startConfirmedAt`), a tick re-issues the same start (same idempotency
 *   key) only while the gates still pass; a provider that already holds it is never asked again.
 * - `upgrading` → provider completion → `operator-approvals` (only with `lifecycle.operatorApprovals`:
 *   the pending manual InstallPlans of the selected operators are approved, one
 *   `approve-installplan` effect each, and waited for until Complete; see operator-approvals.ts;
 *   a provider without InstallPlans skips it with a note; each approval is recorded as a
 *   self-transition) → `post-hook` → `post-checks` (health again) → `completed`.
 *   Provider failure → `failed(PROVIDER_FAILED)`; not completed by `start + upgradeTimeout` →
 *   `timed-out` (nothing rolled back).
 */
import { compareVersions, isSemver } from '@/server/domain/version/version';
import { firstFailingGate, frozenMessage, startGates, unmanagedMessage, type FleetConditions } from './gates';
import { healthProblems, type ClusterReading, type ObservedCluster } from './observation';
import { formatDuration, type LifecycleOptions } from './options';
import type { LifecycleReason } from './reasons';
import { stepOperatorApprovals, type ApprovalEffect, type InstallPlansReading } from './operator-approvals';
import type { OperatorApprovalsProgress } from './operator-approvals';
import {
  beginPause,
  beginUnpause,
  stepControlPlane,
  stepPausing,
  stepRollout,
  stepUnpausing,
  type EusEffect,
  type EusOutcome,
  type EusProcedureProgress,
  type EusStepInput,
} from './eus-procedure';

export const LIFECYCLE_STATES = [
  'scheduled',
  'pre-checks',
  'pre-hook',
  'started',
  'upgrading',
  'pausing-workers',
  'control-plane-hop',
  'unpausing-workers',
  'workers-rolling',
  'operator-approvals',
  'post-hook',
  'post-checks',
  'completed',
  'skipped',
  'cancelled',
  'failed',
  'timed-out',
] as const;
export type LifecycleState = (typeof LIFECYCLE_STATES)[number];

export const FINAL_STATES: ReadonlySet<LifecycleState> = new Set(['completed', 'skipped', 'cancelled', 'failed', 'timed-out']);
/** Final states that count as a failure (they halt, and need an acknowledgement). */
export const FAILURE_STATES: ReadonlySet<LifecycleState> = new Set(['failed', 'timed-out']);

/** Every allowed transition; anything else is a bug (stepAttempt throws). */
export const ALLOWED_TRANSITIONS: Readonly<Record<LifecycleState, readonly LifecycleState[]>> = {
  scheduled: ['pre-checks', 'cancelled'],
  'pre-checks': ['pre-hook', 'started', 'pausing-workers', 'skipped'],
  'pre-hook': ['started', 'pausing-workers', 'skipped', 'cancelled'],
  started: ['upgrading', 'operator-approvals', 'post-hook', 'post-checks', 'failed', 'timed-out', 'cancelled', 'skipped'],
  upgrading: ['operator-approvals', 'post-hook', 'post-checks', 'failed', 'timed-out', 'cancelled'],
  // the EUS-to-EUS procedure (eus-procedure.ts); control-plane-hop notes each hop and ack on itself
  'pausing-workers': ['control-plane-hop', 'failed', 'timed-out'],
  'control-plane-hop': ['control-plane-hop', 'unpausing-workers', 'failed', 'timed-out'],
  'unpausing-workers': ['workers-rolling', 'failed', 'timed-out'],
  'workers-rolling': ['operator-approvals', 'post-hook', 'post-checks', 'failed', 'timed-out'],
  // itself: a note per approval (or plan left pending), so the history and Activity name each
  'operator-approvals': ['operator-approvals', 'post-hook', 'post-checks', 'failed'],
  'post-hook': ['post-checks', 'failed', 'timed-out'],
  'post-checks': ['completed', 'failed', 'timed-out'],
  completed: [],
  skipped: [],
  cancelled: [],
  failed: [],
  'timed-out': [],
};

export interface UpgradeAttempt {
  id: number;
  cluster: string;
  fromVersion: string;
  toVersion: string;
  /** the slot's start (ms) */
  slot: number;
  /**
   * the channel the start switches the cluster to first (a hop of a route into another minor's
   * channel, plan/route-following.ts); null: the start leaves the channel as it is
   */
  channel: string | null;
  state: LifecycleState;
  reason: LifecycleReason | null;
  message: string | null;
  /** when the pre-health notice was evaluated (once) */
  noticeAt: number | null;
  /** when the start effect was first issued (its intent written) */
  startRequestedAt: number | null;
  /** when the provider was seen to hold the upgrade (call returned, or observed after a crash) */
  startConfirmedAt: number | null;
  /** when the provider first reported it running */
  runningAt: number | null;
  /** when the provider reported it completed */
  providerDoneAt: number | null;
  /** when it reached a final state */
  finishedAt: number | null;
  /** the operator-approvals phase's record (null: not reached, or the policy has none) */
  operatorApprovals: OperatorApprovalsProgress | null;
  /**
   * the EUS-to-EUS control-plane-only procedure's record (eus-procedure.ts): set when the attempt
   * was created for such a run (toVersion is then the route's end); null: an ordinary attempt
   */
  eusProcedure: EusProcedureProgress | null;
}

export type HookVerdict = { state: 'none' } | { state: 'pending' } | { state: 'allowed' } | { state: 'refused'; reason: string };
export type HookStage = 'pre-upgrade' | 'post-upgrade';

export interface StepInput {
  now: number;
  options: LifecycleOptions;
  /** how long before the slot the provider is told (OCM: 10 min; 0 elsewhere) */
  startLeadMs: number;
  /** the provider refuses a start less than this far ahead (OCM: 5 min; 0 elsewhere) */
  minStartNoticeMs: number;
  /** the freshest read of the cluster the tick has (fresh when needsFreshReading said so) */
  reading: ClusterReading;
  fleet: FleetConditions;
  /** set when the engine no longer upgrades the cluster to this version in this slot */
  decisionWithdrawn: { message: string } | null;
  hooks: { pre: HookVerdict; post: HookVerdict };
  /** the cluster's InstallPlans, read for an attempt in `operator-approvals` (absent: not read) */
  installPlans?: InstallPlansReading;
}

export type LifecycleEffect =
  /** switches the cluster's channel before the start that follows it in the same step (its own intent) */
  | { kind: 'set-channel'; idempotencyKey: string; channel: string; version: string }
  | { kind: 'start'; idempotencyKey: string; version: string; at: number }
  | { kind: 'cancel-at-provider'; idempotencyKey: string; version: string }
  | { kind: 'precheck-failed'; reason: LifecycleReason; message: string }
  | { kind: 'request-hook'; stage: HookStage }
  | ApprovalEffect
  | EusEffect;

export interface LifecycleTransition {
  from: LifecycleState;
  to: LifecycleState;
  reason: LifecycleReason | null;
  message: string;
  at: number;
}

export interface StepResult {
  attempt: UpgradeAttempt;
  transitions: LifecycleTransition[];
  effects: LifecycleEffect[];
}

export const startKey = (attemptId: number) => `${attemptId}:start`;
export const cancelKey = (attemptId: number) => `${attemptId}:cancel`;
export const channelKey = (attemptId: number) => `${attemptId}:channel`;

/** A new attempt in `scheduled` (fleetplan-side only: nothing is sent to the provider). */
export function newAttempt(
  id: number,
  cluster: string,
  fromVersion: string,
  toVersion: string,
  slot: number,
  channel: string | null = null,
  eusProcedure: EusProcedureProgress | null = null,
): UpgradeAttempt {
  return {
    id,
    cluster,
    fromVersion,
    toVersion,
    slot,
    channel,
    state: 'scheduled',
    reason: null,
    message: null,
    noticeAt: null,
    startRequestedAt: null,
    startConfirmedAt: null,
    runningAt: null,
    providerDoneAt: null,
    finishedAt: null,
    operatorApprovals: null,
    eusProcedure,
  };
}

export const isFinal = (state: LifecycleState) => FINAL_STATES.has(state);

/** states in which the provider has begun the upgrade (it reports it itself from then on) */
const BEGUN_AT_PROVIDER: ReadonlySet<LifecycleState> = new Set([
  'upgrading',
  'control-plane-hop',
  'unpausing-workers',
  'workers-rolling',
  'operator-approvals',
  'post-hook',
  'post-checks',
]);

/**
 * The attempt holds its upgrade in fleetplan's view while the provider has not taken it (yet):
 * the tick shows it as the cluster's scheduled upgrade. Once the provider took the start, it
 * reports the upgrade itself; when it no longer does, the upgrade is over (OCM removes a completed
 * manual policy) or was removed, and the lifecycle says which.
 */
export function holdsUpgradeInOurView(a: UpgradeAttempt): boolean {
  return !isFinal(a.state) && !BEGUN_AT_PROVIDER.has(a.state) && a.startConfirmedAt === null;
}

/** When the start gates are checked (and the provider told): the slot minus the provider's lead. */
export const startWindowOpensAt = (a: Pick<UpgradeAttempt, 'slot'>, startLeadMs: number) => a.slot - startLeadMs;

/** The tick should read this cluster afresh (observeCluster) before stepping it. */
export function needsFreshReading(a: UpgradeAttempt, now: number, startLeadMs: number): boolean {
  switch (a.state) {
    case 'scheduled':
      return now >= startWindowOpensAt(a, startLeadMs);
    case 'pre-checks':
    case 'pre-hook':
    case 'post-checks':
      return true;
    case 'started':
      return a.startConfirmedAt === null;
    // the EUS procedure's pool writes are judged on what the pools say now; its hops, like
    // `upgrading`, on the tick's own read (a second read may no longer carry the provider's
    // one-time report of a finished or failed update: the simulator reports it once)
    case 'pausing-workers':
    case 'unpausing-workers':
      return true;
    default:
      return false;
  }
}

/** The tick should read the cluster's InstallPlans (listInstallPlans) before stepping it. */
export const needsInstallPlans = (a: Pick<UpgradeAttempt, 'state'>) => a.state === 'operator-approvals';

/** The provider holds (or already went through) the attempt's upgrade. */
function providerHasUpgrade(c: ObservedCluster, a: UpgradeAttempt): boolean {
  return (
    c.currentUpgrade?.version === a.toVersion ||
    c.lastUpgrade?.version === a.toVersion ||
    (c.version !== a.fromVersion && isSemver(c.version) && isSemver(a.toVersion) && compareVersions(c.version, a.toVersion) >= 0)
  );
}

/** What stops an upgrade that has not begun (scheduled, or held by the provider but not running). */
function cancelCause(input: StepInput): { reason: LifecycleReason; message: string } | null {
  const f = input.fleet;
  if (!f.managed) return { reason: 'UNMANAGED', message: unmanagedMessage(f) };
  if (f.frozen) return { reason: 'FROZEN', message: frozenMessage(f.frozen.reason) };
  if (f.exclusion) return { reason: 'EXCLUDED', message: f.exclusion };
  if (f.blockedBy) return { reason: 'VERSION_BLOCKED', message: `the target is blocked (${f.blockedBy})` };
  if (f.haltedBy) return { reason: 'HALTED_BY_FAILURE', message: f.haltedBy };
  if (f.sectorGate) return { reason: f.sectorGate.reason, message: f.sectorGate.message };
  if (input.decisionWithdrawn) return { reason: 'DECISION_CHANGED', message: input.decisionWithdrawn.message };
  return null;
}

/**
 * One step of one attempt at `input.now`. Several transitions may happen in one step (e.g.
 * scheduled → pre-checks → started); final attempts are returned unchanged.
 */
export function stepAttempt(attempt: UpgradeAttempt, input: StepInput): StepResult {
  let a = attempt;
  const transitions: LifecycleTransition[] = [];
  const effects: LifecycleEffect[] = [];
  const { now, options } = input;
  const move = (to: LifecycleState, reason: LifecycleReason | null, message: string, patch: Partial<UpgradeAttempt> = {}) => {
    if (!ALLOWED_TRANSITIONS[a.state].includes(to)) throw new Error(`lifecycle bug: ${a.state} → ${to} is not a transition`);
    transitions.push({ from: a.state, to, reason, message, at: now });
    a = { ...a, ...patch, state: to, reason, message, ...(isFinal(to) ? { finishedAt: now } : {}) };
  };
  // The earliest start the provider takes: the slot, or, when too little of its notice is left
  // before the slot (the scheduler was down, a hook answered late), now plus that notice. Gates
  // judge that start, so a start moved past slot + maxUpgradeStartDelay is START_LATE, never sent.
  const startAt = () => Math.max(a.slot, now + input.minStartNoticeMs);
  // an EUS-to-EUS run's start is its first hop's: that is what the cluster must offer now
  const firstHop = () => {
    const hop = a.eusProcedure?.hops[0];
    return hop ? { ...a, toVersion: hop.version, channel: hop.channel } : a;
  };
  const gates = () => startGates(firstHop(), startAt(), options, input.reading, input.fleet);
  // the tick carries the start out after this step: nothing more to judge until it has
  let startIssued = false;
  // A route's hop into another minor's channel switches the channel first, as its own write: only
  // while the provider reports another channel (a switch seen done, before a crash or by hand, is
  // not sent again); the tick sends the start only once the switch went through.
  const channelSwitch = (): LifecycleEffect | null => {
    const observed = input.reading.ok ? input.reading.cluster.channel : undefined;
    if (a.channel === null || observed === a.channel) return null;
    return { kind: 'set-channel', idempotencyKey: channelKey(a.id), channel: a.channel, version: a.toVersion };
  };
  const eusInput = (): EusStepInput | null => {
    if (!input.reading.ok) return null;
    return {
      attemptId: a.id,
      now,
      cluster: input.reading.cluster,
      upgradeTimeoutMs: options.upgradeTimeoutMs,
      workerRolloutTimeoutMs: (options.eusControlPlaneOnly ?? { workerRolloutTimeoutMs: options.upgradeTimeoutMs }).workerRolloutTimeoutMs,
      hopGate: (from, hop, ignoreUpgradeable) => {
        // the second hop is judged as a start now (no slot lateness: the run began at its slot)
        const target = { fromVersion: from, toVersion: hop.version, slot: now, channel: hop.channel };
        const failing = startGates(target, now, options, input.reading, input.fleet).find(
          (g) => !g.pass && !(ignoreUpgradeable && g.reason === 'NOT_UPGRADEABLE'),
        );
        return failing ? { reason: failing.reason, message: failing.message } : null;
      },
    };
  };
  /** applies a phase's outcome: notes, effects, its record; `next` says where a finished phase goes */
  const applyEus = (out: EusOutcome, next: (message: string, progress: EusProcedureProgress) => void) => {
    out.notes.forEach(note);
    if (out.kind === 'failed') {
      if (out.timedOut) move('timed-out', out.reason, out.message, { eusProcedure: out.progress });
      else move('failed', out.reason, out.message, { eusProcedure: out.progress });
      return;
    }
    effects.push(...out.effects);
    if (out.kind === 'next') next(out.message, out.progress);
    else if (JSON.stringify(out.progress) !== JSON.stringify(a.eusProcedure)) a = { ...a, eusProcedure: out.progress };
  };
  const beginEus = (progress: EusProcedureProgress) => {
    startIssued = true;
    const pools = input.reading.ok ? (input.reading.cluster.machineConfigPools ?? []) : [];
    const begun = beginPause(a.id, progress, pools, now);
    move('pausing-workers', null, begun.message, { startRequestedAt: now, eusProcedure: begun.progress });
    effects.push(...begun.effects);
    // no pool to pause (all paused by the admin, or none): the first hop goes in this same step
    if (begun.effects.length === 0) startIssued = false;
  };
  const start = () => {
    if (a.eusProcedure) return beginEus(a.eusProcedure);
    startIssued = true;
    const at = startAt();
    const moved =
      at > a.slot && at > now
        ? `; at ${new Date(at).toISOString()}, ${formatDuration(at - a.slot)} after the slot: the provider needs ${formatDuration(input.minStartNoticeMs)} notice`
        : '';
    const switching = channelSwitch();
    const channel = switching?.kind === 'set-channel' ? `; the channel is switched to ${switching.channel} first` : '';
    move('started', null, `start of the upgrade to ${a.toVersion} requested${moved}${channel}`, { startRequestedAt: now });
    if (switching) effects.push(switching);
    effects.push({ kind: 'start', idempotencyKey: startKey(a.id), version: a.toVersion, at });
  };
  // an EUS run's post stages count from the worker rollout's end, not from its first write
  const clockStart = () => a.eusProcedure?.rolledOutAt ?? Math.max(a.slot, a.startRequestedAt ?? a.slot);
  const timedOut = () => now > clockStart() + options.upgradeTimeoutMs;
  const timeOut = () =>
    move(
      'timed-out',
      'UPGRADE_TIMEOUT',
      `not completed ${formatDuration(options.upgradeTimeoutMs)} after its start at ${new Date(clockStart()).toISOString()}; the provider state is kept`,
    );
  const toPostStages = (message: string, patch: Partial<UpgradeAttempt>) => {
    if (input.hooks.post.state === 'none') move('post-checks', null, message, patch);
    else {
      move('post-hook', null, `${message}; waiting for the post-upgrade hook`, patch);
      effects.push({ kind: 'request-hook', stage: 'post-upgrade' });
    }
  };
  /** a note in the history without a change of state (each approval, each plan left pending) */
  const note = (message: string) => transitions.push({ from: a.state, to: a.state, reason: null, message, at: now });
  const platformDone = (done = `the provider reports the upgrade to ${a.toVersion} completed`, patch: Partial<UpgradeAttempt> = {}) => {
    const config = options.operatorApprovals;
    if (!config) return toPostStages(done, { providerDoneAt: now, ...patch });
    move(
      'operator-approvals',
      null,
      `${done}; approving the pending manual InstallPlans of the selected operators (timeout ${formatDuration(config.timeoutMs)})`,
      { providerDoneAt: now, ...patch, operatorApprovals: { since: now, approved: [], left: [], doneAt: null } },
    );
  };

  for (let guard = 0; guard < LIFECYCLE_STATES.length && !isFinal(a.state); guard++) {
    const before = a.state;
    switch (a.state) {
      case 'scheduled': {
        const opens = startWindowOpensAt(a, input.startLeadMs);
        const cause = cancelCause(input);
        if (cause) {
          move('cancelled', cause.reason, cause.message);
          break;
        }
        if (now >= opens) {
          move('pre-checks', null, 'start-time gates');
          break;
        }
        if (a.noticeAt === null && now >= a.slot - options.preCheckLeadMs) {
          a = { ...a, noticeAt: now };
          // the notice judges what will hold at the slot; lateness cannot apply yet
          const failing = firstFailingGate(startGates(a, a.slot, options, input.reading, { ...input.fleet, paused: false }));
          if (failing) effects.push({ kind: 'precheck-failed', reason: failing.reason, message: failing.message });
        }
        break;
      }
      case 'pre-checks': {
        const failing = firstFailingGate(gates());
        if (failing) move('skipped', failing.reason, failing.message);
        else if (input.hooks.pre.state === 'none') start();
        else {
          move('pre-hook', null, 'gates passed; waiting for the pre-upgrade hook');
          effects.push({ kind: 'request-hook', stage: 'pre-upgrade' });
        }
        break;
      }
      case 'pre-hook': {
        const verdict = input.hooks.pre;
        const failing = firstFailingGate(gates());
        if (input.decisionWithdrawn || !input.fleet.managed) {
          const cause = cancelCause(input)!;
          move('cancelled', cause.reason, cause.message);
        } else if (verdict.state === 'refused') move('skipped', 'HOOK_REFUSED', `pre-upgrade hook refused: ${verdict.reason}`);
        else if (failing?.reason === 'START_LATE' && verdict.state === 'pending')
          move('skipped', 'HOOK_TIMEOUT', `no verdict from the pre-upgrade hook by the latest start (${failing.message})`);
        else if (failing) move('skipped', failing.reason, failing.message);
        else if (verdict.state !== 'pending') start();
        break;
      }
      case 'started':
      case 'upgrading': {
        if (!input.reading.ok) {
          if (a.startConfirmedAt !== null && timedOut()) timeOut();
          break;
        }
        const c = input.reading.cluster;
        if (a.startConfirmedAt === null) {
          if (providerHasUpgrade(c, a)) {
            a = { ...a, startConfirmedAt: now };
            continue; // judge the confirmed upgrade in this same step
          }
          const failing = firstFailingGate(gates());
          if (failing)
            move(
              'skipped',
              failing.reason === 'START_LATE' ? 'START_FAILED' : failing.reason,
              `the provider never took the start: ${failing.message}`,
            );
          else {
            const switching = channelSwitch();
            if (switching) effects.push(switching);
            effects.push({ kind: 'start', idempotencyKey: startKey(a.id), version: a.toVersion, at: startAt() });
          }
          break;
        }
        const last = c.lastUpgrade?.version === a.toVersion ? c.lastUpgrade : null;
        const current = c.currentUpgrade?.version === a.toVersion ? c.currentUpgrade : null;
        if (last?.state === 'failed') move('failed', 'PROVIDER_FAILED', last.message ?? 'the provider reports the upgrade failed');
        else if (last?.state === 'completed' || (!current && c.version === a.toVersion)) platformDone();
        else if (timedOut()) timeOut();
        else if (current?.state === 'started') {
          if (a.state === 'started')
            move('upgrading', null, `the provider reports the upgrade to ${a.toVersion} running`, { runningAt: now });
        } else if (current) {
          // held by the provider, not begun (OCM before next_run): still withdrawn when a cause says so
          const cause = cancelCause(input);
          if (cause) {
            move('cancelled', cause.reason, cause.message);
            effects.push({ kind: 'cancel-at-provider', idempotencyKey: cancelKey(a.id), version: a.toVersion });
          }
        } else
          move(
            'cancelled',
            'REMOVED_AT_PROVIDER',
            c.currentUpgrade
              ? `the provider now reports an upgrade to ${c.currentUpgrade.version} instead`
              : `the provider no longer reports the upgrade to ${a.toVersion}`,
          );
        break;
      }
      case 'pausing-workers':
      case 'control-plane-hop':
      case 'unpausing-workers':
      case 'workers-rolling': {
        const eus = eusInput();
        const progress = a.eusProcedure;
        if (!eus || !progress) {
          // not read this tick: nothing is judged on data fleetplan could not see (the phase's timeout still counts)
          const since = progress?.phaseSince ?? a.startRequestedAt ?? now;
          const limit =
            a.state === 'workers-rolling'
              ? (options.eusControlPlaneOnly?.workerRolloutTimeoutMs ?? options.upgradeTimeoutMs)
              : options.upgradeTimeoutMs;
          if (now > since + limit)
            move(
              a.state === 'workers-rolling' ? 'failed' : 'timed-out',
              a.state === 'workers-rolling' ? 'WORKER_ROLLOUT_TIMEOUT' : 'UPGRADE_TIMEOUT',
              `the cluster could not be read for ${formatDuration(limit)} during ${a.state}${input.reading.ok ? '' : `: ${input.reading.message}`}`,
            );
          break;
        }
        if (a.state === 'pausing-workers')
          applyEus(stepPausing(eus, progress), (message, p) => move('control-plane-hop', null, message, { eusProcedure: p }));
        else if (a.state === 'control-plane-hop') {
          const out = stepControlPlane(eus, progress);
          const confirmed = out.progress.hops[0]?.confirmedAt ?? null;
          const running = out.progress.hops.find((h) => h.runningAt !== null)?.runningAt ?? null;
          if (a.startConfirmedAt === null && confirmed !== null) a = { ...a, startConfirmedAt: confirmed };
          if (a.runningAt === null && running !== null) a = { ...a, runningAt: running };
          applyEus(out, (message, p) => {
            const unpause = beginUnpause(a.id, p, eus.cluster.machineConfigPools ?? [], now);
            move('unpausing-workers', null, `${message}; unpausing worker pools ${(p.pausedByUs ?? []).join(', ') || 'none'}`, {
              providerDoneAt: now,
              eusProcedure: unpause.progress,
            });
            effects.push(...unpause.effects);
          });
        } else if (a.state === 'unpausing-workers')
          applyEus(stepUnpausing(eus, progress), (message, p) => move('workers-rolling', null, message, { eusProcedure: p }));
        else applyEus(stepRollout(eus, progress), (message, p) => platformDone(message, { eusProcedure: p }));
        break;
      }
      case 'operator-approvals': {
        const progress = a.operatorApprovals ?? { since: a.providerDoneAt ?? now, approved: [], left: [], doneAt: null };
        const config = options.operatorApprovals;
        const plans = input.installPlans ?? { state: 'unread' };
        if (!config) {
          toPostStages('operatorApprovals is no longer in the policy: no more approvals', {
            operatorApprovals: { ...progress, doneAt: now },
          });
          break;
        }
        if (plans.state === 'unsupported') {
          toPostStages(`operator approvals skipped: ${plans.message}`, { operatorApprovals: { ...progress, doneAt: now } });
          break;
        }
        // approving is a write to the cluster like a start: none while the organization is frozen
        // or a maintenance exclusion covers the cluster (the phase waits; its timeout still runs)
        const heldBy = input.fleet.frozen ? frozenMessage(input.fleet.frozen.reason) : input.fleet.exclusion;
        if (heldBy) {
          if (now > progress.since + config.timeoutMs)
            move('failed', 'OPERATOR_APPROVAL_TIMEOUT', `operator approvals held (${heldBy}) beyond ${formatDuration(config.timeoutMs)}`, {
              operatorApprovals: progress,
            });
          else if (a.operatorApprovals === null) a = { ...a, operatorApprovals: progress };
          break;
        }
        const out = stepOperatorApprovals(a.id, config, progress, plans, now);
        out.notes.forEach(note);
        if (out.kind === 'failed') move('failed', out.reason, out.message, { operatorApprovals: out.progress });
        else if (out.kind === 'done') toPostStages(`operator approvals done: ${out.summary}`, { operatorApprovals: out.progress });
        else {
          if (JSON.stringify(out.progress) !== JSON.stringify(progress) || a.operatorApprovals === null)
            a = { ...a, operatorApprovals: out.progress };
          effects.push(...out.effects);
        }
        break;
      }
      case 'post-hook': {
        const verdict = input.hooks.post;
        if (verdict.state === 'refused') move('failed', 'POST_HOOK_FAILED', `post-upgrade hook: ${verdict.reason}`);
        else if (verdict.state === 'allowed' || verdict.state === 'none') move('post-checks', null, 'post-upgrade hook passed');
        else if (timedOut()) timeOut();
        break;
      }
      case 'post-checks': {
        if (!input.reading.ok) {
          if (timedOut()) timeOut();
          break;
        }
        const problems = healthProblems(input.reading.cluster.health, options.healthChecks);
        if (problems.length > 0) move('failed', 'POST_CHECK_FAILED', `unhealthy after the upgrade: ${problems.join('; ')}`);
        else move('completed', null, `upgraded to ${a.toVersion}`);
        break;
      }
      default:
        break;
    }
    if (a.state === before || startIssued) break;
  }
  return { attempt: a, transitions, effects };
}
