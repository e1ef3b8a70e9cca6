/**
 * One scheduler tick, fully injectable ({db, now, provider, dryRun, holder}); no timers. A thin loop
 * around the pure upgrade lifecycle (server/domain/lifecycle/machine.ts):
 *
 * 1. Take the database lease (only one scheduler acts, even across processes).
 * 2. Observe the fleet (read-only). Clusters the provider could not read are marked
 *    PROVIDER_ERROR and the tick goes on for the rest.
 * 3. Store the snapshot (cluster rows and upgrade history; no webhook events: those come from
 *    lifecycle transitions only, so nothing is announced twice).
 * 4. Run the engine plus the gates (freeze, exclusions, health, provider errors, failure halts)
 *    and record the decisions that changed.
 * 5. Lifecycle: an `upgrade` decision creates an attempt `scheduled` for its slot (fleetplan-side
 *    only); every active attempt is stepped. The `start` effect is the only provider write: its
 *    intent row is written with the step before the call, and an unconfirmed start is reconciled
 *    by observation on a later tick (the machine never re-sends what the provider holds). After
 *    the platform upgrade, each `approve-installplan` effect (operator-approvals phase) is an
 *    intent of its own, written the same way before its call and reconciled by a later read of
 *    the plan (`approved: true` is never patched again).
 *
 * A dry run observes and decides but writes nothing: no provider call, no snapshot, no attempt;
 * only its tick row and the decisions it would make. A tick never throws: failures are recorded
 * on its scheduler_ticks row and returned.
 */
import type { Db } from '@/db/open-database';
import { identifierProblem } from '@/server/domain/identifiers';
import { validatePlanInput } from '@/server/domain/plan/validate-plan-input';
import { evaluateFleet } from '@/server/domain/evaluation/evaluate-fleet';
import { blockingPatternOf } from '@/server/domain/plan/blocked-versions';
import type { Cluster as PlanCluster, PlanInput } from '@/server/domain/plan/types';
import { boundExceeded, boundsForCluster, describeBound } from '@/server/domain/plan/version-bounds';
import { sectorStartHold } from '@/server/domain/plan/sector-gates';
import { canaryStartHold } from '@/server/domain/plan/canaries';
import { findExclusion, type GatedDecision } from '@/server/domain/scheduling/apply-gates';
import { observeSnapshots, withClusterRowUpdates, type ClusterRowUpdate } from '@/server/domain/scheduling/snapshot-transitions';
import { planDecisionOutcomes } from '@/server/domain/scheduling/tick-decisions';
import { EMPTY_HALTS, haltReason, type HaltIndex } from '@/server/domain/lifecycle/halts';
import {
  channelKey,
  isFinal,
  needsFreshReading,
  needsInstallPlans,
  startKey,
  holdsUpgradeInOurView,
  stepAttempt,
  type HookStage,
  type HookVerdict,
  type LifecycleEffect,
  type LifecycleTransition,
  type StepInput,
  type StepResult,
  type UpgradeAttempt,
} from '@/server/domain/lifecycle/machine';
import type { ClusterReading } from '@/server/domain/lifecycle/observation';
import { approvalKey, planId, type InstallPlansReading } from '@/server/domain/lifecycle/operator-approvals';
import {
  hopChannelKey,
  hopStartKey,
  newEusProgress,
  pauseKey,
  unpauseKey,
  type EusEffect,
  type EusProcedureProgress,
} from '@/server/domain/lifecycle/eus-procedure';
import { DEFAULT_LIFECYCLE_OPTIONS } from '@/server/domain/lifecycle/options';
import { noInstallPlansMessage, type ClusterSnapshot, type FleetProvider } from '@/server/integrations/providers/types';
import { countDecisions, countIntent, countInterruptedTicks, countProviderError, countTick } from '@/server/metrics/counters';
import { listOrganizations, type OrganizationRow } from '@/server/repositories/organization-repository';
import {
  insertDecisions,
  insertIntent,
  loadClusterStates,
  recordUpgradeTransition,
  recordUpgradeTransitions,
  setClusterUpgrade,
  setClusterUpgrades,
  updateLastDecisions,
  markMissedAndGone,
  writeSnapshots,
  type DecisionWrite,
  type SnapshotInsert,
  type StoredClusterState,
} from '@/server/repositories/decision-repository';
import {
  insertAttempts,
  listActiveAttempts,
  saveAttemptStep,
  saveAttemptSteps,
  type NewAttempt,
  type StoredAttempt,
} from '@/server/repositories/lifecycle-repository';
import { loadPlanDocument } from '@/server/repositories/plan-document-repository';
import { formatInstantToSecond } from '@/server/domain/plan/time';
import {
  acquireLease,
  failInterruptedTicks,
  findIntentId,
  findIntentIds,
  findPendingIntentId,
  finishTick,
  insertTick,
  markIntentAttemptFailed,
  markIntentDone,
  readSetting,
  SCHEDULER_LEASE_NAME,
  SCHEDULER_PAUSED_SETTING,
} from '@/server/repositories/scheduler-repository';
import { maybeSampleSoak, saveVersionData } from '@/server/repositories/soak-repository';
import { withTransaction } from '@/server/repositories/transaction';
import { enqueueDeliveriesForEvents, hasEnabledWebhooks } from '@/server/repositories/webhook-repository';
import { loadGateState } from '@/server/repositories/gate-state-repository';
import type { UpgradeEvent } from '@/lib/upgrade-events';
import { createLeaseFence, fenceProviderWrites, LeaseLostError, type LeaseFence } from './lease-fence';

export const SCHEDULER_LEASE = SCHEDULER_LEASE_NAME;
export const DEFAULT_LEASE_TTL_MS = 5 * 60_000;

export interface RunTickOptions {
  db: Db;
  /** the fleet's clock (real time, or the simulator's) */
  now: Date;
  /** the first organization's provider, when `providerFor` is not given (tests, a one-organization instance) */
  provider?: FleetProvider;
  /**
   * each organization's provider (null: it has none; it is left out of this tick). A provider
   * that cannot be built fails that organization's part of the tick only.
   */
  providerFor?: (org: OrganizationRow, first: boolean) => Promise<FleetProvider | null> | FleetProvider | null;
  dryRun?: boolean;
  /** who acts: `host:pid` in the app; the lease is re-entrant for the same holder */
  holder: string;
  /** real time, for the lease and webhook deliveries (the fleet clock may run faster) */
  realNow?: () => Date;
  leaseTtlMs?: number;
  /** renews the lease this often while the tick runs (a long tick keeps it); not at all when absent */
  leaseRenewEveryMs?: number;
  log?: (message: string, detail?: Record<string, unknown>) => void;
  /** the pre/post hook verdict for an attempt (deliv's hookVerdict); none configured when absent */
  hookVerdict?: (db: Db, lifecycleId: number, stage: 'pre-upgrade' | 'post-upgrade') => Promise<HookVerdict>;
  /**
   * asks for the hook calls of a stage (deliv's requestHook: idempotent per attempt and stage; with
   * no hook configured nothing is queued and the verdict stays `none`)
   */
  requestHook?: (
    db: Db,
    req: {
      organizationId: number;
      lifecycleId: number;
      stage: 'pre-upgrade' | 'post-upgrade';
      cluster: string;
      sector: string | null;
      version: string;
      fromVersion: string | null;
    },
    realNow: Date,
  ) => Promise<void> | void;
}

export interface TickSummary {
  clusters: number;
  upgrades: number;
  skips: number;
  cancels: number;
  decisionsRecorded: number;
  /** attempts created (scheduled) this tick */
  intentsCreated: number;
  /** provider writes that succeeded (starts and cancels) */
  intentsDone: number;
  /** provider writes that failed (retried while the gates allow) */
  intentsFailed: number;
  /** active attempts stepped */
  reconciled: number;
  /** lifecycle transitions recorded */
  transitions: number;
  /** clusters the provider could not read */
  providerErrors: number;
  events: number;
  durationMs: number;
}

/** How one organization's part of a tick went (each organization is planned and acted on by itself). */
export interface OrganizationTickOutcome {
  organization: string;
  status: 'succeeded' | 'failed' | 'no-provider';
  error?: string;
}

export type TickResult =
  | { status: 'skipped'; reason: string }
  | {
      status: 'succeeded';
      tickId: number;
      summary: TickSummary;
      decisions: GatedDecision[];
      organizations: OrganizationTickOutcome[];
    }
  | { status: 'failed'; tickId: number; error: string; organizations?: OrganizationTickOutcome[] };

interface Ctx {
  db: Db;
  now: Date;
  realNow: () => Date;
  tickId: number;
  /** the organization whose part of the tick this is: its webhooks only get its events */
  organization: { id: number; name: string };
  events: number;
  hasWebhooks: boolean;
}

async function emit(ctx: Ctx, event: UpgradeEvent, payload: Record<string, unknown> & { cluster: string }): Promise<void> {
  await emitAll(ctx, event, [payload]);
}

/** emit for many events of one kind at once (a tick's scheduled upgrades): one read of the webhooks, one insert. */
async function emitAll(ctx: Ctx, event: UpgradeEvent, payloads: readonly (Record<string, unknown> & { cluster: string })[]): Promise<void> {
  if (!ctx.hasWebhooks || payloads.length === 0) return;
  ctx.events += await enqueueDeliveriesForEvents(
    ctx.db,
    payloads.map((payload) => ({
      event,
      payload: { event, at: ctx.now.toISOString(), tickId: ctx.tickId, organization: ctx.organization.name, ...payload },
      cluster: payload.cluster,
    })),
    ctx.realNow(),
    ctx.organization.id,
  );
}

/** The webhook event a transition announces (none for the internal pre-checks/post stages). */
function eventOf(t: LifecycleTransition): UpgradeEvent | null {
  switch (t.to) {
    case 'started':
    case 'upgrading':
    case 'completed':
    case 'failed':
    case 'timed-out':
    case 'cancelled':
    case 'skipped':
      return t.to;
    default:
      return null;
  }
}

/** Stores the snapshot (rows and upgrade history); events come from the lifecycle, not from here. */
async function storeSnapshots(
  ctx: Ctx,
  organizationId: number,
  providerName: string,
  states: StoredClusterState[],
  snaps: ClusterSnapshot[],
  unread: ReadonlySet<string>,
): Promise<{ updates: ClusterRowUpdate[]; inserted: number; gone: { id: number; name: string }[]; goneWithheld: number }> {
  const observed = observeSnapshots(states, snaps, unread);
  const inserts: SnapshotInsert[] = observed.inserts.map((row) => ({ ...row, provider: providerName }));
  const at = ctx.now.getTime();
  await withTransaction(ctx.db, async () => {
    for (const t of observed.transitions) {
      const step = { clusterId: t.clusterId, fromVersion: t.fromVersion, toVersion: t.toVersion, at };
      if (t.kind === 'failed') await recordUpgradeTransition(ctx.db, { ...step, state: 'failed', message: t.message });
      else if (t.kind === 'completed') await recordUpgradeTransition(ctx.db, { ...step, state: 'completed' });
      else if (t.kind === 'started') await recordUpgradeTransition(ctx.db, { ...step, state: 'started' });
      // an upgrade our view held but the provider never had (an attempt that ended before its
      // start) is not history; one the provider dropped is, as cancelled
      else if (t.kind === 'cancelled-at-provider')
        await recordUpgradeTransition(ctx.db, { ...step, state: 'cancelled', message: t.message });
    }
    await writeSnapshots(ctx.db, organizationId, observed.updates, inserts, ctx.now);
    await markMissedAndGone(
      ctx.db,
      observed.missed,
      observed.gone.map((g) => g.id),
    );
  });
  return { updates: observed.updates, inserted: inserts.length, gone: observed.gone, goneWithheld: observed.goneWithheld ?? 0 };
}

function toReading(snap: ClusterSnapshot): ClusterReading {
  return {
    ok: true,
    cluster: {
      version: snap.version,
      channel: snap.channel,
      availableUpgrades: snap.availableUpgrades,
      conditionalUpgrades: snap.conditionalUpgrades,
      upgradeable: snap.upgradeable,
      health: snap.health,
      currentUpgrade: snap.currentUpgrade,
      lastUpgrade: snap.lastUpgrade ?? null,
      ...(snap.pendingVersionGates ? { pendingVersionGates: snap.pendingVersionGates } : {}),
      ...(snap.inhibitors ? { inhibitors: snap.inhibitors } : {}),
      ...(snap.machineConfigPools ? { machineConfigPools: snap.machineConfigPools } : {}),
      ...(snap.adminGates ? { adminGates: snap.adminGates } : {}),
    },
  };
}

interface LifecycleEnv {
  ctx: Ctx;
  /** the organization's provider, its writes behind the fence */
  provider: FleetProvider;
  fence: LeaseFence;
  organizationId: number;
  actor: string;
  paused: boolean;
  frozen: { reason: string | null } | null;
  exclusions: Awaited<ReturnType<typeof loadGateState>>['exclusions'];
  /** the engine's organization (its sectors' and its own targets and caps, gates and notBefore) */
  organization: PlanInput['organization'];
  /** the approvals given (the engine's input): the start gate re-checks the sectors' gates */
  approvals: PlanInput['approvals'];
  /** the sectors' canaries as the start gate re-checks them (a canary failed since it was planned); undefined without canaries */
  canaryHold: ReturnType<typeof canaryStartHold>;
  halts: HaltIndex;
  clusters: ReadonlyMap<string, PlanCluster>;
  states: ReadonlyMap<string, StoredClusterState>;
  snaps: ReadonlyMap<string, ClusterSnapshot>;
  readErrors: ReadonlyMap<string, string>;
  decisions: ReadonlyMap<string, GatedDecision>;
  hookVerdict: NonNullable<RunTickOptions['hookVerdict']>;
  requestHook: RunTickOptions['requestHook'];
  log: NonNullable<RunTickOptions['log']>;
  counts: { done: number; failed: number; transitions: number };
}

/**
 * The hook verdicts one step may read, both read before it: the machine is pure and cannot wait
 * for the database. Only active attempts are stepped, and an attempt without hooks answers from
 * one indexed read per stage.
 */
async function hookVerdicts(verdict: (stage: HookStage) => Promise<HookVerdict>): Promise<StepInput['hooks']> {
  return { pre: await verdict('pre-upgrade'), post: await verdict('post-upgrade') };
}

/** A lifecycle step of one attempt, taken and not yet saved. */
interface TakenStep {
  attempt: StoredAttempt;
  next: UpgradeAttempt;
  result: StepResult;
  reading: ClusterReading;
  state: StoredClusterState | undefined;
}

/**
 * One lifecycle step of one attempt: read (fresh when due) and step; null when nothing happened.
 * Nothing is written here but the hook calls a due stage asks for.
 */
async function takeStep(env: LifecycleEnv, attempt: StoredAttempt): Promise<TakenStep | null> {
  const { ctx, provider } = env;
  const now = ctx.now.getTime();
  const state = env.states.get(attempt.cluster);
  const cluster = env.clusters.get(attempt.cluster);
  const policy = cluster?.upgradePolicy;
  const options = policy?.lifecycle ?? DEFAULT_LIFECYCLE_OPTIONS;
  let reading: ClusterReading;
  const readError = env.readErrors.get(attempt.cluster);
  const snap = env.snaps.get(attempt.cluster);
  if (readError !== undefined) reading = { ok: false, message: readError };
  else if (!state || !snap) reading = { ok: false, message: 'the provider no longer reports the cluster' };
  else if (needsFreshReading(attempt, now, provider.startLeadMs)) {
    try {
      reading = toReading(await provider.observeCluster({ externalId: state.externalId, name: state.name }, ctx.now));
    } catch (err) {
      await countProviderError(ctx.db, provider.name, 'observe-cluster', ctx.organization.name);
      reading = { ok: false, message: err instanceof Error ? err.message : String(err) };
    }
  } else reading = toReading(snap);
  const installPlans = await readInstallPlans(env, attempt, options.operatorApprovals !== null, state, readError);
  const sector = policy?.conditions.sector ?? attempt.sector;
  const excl = findExclusion(env.exclusions, attempt.cluster, sector ?? undefined, Math.max(now, attempt.slot), cluster?.labels);
  const decision = env.decisions.get(attempt.cluster);
  let hooks = await hookVerdicts((stage) => env.hookVerdict(ctx.db, attempt.id, stage));
  const step = () =>
    stepAttempt(attempt, {
      now,
      options,
      startLeadMs: provider.startLeadMs,
      minStartNoticeMs: provider.minStartNoticeMs,
      reading,
      fleet: {
        managed: !!policy,
        gone: state?.upgradeState === 'gone',
        paused: env.paused,
        frozen: env.frozen,
        exclusion: excl ? `maintenance exclusion (${excl.scope}${excl.subject ? ` ${excl.subject}` : ''}): ${excl.reason}` : null,
        blockedBy:
          blockingPatternOf(attempt.toVersion, env.organization, policy?.conditions.blockedVersions ?? []) ??
          // a target or cap set after the upgrade was planned holds its start as a blocked pattern does
          aboveBound(env.organization, policy, attempt.toVersion),
        haltedBy: haltReason(env.halts, attempt.cluster, sector, attempt.toVersion),
        sectorGate:
          sectorStartHold(env.organization, env.approvals, sector ?? undefined, attempt.toVersion, Math.max(now, attempt.slot)) ??
          env.canaryHold?.(attempt.cluster, attempt.toVersion) ??
          null,
      },
      decisionWithdrawn:
        decision?.action === 'cancel' && decision.version === attempt.toVersion
          ? { message: decision.message ?? 'cancelled by the engine' }
          : null,
      hooks,
      installPlans,
    });
  let result = step();
  // A hook stage is due when the step would pass it (start, or leave for post-checks): ask for
  // its calls first (no hook configured → nothing queued, verdict stays `none`) and step again,
  // so a configured hook is waited for instead of skipped.
  if (env.requestHook) {
    const due: ('pre-upgrade' | 'post-upgrade')[] = [];
    if (result.transitions.some((t) => t.to === 'started') && hooks.pre.state === 'none') due.push('pre-upgrade');
    if (result.transitions.some((t) => t.to === 'post-checks' && t.from !== 'post-hook') && hooks.post.state === 'none')
      due.push('post-upgrade');
    for (const stage of due)
      await env.requestHook(
        ctx.db,
        {
          organizationId: env.organizationId,
          lifecycleId: attempt.id,
          stage,
          cluster: attempt.cluster,
          sector: sector ?? null,
          version: attempt.toVersion,
          fromVersion: attempt.fromVersion,
        },
        ctx.realNow(),
      );
    if (due.length > 0) {
      // read again: the requests just queued may have changed the verdicts
      hooks = await hookVerdicts((stage) => env.hookVerdict(ctx.db, attempt.id, stage));
      result = step();
    }
  }
  const next = result.attempt;
  // nothing happened (the common case: waiting for the slot or the provider): nothing to write
  if (next === attempt && result.effects.length === 0) return null;
  return { attempt, next, result, reading, state };
}

/**
 * What a saved step writes with it, in the transaction that saved it: the intents of its provider
 * writes, its events, the intents it settles, the cluster's row when the attempt ended.
 * `startIntents`: the start intents of a batch of steps, read together beforehand (else read here).
 */
async function recordStep(env: LifecycleEnv, step: TakenStep, startIntents?: ReadonlyMap<string, number>): Promise<void> {
  const { ctx } = env;
  const { attempt, next, result, reading, state } = step;
  const now = ctx.now.getTime();
  const channelEffect = result.effects.find((e): e is Extract<LifecycleEffect, { kind: 'set-channel' }> => e.kind === 'set-channel');
  const subject = { cluster: attempt.cluster, version: attempt.toVersion, fromVersion: attempt.fromVersion, lifecycleId: attempt.id };
  for (const effect of result.effects) {
    // a hop's channel switch is an intent of its own, written before its start's
    if (effect.kind === 'start-hop' && effect.channel)
      await insertIntent(ctx.db, {
        key: effect.channel.idempotencyKey,
        kind: 'set-channel',
        version: effect.version,
        nextRun: null,
        organizationId: env.organizationId,
        tickId: ctx.tickId,
        clusterName: attempt.cluster,
        createdAt: ctx.now,
      });
    const intent = intentOf(effect, attempt);
    if (intent)
      await insertIntent(ctx.db, {
        ...intent,
        organizationId: env.organizationId,
        tickId: ctx.tickId,
        clusterName: attempt.cluster,
        createdAt: ctx.now,
      });
    if (effect.kind === 'precheck-failed')
      await emit(ctx, 'precheck-failed', {
        ...subject,
        nextRun: formatInstantToSecond(new Date(attempt.slot)),
        reason: effect.reason,
        message: effect.message,
      });
  }
  // a start the provider was seen to hold (after a crash or a lost answer) settles its intent;
  // an attempt that ended without the provider ever taking its start fails it
  const startIntent =
    attempt.startRequestedAt === null
      ? null
      : startIntents
        ? (startIntents.get(startKey(attempt.id)) ?? null)
        : await findIntentId(ctx.db, startKey(attempt.id));
  if (startIntent !== null && attempt.startConfirmedAt === null && next.startConfirmedAt !== null)
    await markIntentDone(ctx.db, startIntent, ctx.now, 'reconciled: the provider holds this upgrade');
  else if (startIntent !== null && next.startConfirmedAt === null && isFinal(next.state))
    await markIntentAttemptFailed(ctx.db, startIntent, ctx.now, `${next.reason ?? next.state}: ${next.message ?? ''}`, true);
  // an approval a read shows done without its call having returned (a crash, a lost answer) settles its intent
  for (const plan of next.operatorApprovals?.approved ?? []) {
    const before = attempt.operatorApprovals?.approved.find((p) => planId(p) === planId(plan));
    if (plan.confirmedAt === null || (before && before.confirmedAt !== null)) continue;
    const intentId = await findIntentId(ctx.db, approvalKey(attempt.id, plan));
    if (intentId !== null) await markIntentDone(ctx.db, intentId, ctx.now, 'reconciled: the InstallPlan is approved');
  }
  // an attempt that ended, or left the phase (the plan gone, the option removed), with an approval
  // never seen taken fails its intent: nothing asks again
  const phaseLeft = next.operatorApprovals?.doneAt != null && attempt.operatorApprovals?.doneAt == null;
  if (isFinal(next.state) || phaseLeft)
    for (const plan of next.operatorApprovals?.approved ?? []) {
      if (plan.confirmedAt !== null) continue;
      const intentId = await findIntentId(ctx.db, approvalKey(attempt.id, plan));
      if (intentId !== null)
        await markIntentAttemptFailed(ctx.db, intentId, ctx.now, `${next.reason ?? next.state}: ${next.message ?? ''}`, true);
    }
  // likewise a channel switch the provider was seen to have made (before a crash, or its answer
  // lost): the machine does not ask for it again, so its intent is settled here
  const pendingSwitch = attempt.channel !== null && !channelEffect ? await findPendingIntentId(ctx.db, channelKey(attempt.id)) : null;
  if (pendingSwitch !== null) {
    const onChannel = reading.ok && reading.cluster.channel === attempt.channel;
    if (onChannel || next.startConfirmedAt !== null)
      await markIntentDone(ctx.db, pendingSwitch, ctx.now, `reconciled: the provider reports channel ${attempt.channel}`);
    else if (isFinal(next.state))
      await markIntentAttemptFailed(ctx.db, pendingSwitch, ctx.now, `${next.reason ?? next.state}: ${next.message ?? ''}`, true);
  }
  if (next.eusProcedure) await settleEusIntents(env, attempt, next, reading, result.effects);
  for (const t of result.transitions) {
    const event = eventOf(t);
    if (event) await emit(ctx, event, { ...subject, state: t.to, reason: t.reason, message: t.message });
  }
  if (isFinal(next.state) && state) {
    // an attempt that ended before the provider began it releases its hold in our view
    const never = next.startConfirmedAt === null || next.state === 'cancelled';
    if (never) {
      await setClusterUpgrade(ctx.db, env.organizationId, attempt.cluster, null, 'idle');
      await recordUpgradeTransition(ctx.db, {
        clusterId: state.id,
        fromVersion: attempt.fromVersion,
        toVersion: attempt.toVersion,
        state: 'cancelled',
        at: now,
        message: `${next.state} (${next.reason ?? 'no reason'}): ${next.message ?? ''}`,
      });
    } else if (next.state === 'failed' || next.state === 'timed-out')
      await setClusterUpgrade(ctx.db, env.organizationId, attempt.cluster, null, 'failed');
  }
}

/** A step none of whose effects writes to the provider (none has an intent): such steps are saved together. */
function writesNothing(step: TakenStep): boolean {
  return step.result.effects.every((e) => intentOf(e, step.attempt) === null);
}

/**
 * Saves one step with what it records (the step, its transitions, events and the intents of its
 * provider writes: one transaction), then carries out its provider writes, each after its intent
 * committed.
 */
async function saveAndCarryOut(env: LifecycleEnv, step: TakenStep): Promise<void> {
  const { ctx, provider } = env;
  const { attempt, next, result, state } = step;
  const now = ctx.now.getTime();
  const startEffect = result.effects.find((e): e is Extract<LifecycleEffect, { kind: 'start' }> => e.kind === 'start');
  const channelEffect = result.effects.find((e): e is Extract<LifecycleEffect, { kind: 'set-channel' }> => e.kind === 'set-channel');
  const cancelEffect = result.effects.find(
    (e): e is Extract<LifecycleEffect, { kind: 'cancel-at-provider' }> => e.kind === 'cancel-at-provider',
  );
  const meta = { at: now, actor: env.actor, tickId: ctx.tickId };
  let saved = false;
  await withTransaction(ctx.db, async () => {
    // recorded only while the lease is ours: a replica that lost it writes no step and no intent
    await env.fence.assertHeld(ctx.db);
    if (!(await saveAttemptStep(ctx.db, attempt.state, next, result.transitions, meta))) return;
    saved = true;
    await recordStep(env, step);
  });
  if (!saved) {
    env.log('lifecycle step lost to another writer', { lifecycleId: attempt.id });
    return;
  }
  env.counts.transitions += result.transitions.length;
  if (!state) return;
  const ref = { externalId: state.externalId, name: state.name };
  // the channel first: a start into a channel the cluster is not on would be refused (or worse, taken
  // in the old channel); when the switch fails the start waits for the next tick, which asks again
  const channelSwitched = channelEffect ? await switchChannel(env, attempt, ref, channelEffect) : true;
  if (startEffect && !channelSwitched) {
    const intentId = await findIntentId(ctx.db, startEffect.idempotencyKey);
    if (intentId !== null)
      await markIntentAttemptFailed(ctx.db, intentId, ctx.now, `waits for the switch to channel ${channelEffect!.channel}`);
    env.counts.failed++;
  } else if (startEffect) {
    try {
      await provider.startUpgrade(
        { ...ref, version: startEffect.version, at: new Date(startEffect.at), idempotencyKey: startEffect.idempotencyKey },
        ctx.now,
      );
      await withTransaction(ctx.db, async () => {
        await saveAttemptStep(ctx.db, next.state, { ...next, startConfirmedAt: now }, [], meta);
        const intentId = await findIntentId(ctx.db, startEffect.idempotencyKey);
        if (intentId !== null) await markIntentDone(ctx.db, intentId, ctx.now);
      });
      await countIntent(ctx.db, 'start', 'done', ctx.organization.name);
      env.counts.done++;
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      await countProviderError(ctx.db, provider.name, 'start-upgrade', ctx.organization.name);
      await countIntent(ctx.db, 'start', 'retry', ctx.organization.name);
      const intentId = await findIntentId(ctx.db, startEffect.idempotencyKey);
      if (intentId !== null) await markIntentAttemptFailed(ctx.db, intentId, ctx.now, message);
      env.log('start refused by the provider; retried while the gates allow', { lifecycleId: attempt.id, error: message });
      env.counts.failed++;
    }
  }
  const approvals = result.effects.filter(
    (e): e is Extract<LifecycleEffect, { kind: 'approve-installplan' }> => e.kind === 'approve-installplan',
  );
  if (approvals.length > 0) await approveInstallPlans(env, attempt.id, next, approvals, ref, meta);
  const eusEffects = result.effects.filter(
    (e): e is EusEffect => e.kind === 'set-pool-paused' || e.kind === 'admin-ack' || e.kind === 'start-hop',
  );
  if (eusEffects.length > 0) await carryOutEusEffects(env, attempt, next, eusEffects, ref, meta);
  if (cancelEffect) {
    try {
      await provider.cancelUpgrade({ ...ref, version: cancelEffect.version, idempotencyKey: cancelEffect.idempotencyKey }, ctx.now);
      await countIntent(ctx.db, 'cancel', 'done', ctx.organization.name);
      env.counts.done++;
    } catch (err) {
      await countProviderError(ctx.db, provider.name, 'cancel-upgrade', ctx.organization.name);
      await countIntent(ctx.db, 'cancel', 'failed', ctx.organization.name);
      env.log('cancel at the provider failed', { lifecycleId: attempt.id, error: err instanceof Error ? err.message : String(err) });
      env.counts.failed++;
    }
  }
}

/**
 * Saves steps that write nothing to the provider together: one transaction, the fence checked in
 * it as for a single step, the attempts written by one statement (each still guarded by the state
 * its step started from); each saved step records in it what it would alone.
 */
async function saveQuietSteps(env: LifecycleEnv, steps: readonly TakenStep[]): Promise<void> {
  if (steps.length === 0) return;
  const { ctx } = env;
  const meta = { at: ctx.now.getTime(), actor: env.actor, tickId: ctx.tickId };
  const saved = await withTransaction(ctx.db, async () => {
    // recorded only while the lease is ours: a replica that lost it writes no step
    await env.fence.assertHeld(ctx.db);
    const written = await saveAttemptSteps(
      ctx.db,
      steps.map((s) => ({ fromState: s.attempt.state, attempt: s.next, transitions: s.result.transitions })),
      meta,
    );
    // the start intents these steps settle, read at once (none of them writes one)
    const startIntents = await findIntentIds(
      ctx.db,
      steps.filter((s, i) => written[i] && s.attempt.startRequestedAt !== null).map((s) => startKey(s.attempt.id)),
    );
    for (const [i, step] of steps.entries()) if (written[i]) await recordStep(env, step, startIntents);
    return written;
  });
  for (const [i, step] of steps.entries()) {
    if (saved[i]) env.counts.transitions += step.result.transitions.length;
    else env.log('lifecycle step lost to another writer', { lifecycleId: step.attempt.id });
  }
}

/** The intent row of an effect that writes to the provider (keyed by the effect's idempotency key); null for the others. */
function intentOf(
  effect: LifecycleEffect,
  attempt: StoredAttempt,
): Pick<Parameters<typeof insertIntent>[1], 'key' | 'kind' | 'version' | 'nextRun'> | null {
  switch (effect.kind) {
    case 'start':
      return { key: effect.idempotencyKey, kind: 'start-upgrade', version: effect.version, nextRun: effect.at };
    case 'cancel-at-provider':
      return { key: effect.idempotencyKey, kind: 'cancel-upgrade', version: effect.version, nextRun: attempt.slot };
    case 'set-channel':
      return { key: effect.idempotencyKey, kind: 'set-channel', version: effect.version, nextRun: null };
    case 'approve-installplan':
      return { key: effect.idempotencyKey, kind: 'approve-installplan', version: attempt.toVersion, nextRun: null };
    case 'set-pool-paused':
      return { key: effect.idempotencyKey, kind: effect.paused ? 'pause-pool' : 'unpause-pool', version: attempt.toVersion, nextRun: null };
    case 'admin-ack':
      return { key: effect.idempotencyKey, kind: 'admin-ack', version: attempt.toVersion, nextRun: null };
    case 'start-hop':
      return { key: effect.idempotencyKey, kind: 'start-upgrade', version: effect.version, nextRun: effect.at };
    default:
      return null;
  }
}

/** Carries out a channel switch (its intent is written); whether the cluster is now on the channel. */
async function switchChannel(
  env: LifecycleEnv,
  attempt: StoredAttempt,
  ref: { externalId: string; name: string },
  effect: Extract<LifecycleEffect, { kind: 'set-channel' }>,
): Promise<boolean> {
  const { ctx, provider } = env;
  const intentId = await findIntentId(ctx.db, effect.idempotencyKey);
  try {
    if (!provider.setChannel) throw new Error(`the ${provider.name} provider cannot switch a cluster's channel (to ${effect.channel})`);
    const outcome = await provider.setChannel(ref, effect.channel, ctx.now);
    if (intentId !== null)
      await markIntentDone(
        ctx.db,
        intentId,
        ctx.now,
        outcome === 'already-set' ? `already on ${effect.channel}` : `switched to ${effect.channel}`,
      );
    await countIntent(ctx.db, 'set-channel', 'done', ctx.organization.name);
    env.counts.done++;
    return true;
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    await countProviderError(ctx.db, provider.name, 'set-channel', ctx.organization.name);
    await countIntent(ctx.db, 'set-channel', 'retry', ctx.organization.name);
    if (intentId !== null) await markIntentAttemptFailed(ctx.db, intentId, ctx.now, message);
    env.log('channel switch refused by the provider; retried with the start while the gates allow', {
      lifecycleId: attempt.id,
      error: message,
    });
    env.counts.failed++;
    return false;
  }
}

/** at most this many quiet steps wait to be saved (a transaction's size, and what a crash would make the next tick step again) */
const QUIET_STEPS_SAVED_TOGETHER = 1000;

const NO_HOOKS = (): Promise<HookVerdict> => Promise.resolve({ state: 'none' });

/**
 * The EUS procedure's writes a read showed done without their call having returned (a crash, a
 * lost answer): the machine does not ask for them again, so their intents are settled here; an
 * attempt that ended with writes never seen done fails them (nothing asks again).
 */
async function settleEusIntents(
  env: LifecycleEnv,
  attempt: StoredAttempt,
  next: UpgradeAttempt,
  reading: ClusterReading,
  effects: readonly LifecycleEffect[],
): Promise<void> {
  const { ctx } = env;
  const progress = next.eusProcedure!;
  const asked = new Set(effects.map((e) => ('idempotencyKey' in e ? e.idempotencyKey : '')));
  const settle = async (key: string, done: boolean, note: string) => {
    if (asked.has(key)) return;
    const id = await findPendingIntentId(ctx.db, key);
    if (id === null) return;
    if (done) await markIntentDone(ctx.db, id, ctx.now, `reconciled: ${note}`);
    else if (isFinal(next.state))
      await markIntentAttemptFailed(ctx.db, id, ctx.now, `${next.reason ?? next.state}: ${next.message ?? ''}`, true);
  };
  const pools = new Map((reading.ok ? (reading.cluster.machineConfigPools ?? []) : []).map((p) => [p.name, p]));
  for (const pool of progress.pausedByUs ?? []) {
    const read = pools.get(pool);
    await settle(pauseKey(attempt.id, pool), read?.paused === true || progress.pausedAt !== null, `pool ${pool} reads paused`);
    if (progress.unpauseRequestedAt !== null)
      await settle(unpauseKey(attempt.id, pool), read !== undefined && !read.paused, `pool ${pool} reads unpaused`);
  }
  for (const [i, hop] of progress.hops.entries()) {
    if (hop.requestedAt === null) continue;
    await settle(hopStartKey(attempt.id, i), hop.confirmedAt !== null, `the provider holds the upgrade to ${hop.version}`);
    // a switch made before a crash is not asked again (the cluster reads the channel): settled here
    if (hop.channel !== null) {
      const onChannel = reading.ok && reading.cluster.channel === hop.channel;
      await settle(hopChannelKey(attempt.id, i), onChannel || hop.confirmedAt !== null, `the provider reports channel ${hop.channel}`);
    }
  }
}

/**
 * Carries out the EUS procedure's writes (their intents are written): pool pauses and unpauses
 * (confirmed by the next read), admin acknowledgements and hop starts (confirmed on the attempt when
 * the call returned). A write that fails is asked again, with the same key, by a later step.
 */
async function carryOutEusEffects(
  env: LifecycleEnv,
  attempt: StoredAttempt,
  next: UpgradeAttempt,
  effects: EusEffect[],
  ref: { externalId: string; name: string },
  meta: { at: number; actor: string; tickId: number },
): Promise<void> {
  const { ctx, provider } = env;
  let progress: EusProcedureProgress = next.eusProcedure!;
  let startConfirmedAt = next.startConfirmedAt;
  let changed = false;
  const done = async (key: string, note?: string) => {
    const id = await findIntentId(ctx.db, key);
    if (id !== null) await markIntentDone(ctx.db, id, ctx.now, note);
    env.counts.done++;
  };
  const failed = async (key: string, what: string, err: unknown) => {
    const message = err instanceof Error ? err.message : String(err);
    await countProviderError(ctx.db, provider.name, what, ctx.organization.name);
    const id = await findIntentId(ctx.db, key);
    if (id !== null) await markIntentAttemptFailed(ctx.db, id, ctx.now, message);
    env.log(`${what} refused by the provider; asked again by the next step`, { lifecycleId: attempt.id, error: message });
    env.counts.failed++;
  };
  for (const effect of effects) {
    if (effect.kind === 'set-pool-paused') {
      const what = effect.paused ? 'pause-pool' : 'unpause-pool';
      try {
        if (!provider.setMachineConfigPoolPaused) throw new Error(`the ${provider.name} provider cannot pause MachineConfigPools`);
        const outcome = await provider.setMachineConfigPoolPaused(ref, effect.pool, effect.paused, ctx.now);
        await done(
          effect.idempotencyKey,
          outcome === 'already-set' ? `pool ${effect.pool} already ${effect.paused ? 'paused' : 'unpaused'}` : undefined,
        );
        await countIntent(ctx.db, what, 'done', ctx.organization.name);
      } catch (err) {
        await countIntent(ctx.db, what, 'retry', ctx.organization.name);
        await failed(effect.idempotencyKey, what, err);
      }
    } else if (effect.kind === 'admin-ack') {
      try {
        if (!provider.acknowledgeAdminGate) throw new Error(`the ${provider.name} provider cannot acknowledge admin gates`);
        const outcome = await provider.acknowledgeAdminGate(ref, effect.gate, ctx.now);
        await done(effect.idempotencyKey, outcome === 'already-set' ? 'already acknowledged' : undefined);
        await countIntent(ctx.db, 'admin-ack', 'done', ctx.organization.name);
        progress = {
          ...progress,
          acks: progress.acks.map((a) => (a.gate === effect.gate && a.confirmedAt === null ? { ...a, confirmedAt: meta.at } : a)),
        };
        changed = true;
      } catch (err) {
        await countIntent(ctx.db, 'admin-ack', 'retry', ctx.organization.name);
        await failed(effect.idempotencyKey, 'admin-ack', err);
      }
    } else {
      // the channel first: a start into a channel the cluster is not on would be refused (or taken in the old one)
      if (effect.channel) {
        const switched = await switchChannel(env, attempt, ref, {
          kind: 'set-channel',
          idempotencyKey: effect.channel.idempotencyKey,
          channel: effect.channel.name,
          version: effect.version,
        });
        if (!switched) {
          const id = await findIntentId(ctx.db, effect.idempotencyKey);
          if (id !== null) await markIntentAttemptFailed(ctx.db, id, ctx.now, `waits for the switch to channel ${effect.channel.name}`);
          continue;
        }
      }
      try {
        await provider.startUpgrade(
          { ...ref, version: effect.version, at: new Date(effect.at), idempotencyKey: effect.idempotencyKey },
          ctx.now,
        );
        await done(effect.idempotencyKey);
        await countIntent(ctx.db, 'start', 'done', ctx.organization.name);
        progress = {
          ...progress,
          hops: progress.hops.map((h, i) => (i === effect.hop && h.confirmedAt === null ? { ...h, confirmedAt: meta.at } : h)),
        };
        startConfirmedAt ??= meta.at;
        changed = true;
      } catch (err) {
        await countIntent(ctx.db, 'start', 'retry', ctx.organization.name);
        await failed(effect.idempotencyKey, 'start-upgrade', err);
      }
    }
  }
  if (changed)
    await withTransaction(
      ctx.db,
      async () => await saveAttemptStep(ctx.db, next.state, { ...next, startConfirmedAt, eusProcedure: progress }, [], meta),
    );
}

/**
 * The InstallPlans the step reads: read from the provider only for an attempt in the
 * operator-approvals phase; a provider without InstallPlans says so (the phase is then skipped
 * with that note), whatever the state.
 */
async function readInstallPlans(
  env: LifecycleEnv,
  attempt: StoredAttempt,
  wanted: boolean,
  state: StoredClusterState | undefined,
  readError: string | undefined,
): Promise<InstallPlansReading> {
  const { provider, ctx } = env;
  if (!wanted) return { state: 'unread' };
  if (!provider.listInstallPlans) return { state: 'unsupported', message: noInstallPlansMessage(provider.name) };
  if (!needsInstallPlans(attempt)) return { state: 'unread' };
  if (readError !== undefined || !state) return { state: 'unread', message: readError ?? 'the provider no longer reports the cluster' };
  try {
    return { state: 'read', plans: await provider.listInstallPlans({ externalId: state.externalId, name: state.name }, ctx.now) };
  } catch (err) {
    await countProviderError(ctx.db, provider.name, 'list-installplans', ctx.organization.name);
    return { state: 'unread', message: err instanceof Error ? err.message : String(err) };
  }
}

/**
 * Carries out the step's approvals (their intents are written): each plan once; a plan the call
 * approved is confirmed on the attempt at once, one that failed or changed since it was read
 * (nothing written) is asked again (same key) by a later step while the read still shows it
 * unapproved.
 */
async function approveInstallPlans(
  env: LifecycleEnv,
  attemptId: number,
  next: UpgradeAttempt,
  effects: Extract<LifecycleEffect, { kind: 'approve-installplan' }>[],
  ref: { externalId: string; name: string },
  meta: { at: number; actor: string; tickId: number },
): Promise<void> {
  const { ctx, provider } = env;
  const confirmed = new Set<string>();
  for (const effect of effects) {
    const plan = { namespace: effect.namespace, name: effect.name };
    try {
      if (!provider.approveInstallPlan) throw new Error(noInstallPlansMessage(provider.name));
      const outcome = await provider.approveInstallPlan(
        { ...ref, namespace: effect.namespace, installPlan: effect.name, idempotencyKey: effect.idempotencyKey },
        ctx.now,
      );
      if (outcome === 'changed-since-read') {
        // nothing was written: the intent stays pending, and the next step reads the plan again
        // (approved by someone else: confirmed from the read; still pending: asked again, same key)
        env.log('InstallPlan changed since it was read; read again next tick', { lifecycleId: attemptId, installPlan: planId(plan) });
        continue;
      }
      confirmed.add(planId(plan));
      const intentId = await findIntentId(ctx.db, effect.idempotencyKey);
      if (intentId !== null)
        await markIntentDone(ctx.db, intentId, ctx.now, outcome === 'already-approved' ? 'already approved' : undefined);
      await countIntent(ctx.db, 'approve-installplan', 'done', ctx.organization.name);
      env.counts.done++;
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      await countProviderError(ctx.db, provider.name, 'approve-installplan', ctx.organization.name);
      await countIntent(ctx.db, 'approve-installplan', 'retry', ctx.organization.name);
      const intentId = await findIntentId(ctx.db, effect.idempotencyKey);
      if (intentId !== null) await markIntentAttemptFailed(ctx.db, intentId, ctx.now, message);
      env.log('InstallPlan approval refused by the provider; asked again while the phase lasts', {
        lifecycleId: attemptId,
        installPlan: planId(plan),
        error: message,
      });
      env.counts.failed++;
    }
  }
  if (confirmed.size === 0 || !next.operatorApprovals) return;
  const progress = {
    ...next.operatorApprovals,
    approved: next.operatorApprovals.approved.map((p) =>
      confirmed.has(planId(p)) && p.confirmedAt === null ? { ...p, confirmedAt: meta.at } : p,
    ),
  };
  await withTransaction(ctx.db, async () => await saveAttemptStep(ctx.db, next.state, { ...next, operatorApprovals: progress }, [], meta));
}

export async function runTick(opts: RunTickOptions): Promise<TickResult> {
  const { db, holder } = opts;
  const realNow = opts.realNow ?? (() => new Date());
  const dryRun = opts.dryRun ?? false;
  const leaseTtlMs = opts.leaseTtlMs ?? DEFAULT_LEASE_TTL_MS;
  const log = opts.log ?? (() => undefined);
  const started = performance.now();

  const lease = await acquireLease(db, SCHEDULER_LEASE, holder, realNow().getTime(), leaseTtlMs);
  if (!lease.acquired)
    return { status: 'skipped', reason: `lease held by ${lease.holder} until ${new Date(lease.expiresAt).toISOString()}` };
  const fence = createLeaseFence({ name: SCHEDULER_LEASE, holder, fencingToken: lease.fencingToken }, { ttlMs: leaseTtlMs, realNow });
  const heartbeat =
    opts.leaseRenewEveryMs === undefined
      ? undefined
      : setInterval(() => {
          fence.renew(db).catch((err: unknown) => log('renewing the lease failed', { error: String(err) }));
        }, opts.leaseRenewEveryMs);
  heartbeat?.unref?.();
  try {
    return await tickHoldingLease(opts, { fence, realNow, dryRun, log, started });
  } finally {
    if (heartbeat) clearInterval(heartbeat);
    // renewed at the end too, so the next tick (one interval later) finds it still ours
    await fence.renew(db).catch((err: unknown) => log('renewing the lease failed', { error: String(err) }));
  }
}

async function tickHoldingLease(
  opts: RunTickOptions,
  held: { fence: LeaseFence; realNow: () => Date; dryRun: boolean; log: NonNullable<RunTickOptions['log']>; started: number },
): Promise<TickResult> {
  const { db, now, holder } = opts;
  const { fence, realNow, dryRun, log, started } = held;
  await countInterruptedTicks(db, await failInterruptedTicks(db, now));
  const tickId = await insertTick(db, { startedAt: now, dryRun, holder });
  const summary = emptySummary();
  const outcomes: OrganizationTickOutcome[] = [];
  /** the organizations this tick reconciled (had a provider), for the reference's per-organization counters */
  const reconciled: { id: number; failed: boolean }[] = [];
  try {
    const organizations = await listOrganizations(db);
    const decisions: GatedDecision[] = [];
    const providerFor = opts.providerFor ?? ((_org: OrganizationRow, first: boolean) => (first ? (opts.provider ?? null) : null));
    // Every organization in turn, each with its own policies, gates and provider: one that fails
    // (its provider unreachable, its stored policies invalid) is recorded and the others go on.
    for (const [index, org] of organizations.entries()) {
      try {
        const provider = await providerFor(org, index === 0);
        if (!provider) {
          outcomes.push({ organization: org.name, status: 'no-provider' });
          log('organization left out: it has no provider', { organization: org.name });
          continue;
        }
        const part = await tickOrganization({ ...opts, realNow, dryRun, log }, { tickId, fence, org, provider });
        addSummary(summary, part.summary);
        decisions.push(...part.decisions);
        outcomes.push({ organization: org.name, status: 'succeeded' });
        reconciled.push({ id: org.id, failed: false });
      } catch (err) {
        if (err instanceof LeaseLostError) throw err;
        const error = err instanceof Error ? err.message : String(err);
        outcomes.push({ organization: org.name, status: 'failed', error });
        reconciled.push({ id: org.id, failed: true });
        log('organization tick failed; the other organizations go on', { tickId, organization: org.name, error });
      }
    }

    const durationMs = Math.round(performance.now() - started);
    summary.durationMs = durationMs;
    const failed = outcomes.filter((o) => o.status === 'failed');
    if (failed.length > 0) {
      // a single organization's error reads as before; with several, each names its organization
      const error =
        organizations.length === 1 ? failed[0]!.error! : failed.map((f) => `organization ${f.organization}: ${f.error}`).join('; ');
      await withTransaction(db, async () => {
        await finishTick(db, tickId, { finishedAt: new Date(now.getTime() + durationMs), status: 'failed', error });
        await countTick(db, { status: 'failed', dryRun, durationSeconds: durationMs / 1000, organizations: reconciled });
      });
      log('tick failed', { tickId, error });
      return { status: 'failed', tickId, error, organizations: outcomes };
    }
    await withTransaction(db, async () => {
      await finishTick(db, tickId, {
        finishedAt: new Date(now.getTime() + durationMs),
        status: 'succeeded',
        summary: summary as unknown as Record<string, number>,
      });
      await countTick(db, { status: 'succeeded', dryRun, durationSeconds: durationMs / 1000, organizations: reconciled });
    });
    log('tick done', { tickId, ...summary });
    return { status: 'succeeded', tickId, summary, decisions, organizations: outcomes };
  } catch (err) {
    const error = err instanceof Error ? err.message : String(err);
    const durationMs = Math.round(performance.now() - started);
    try {
      await withTransaction(db, async () => {
        await finishTick(db, tickId, { finishedAt: new Date(now.getTime() + durationMs), status: 'failed', error });
        await countTick(db, { status: 'failed', dryRun, durationSeconds: durationMs / 1000 });
      });
    } catch {
      // the database itself failed; the next tick marks this row interrupted
    }
    log('tick failed', { tickId, error });
    return { status: 'failed', tickId, error, organizations: outcomes };
  }
}

function emptySummary(): TickSummary {
  return {
    clusters: 0,
    upgrades: 0,
    skips: 0,
    cancels: 0,
    decisionsRecorded: 0,
    intentsCreated: 0,
    intentsDone: 0,
    intentsFailed: 0,
    reconciled: 0,
    transitions: 0,
    providerErrors: 0,
    events: 0,
    durationMs: 0,
  };
}

function addSummary(total: TickSummary, part: TickSummary): void {
  for (const key of Object.keys(total) as (keyof TickSummary)[]) total[key] += part[key];
}

/**
 * One organization's part of a tick: observe its provider, store the snapshot, decide with its
 * policies and gates, step its clusters' attempts. Throws when it cannot go on (the tick records it
 * and goes on with the next organization).
 */
async function tickOrganization(
  opts: RunTickOptions & { realNow: () => Date; dryRun: boolean; log: NonNullable<RunTickOptions['log']> },
  part: { tickId: number; fence: LeaseFence; org: OrganizationRow; provider: FleetProvider },
): Promise<{ summary: TickSummary; decisions: GatedDecision[] }> {
  const { db, now, holder, realNow, dryRun, log } = opts;
  const { tickId, fence, org, provider } = part;
  const summary = emptySummary();
  {
    const ctx: Ctx = {
      db,
      now,
      realNow,
      tickId,
      organization: { id: org.id, name: org.name },
      events: 0,
      hasWebhooks: !dryRun && (await hasEnabledWebhooks(db, org.id)),
    };

    // 2. observe (read-only)
    let observed;
    try {
      observed = await provider.observe(now);
    } catch (err) {
      await countProviderError(ctx.db, provider.name, 'observe', ctx.organization.name);
      throw err;
    }
    const readErrors = new Map<string, string>();
    for (const e of observed.errors) {
      readErrors.set(e.name, e.message);
      await countProviderError(ctx.db, provider.name, 'observe-cluster', ctx.organization.name);
      log('cluster not read: provider error', { externalId: e.externalId, name: e.name, error: e.message });
    }
    // A name the identifier rule refuses (control or bidi characters) would make the stored fleet
    // an invalid plan input and stop the tick for every cluster: leave that cluster out, loudly.
    const snaps: typeof observed.clusters = [];
    for (const snap of observed.clusters) {
      const problem = identifierProblem(snap.name);
      if (problem === null) {
        snaps.push(snap);
        continue;
      }
      log('cluster left out: the provider reports a name fleetplan refuses', {
        externalId: snap.externalId,
        name: JSON.stringify(snap.name),
        problem,
      });
      await countProviderError(ctx.db, provider.name, 'invalid-cluster-name', ctx.organization.name);
    }
    let states = await loadClusterStates(db, org.id);
    // what the provider reports: the lifecycle judges attempts on this, never on our view
    const snapByName = new Map(snaps.map((s) => [s.name, s]));

    // An attempt not begun at the provider holds its upgrade (and mutexes) in our view, so the
    // engine neither picks another version for the cluster nor frees what it holds. The view is
    // a copy: the lifecycle reading it as the provider's would wait for an upgrade the provider
    // finished and forgot (an OCM policy completed and removed between two ticks) until it timed out.
    const active = dryRun ? [] : await listActiveAttempts(db, org.id);
    const heldBy = new Map(active.filter(holdsUpgradeInOurView).map((a) => [a.cluster, a]));
    const ourView = snaps.map((snap) => {
      const held = snap.currentUpgrade ? undefined : heldBy.get(snap.name);
      return held
        ? {
            ...snap,
            // an EUS-to-EUS run's start is its first hop's (what the provider will be asked for), not the route's end
            currentUpgrade: {
              version: held.eusProcedure?.hops[0]?.version ?? held.toVersion,
              nextRun: formatInstantToSecond(new Date(held.slot)),
              state: 'scheduled' as const,
            },
          }
        : snap;
    });

    // 3. store the snapshot (a dry run writes nothing)
    if (!dryRun) {
      // a cluster listed but not read is still there: only one the provider no longer lists is gone
      const stored = await storeSnapshots(ctx, org.id, provider.name, states, ourView, new Set(readErrors.keys()));
      for (const g of stored.gone) log('cluster gone: the provider no longer reports it (kept, left out of planning)', { name: g.name });
      if (stored.goneWithheld > 0)
        log('the provider reported none of the known clusters: none is marked gone for it', { known: stored.goneWithheld });
      states =
        stored.inserted > 0 || stored.gone.length > 0 ? await loadClusterStates(db, org.id) : withClusterRowUpdates(states, stored.updates);
    }
    const statesByName = new Map(states.map((s) => [s.name, s]));

    // 4. decide
    const validated = validatePlanInput(await loadPlanDocument(db, org.id, now));
    if (!validated.ok) {
      const first = validated.problems
        .slice(0, 5)
        .map((p) => `${p.path}: ${p.message}`)
        .join('; ');
      throw new Error(`the stored fleet is not a valid plan input (${validated.problems.length} problems): ${first}`);
    }
    const input = validated.input;
    const healthIssues = new Map(states.map((s) => [s.name, s.healthIssues] as const));
    const gates = { ...(await loadGateState(db, org, now, healthIssues, input.clusters)), providerErrors: readErrors };
    const plan = evaluateFleet(input, gates);

    await withTransaction(db, async () => {
      const outcomes = planDecisionOutcomes(plan.decisions, statesByName);
      const changed: DecisionWrite[] = outcomes.filter((o) => o.changed).map((o) => o.record);
      for (const { decision: d, changed: isNew } of outcomes) {
        if (isNew && d.reason === 'UNHEALTHY') await emit(ctx, 'skipped-unhealthy', { cluster: d.cluster, message: d.message });
        if (isNew && d.action === 'cancel' && d.reason === 'VERSION_BLOCKED')
          await emit(ctx, 'blocked', { cluster: d.cluster, version: d.version, message: d.message });
      }
      // A dry run records its whole plan; a real tick records what changed (the cluster row
      // always holds the latest decision), so a quiet fleet does not grow the table every minute.
      const toRecord = dryRun ? outcomes.map((o) => o.record) : changed;
      await insertDecisions(db, tickId, now, toRecord, org.id);
      summary.decisionsRecorded = toRecord.length;
      if (!dryRun) {
        await updateLastDecisions(db, org.id, changed);
        await saveVersionData(db, org.id, plan.versionData, now);
        await maybeSampleSoak(db, org.id, plan.versionData, now);
      }
    });

    // 5. lifecycle
    if (!dryRun) {
      const clusters = new Map(input.clusters.map((c) => [c.name, c]));
      const decisions = new Map(plan.decisions.map((d) => [d.cluster, d]));
      const actor = `scheduler:${holder}`;
      const attempts: StoredAttempt[] = [...active];
      const busy = new Set(active.map((a) => a.cluster));
      // the tick's new attempts, written together: a statement per kind of row, not per attempt
      const wanted: { decision: GatedDecision; state: StoredClusterState; attempt: NewAttempt }[] = [];
      for (const d of plan.decisions) {
        if (d.action !== 'upgrade' || !d.version || !d.nextRun || busy.has(d.cluster)) continue;
        const state = statesByName.get(d.cluster);
        const policy = clusters.get(d.cluster)?.upgradePolicy;
        if (!state || !policy) continue;
        const slot = Date.parse(d.nextRun);
        // an EUS-to-EUS run the policy takes control-plane-only: one attempt for the whole route
        // (only where the provider can pause MachineConfigPools; elsewhere hop by hop, said in the message)
        const eusWanted = d.eusRoute !== undefined && (policy.lifecycle ?? DEFAULT_LIFECYCLE_OPTIONS).eusControlPlaneOnly !== null;
        const eus = eusWanted && provider.setMachineConfigPoolPaused ? newEusProgress(d.eusRoute!, d.channel ?? null) : null;
        const toVersion = eus ? eus.route.at(-1)! : d.version;
        const message = eus
          ? `EUS-to-EUS control-plane-only run ${eus.route.join(' → ')}: workers paused, both control-plane hops, one worker rollout; ${d.message}`
          : eusWanted
            ? `${d.message}; lifecycle.eusControlPlaneOnly is not applied: the ${provider.name} provider cannot pause MachineConfigPools (each hop is an upgrade of its own)`
            : d.message;
        wanted.push({
          decision: d,
          state,
          attempt: {
            clusterId: state.id,
            clusterName: d.cluster,
            sector: policy.conditions.sector ?? null,
            fromVersion: state.version,
            toVersion,
            slot,
            channel: eus ? null : (d.channel ?? null),
            eusProcedure: eus,
            haltsOnFailure: (policy.lifecycle ?? DEFAULT_LIFECYCLE_OPTIONS).onFailure === 'halt',
            at: now.getTime(),
            actor,
            tickId,
            message,
          },
        });
      }
      await withTransaction(db, async () => {
        const inserted = await insertAttempts(
          db,
          wanted.map((w) => w.attempt),
        );
        // a null: this slot was tried already
        const created = wanted.flatMap((w, i) => (inserted[i] ? [{ ...w, stored: inserted[i] }] : []));
        await setClusterUpgrades(
          db,
          org.id,
          created.map(({ decision: d }) => ({
            name: d.cluster,
            upgrade: { version: d.version!, nextRun: d.nextRun!, state: 'scheduled' as const },
            upgradeState: 'scheduled',
          })),
        );
        await recordUpgradeTransitions(
          db,
          created.map(({ state, attempt }) => ({
            clusterId: state.id,
            fromVersion: state.version,
            toVersion: attempt.toVersion,
            state: 'scheduled' as const,
            at: now.getTime(),
            scheduledFor: attempt.slot,
          })),
        );
        await emitAll(
          ctx,
          'scheduled',
          created.map(({ decision: d, state, attempt, stored }) => ({
            cluster: d.cluster,
            version: attempt.toVersion,
            fromVersion: state.version,
            nextRun: d.nextRun,
            lifecycleId: stored.id,
          })),
        );
        // only once the unit of work is done: a unit run again (PostgreSQL's serialization) counts once
        return created;
      }).then((created) => {
        for (const { stored } of created) attempts.push(stored);
        summary.intentsCreated += created.length;
      });
      const env: LifecycleEnv = {
        ctx,
        provider: fenceProviderWrites(provider, fence, db),
        fence,
        organizationId: org.id,
        actor,
        paused: (await readSetting<boolean>(db, SCHEDULER_PAUSED_SETTING)) ?? false,
        frozen: gates.frozen ? { reason: gates.frozenReason ?? null } : null,
        exclusions: gates.exclusions,
        organization: input.organization,
        approvals: input.approvals,
        canaryHold: canaryStartHold(input),
        halts: gates.halts ?? EMPTY_HALTS,
        clusters,
        states: statesByName,
        snaps: snapByName,
        readErrors,
        decisions,
        hookVerdict: opts.hookVerdict ?? NO_HOOKS,
        requestHook: opts.requestHook,
        log,
        counts: { done: 0, failed: 0, transitions: 0 },
      };
      // The lease is checked where it matters, not per attempt (most steps write nothing): in the
      // transaction that records a step and its intents, and before each provider write
      // (renewed there once half its time has gone).
      // Steps that write nothing to the provider (most: waiting, or a first notice) are saved
      // together; those waiting are saved before a step that writes, so steps are saved in the
      // attempts' order and that step's intents commit before its provider write, as alone.
      const quiet: TakenStep[] = [];
      for (const attempt of attempts) {
        const step = await takeStep(env, attempt);
        summary.reconciled++;
        if (!step) continue;
        if (writesNothing(step)) {
          quiet.push(step);
          if (quiet.length >= QUIET_STEPS_SAVED_TOGETHER) await saveQuietSteps(env, quiet.splice(0));
          continue;
        }
        await saveQuietSteps(env, quiet.splice(0));
        await saveAndCarryOut(env, step);
      }
      await saveQuietSteps(env, quiet.splice(0));
      summary.intentsDone = env.counts.done;
      summary.intentsFailed = env.counts.failed;
      summary.transitions = env.counts.transitions;
    }

    Object.assign(summary, {
      clusters: snaps.length,
      upgrades: plan.decisions.filter((d) => d.action === 'upgrade').length,
      skips: plan.decisions.filter((d) => d.action === 'skip').length,
      cancels: plan.decisions.filter((d) => d.action === 'cancel').length,
      providerErrors: readErrors.size,
      events: ctx.events,
    });
    await countDecisions(db, plan.decisions, org.name);
    return { summary, decisions: plan.decisions };
  }
}

/** `above maxVersion 4.16.* (organization)` when `version` is above a target or cap of the cluster's policy, else null. */
function aboveBound(organization: PlanInput['organization'], policy: PlanCluster['upgradePolicy'], version: string): string | null {
  if (!policy) return null;
  const exceeded = boundExceeded(version, boundsForCluster(organization, policy.conditions));
  return exceeded ? `above ${describeBound(exceeded, policy.conditions.sector)}` : null;
}
