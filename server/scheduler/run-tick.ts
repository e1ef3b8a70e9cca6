/**
 * One scheduler tick, fully injectable ({db, now, provider, dryRun, holder}); no timers.
 *
 * 1. Take the database lease (only one scheduler acts, even across processes).
 * 2. Snapshot the fleet from the provider.
 * 3. Reconcile intents left pending by an earlier tick (a crash, a failed call): the snapshot
 *    tells whether the provider already has the upgrade, so nothing is triggered twice.
 * 4. Store the snapshot (lifecycle events: started, completed, failed).
 * 5. Run the engine plus the gates (freeze, exclusions, health), then in ONE transaction store
 *    soak, decisions and the intents they imply (idempotency key per action).
 * 6. Execute the new intents against the provider and mark them done.
 *
 * A tick never throws: failures are recorded on its scheduler_ticks row and returned.
 */
import type { Db } from '@/db/open-database';
import { identifierProblem } from '@/server/domain/identifiers';
import { validatePlanInput } from '@/server/domain/plan/validate-plan-input';
import { evaluateFleet } from '@/server/domain/evaluation/evaluate-fleet';
import type { GatedDecision } from '@/server/domain/scheduling/apply-gates';
import { holdsPendingUpgrade, planIntent, type IntentPlan } from '@/server/domain/scheduling/intent-plan';
import {
  observeSnapshots,
  withClusterRowUpdates,
  type ClusterRowUpdate,
  type UpgradeTransition,
} from '@/server/domain/scheduling/snapshot-transitions';
import { planDecisionOutcomes } from '@/server/domain/scheduling/tick-decisions';
import type { ClusterSnapshot, FleetProvider } from '@/server/integrations/providers/types';
import { getMetrics } from '@/server/metrics/registry';
import { findOrganization } from '@/server/repositories/organization-repository';
import {
  insertDecisions,
  insertIntent,
  loadClusterStates,
  recordUpgradeTransition,
  setClusterUpgrade,
  updateLastDecisions,
  writeSnapshots,
  type DecisionWrite,
  type SnapshotInsert,
  type StoredClusterState,
} from '@/server/repositories/decision-repository';
import { loadPlanDocument, toIsoSeconds } from '@/server/repositories/plan-document-repository';
import {
  acquireLease,
  failInterruptedTicks,
  finishTick,
  getIntents,
  insertTick,
  listPendingIntents,
  markIntentAttemptFailed,
  markIntentDone,
  SCHEDULER_LEASE_NAME,
  type IntentRow,
} from '@/server/repositories/scheduler-repository';
import { maybeSampleSoak, saveVersionData } from '@/server/repositories/soak-repository';
import { enqueueDeliveries, hasEnabledWebhooks } from '@/server/repositories/webhook-repository';
import { loadGateState } from './gate-state';

export const SCHEDULER_LEASE = SCHEDULER_LEASE_NAME;
/**
 * Transitional until the lifecycle drives starts (issue 11): a provider that cannot hold a future
 * start (Kubernetes begins at once) gets a schedule intent only once its slot has come, and the
 * intent does not expire before the slot plus this grace.
 */
const START_AT_SLOT_GRACE_MS = 60 * 60_000;
const startsAtOnce = (provider: FleetProvider) => provider.name === 'kubernetes';
export const DEFAULT_LEASE_TTL_MS = 5 * 60_000;

export const LIFECYCLE_EVENTS = ['scheduled', 'started', 'completed', 'failed', 'cancelled', 'skipped-unhealthy', 'blocked'] as const;
export type LifecycleEvent = (typeof LIFECYCLE_EVENTS)[number];

export interface RunTickOptions {
  db: Db;
  /** the fleet's clock (real time, or the simulator's) */
  now: Date;
  provider: FleetProvider;
  dryRun?: boolean;
  /** who acts: `host:pid` in the app; the lease is re-entrant for the same holder */
  holder: string;
  /** real time, for the lease and webhook deliveries (the fleet clock may run faster) */
  realNow?: () => Date;
  leaseTtlMs?: number;
  log?: (message: string, detail?: Record<string, unknown>) => void;
}

export interface TickSummary {
  clusters: number;
  upgrades: number;
  skips: number;
  cancels: number;
  decisionsRecorded: number;
  intentsCreated: number;
  intentsDone: number;
  intentsFailed: number;
  reconciled: number;
  events: number;
  durationMs: number;
}

export type TickResult =
  | { status: 'skipped'; reason: string }
  | { status: 'succeeded'; tickId: number; summary: TickSummary; decisions: GatedDecision[] }
  | { status: 'failed'; tickId: number; error: string };

interface Ctx {
  db: Db;
  provider: FleetProvider;
  now: Date;
  realNow: () => Date;
  holder: string;
  leaseTtlMs: number;
  organizationId: number;
  tickId: number;
  events: number;
  hasWebhooks: boolean;
}

function emit(ctx: Ctx, event: LifecycleEvent, payload: Record<string, unknown>): void {
  if (!ctx.hasWebhooks) return;
  ctx.events += enqueueDeliveries(ctx.db, event, { event, at: ctx.now.toISOString(), tickId: ctx.tickId, ...payload }, ctx.realNow());
}

/** Records one lifecycle step in the upgrade history and sends its webhook event(s). */
function recordTransition(ctx: Ctx, t: UpgradeTransition): void {
  const at = ctx.now.getTime();
  const step = { clusterId: t.clusterId, fromVersion: t.fromVersion, toVersion: t.toVersion, at };
  const subject = { cluster: t.cluster, version: t.toVersion, fromVersion: t.fromVersion };
  switch (t.kind) {
    case 'failed':
      recordUpgradeTransition(ctx.db, { ...step, state: 'failed', message: t.message });
      emit(ctx, 'failed', { ...subject, message: t.message });
      return;
    case 'completed':
      if (t.startWasUnseen) emit(ctx, 'started', subject);
      recordUpgradeTransition(ctx.db, { ...step, state: 'completed' });
      emit(ctx, 'completed', subject);
      return;
    case 'cancelled-at-provider':
      recordUpgradeTransition(ctx.db, { ...step, state: 'cancelled', message: t.message });
      emit(ctx, 'cancelled', { cluster: t.cluster, version: t.toVersion, message: t.message });
      return;
    case 'started':
      recordUpgradeTransition(ctx.db, { ...step, state: 'started' });
      emit(ctx, 'started', subject);
      return;
  }
}

/** Carries out one intent against the provider (see planIntent); `snap` is patched with the result. */
async function executeIntent(
  ctx: Ctx,
  intent: IntentRow,
  state: StoredClusterState | undefined,
  snap: ClusterSnapshot | undefined,
  reconciling: boolean,
): Promise<'done' | 'failed' | 'pending'> {
  const { db, provider, now } = ctx;
  const metrics = getMetrics();
  const kind = intent.kind === 'schedule-upgrade' ? 'schedule' : 'cancel';
  const cluster = state && snap ? { ...snap, storedUpgrade: state.currentUpgrade } : null;
  const atSlot = startsAtOnce(provider);
  const plan = planIntent(intent, cluster, now.getTime() - (atSlot ? START_AT_SLOT_GRACE_MS : 0), reconciling);
  // not yet: the intent stays pending (and holds its upgrade in our view) until its slot
  if (atSlot && plan.kind === 'send-schedule' && intent.nextRun && intent.nextRun.getTime() > now.getTime()) return 'pending';
  const failFinally = (p: Extract<IntentPlan, { kind: 'fail' }>): 'failed' => {
    markIntentAttemptFailed(db, intent.id, now, p.reason, true);
    if (p.releaseHeldUpgrade) setClusterUpgrade(db, ctx.organizationId, intent.clusterName, null, 'idle');
    metrics.intents.inc({ kind, outcome: p.outcome });
    return 'failed';
  };
  // An unknown cluster fails before the provider-error handling below.
  if (plan.kind === 'fail' && !cluster) return failFinally(plan);
  if (!state || !snap) throw new Error('planIntent fails every intent whose cluster is unknown');
  const ref = { externalId: state.externalId, name: state.name };
  const nextRun = intent.nextRun ? toIsoSeconds(intent.nextRun) : null;
  const recordStep = (step: 'scheduled' | 'cancelled') =>
    db.$client.transaction(() => {
      recordUpgradeTransition(db, {
        clusterId: state.id,
        fromVersion: snap.version,
        toVersion: intent.version,
        state: step,
        at: now.getTime(),
        ...(step === 'scheduled' ? { scheduledFor: intent.nextRun?.getTime() ?? null } : {}),
      });
      if (step === 'scheduled')
        emit(ctx, 'scheduled', { cluster: state.name, version: intent.version, fromVersion: snap.version, nextRun });
      else emit(ctx, 'cancelled', { cluster: state.name, version: intent.version });
    })();
  try {
    switch (plan.kind) {
      case 'fail':
        return failFinally(plan);
      case 'mark-done':
        markIntentDone(db, intent.id, now, plan.note ?? undefined);
        if (plan.recordScheduled) recordStep('scheduled');
        break;
      case 'send-schedule':
        await provider.startUpgrade({ ...ref, version: intent.version, at: intent.nextRun!, idempotencyKey: intent.idempotencyKey }, now);
        snap.currentUpgrade = { version: intent.version, nextRun: nextRun!, state: 'scheduled' };
        markIntentDone(db, intent.id, now, plan.doneNote ?? undefined);
        recordStep('scheduled');
        break;
      case 'send-cancel':
        await provider.cancelUpgrade({ ...ref, version: intent.version, idempotencyKey: intent.idempotencyKey }, now);
        snap.currentUpgrade = null;
        markIntentDone(db, intent.id, now, plan.doneNote ?? undefined);
        recordStep('cancelled');
        break;
    }
    metrics.intents.inc({ kind, outcome: 'done' });
    return 'done';
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    metrics.providerErrors.inc({ provider: provider.name, operation: intent.kind });
    const status = markIntentAttemptFailed(db, intent.id, now, message);
    metrics.intents.inc({ kind, outcome: status === 'failed' ? 'failed' : 'retry' });
    return status;
  }
}

/** Stores the snapshot and records the lifecycle transitions it implies; returns what it wrote. */
function storeSnapshots(
  ctx: Ctx,
  states: StoredClusterState[],
  snaps: ClusterSnapshot[],
): { updates: ClusterRowUpdate[]; inserted: number } {
  const observed = observeSnapshots(states, snaps);
  const inserts: SnapshotInsert[] = observed.inserts.map((row) => ({ ...row, provider: ctx.provider.name }));
  ctx.db.$client.transaction(() => {
    for (const t of observed.transitions) recordTransition(ctx, t);
    writeSnapshots(ctx.db, ctx.organizationId, observed.updates, inserts, ctx.now);
  })();
  return { updates: observed.updates, inserted: inserts.length };
}

export async function runTick(opts: RunTickOptions): Promise<TickResult> {
  const { db, provider, now, holder } = opts;
  const realNow = opts.realNow ?? (() => new Date());
  const dryRun = opts.dryRun ?? false;
  const leaseTtlMs = opts.leaseTtlMs ?? DEFAULT_LEASE_TTL_MS;
  const log = opts.log ?? (() => undefined);
  const metrics = getMetrics();
  const started = performance.now();

  const lease = acquireLease(db, SCHEDULER_LEASE, holder, realNow().getTime(), leaseTtlMs);
  if (!lease.acquired)
    return { status: 'skipped', reason: `lease held by ${lease.holder} until ${new Date(lease.expiresAt).toISOString()}` };
  failInterruptedTicks(db, now);
  const tickId = insertTick(db, { startedAt: now, dryRun, holder });
  try {
    const org = findOrganization(db);
    if (!org) {
      const summary = {
        clusters: 0,
        upgrades: 0,
        skips: 0,
        cancels: 0,
        decisionsRecorded: 0,
        intentsCreated: 0,
        intentsDone: 0,
        intentsFailed: 0,
        reconciled: 0,
        events: 0,
        durationMs: 0,
      };
      finishTick(db, tickId, { finishedAt: now, status: 'succeeded', summary });
      return { status: 'succeeded', tickId, summary, decisions: [] };
    }
    const ctx: Ctx = {
      db,
      provider,
      now,
      realNow,
      holder,
      leaseTtlMs,
      organizationId: org.id,
      tickId,
      events: 0,
      hasWebhooks: hasEnabledWebhooks(db),
    };

    // 2. snapshot
    let snaps: ClusterSnapshot[];
    // clusters the provider could not read this time: left as stored, their intents wait
    const unreadable = new Set<string>();
    try {
      const fleet = await provider.observe(now);
      snaps = fleet.clusters;
      for (const e of fleet.errors) {
        unreadable.add(e.name);
        metrics.providerErrors.inc({ provider: provider.name, operation: 'observe-cluster' });
        log('cluster not read: provider error', { externalId: e.externalId, name: e.name, error: e.message });
      }
    } catch (err) {
      metrics.providerErrors.inc({ provider: provider.name, operation: 'list-clusters' });
      throw err;
    }
    // A name the identifier rule refuses (control or bidi characters) would make the stored fleet
    // an invalid plan input and stop the tick for every cluster: leave that cluster out, loudly.
    snaps = snaps.filter((snap) => {
      const problem = identifierProblem(snap.name);
      if (problem === null) return true;
      log('cluster left out: the provider reports a name fleetplan refuses', {
        externalId: snap.externalId,
        name: JSON.stringify(snap.name),
        problem,
      });
      metrics.providerErrors.inc({ provider: provider.name, operation: 'invalid-cluster-name' });
      return false;
    });
    let states = loadClusterStates(db, org.id);
    const stateByName = new Map(states.map((s) => [s.name, s]));
    const snapByName = new Map(snaps.map((s) => [s.name, s]));

    // 3. reconcile pending intents (never in a dry run: a dry run does not act)
    let reconciled = 0;
    let intentsDone = 0;
    let intentsFailed = 0;
    if (!dryRun) {
      for (const intent of listPendingIntents(db)) {
        if (unreadable.has(intent.clusterName)) continue;
        const outcome = await executeIntent(ctx, intent, stateByName.get(intent.clusterName), snapByName.get(intent.clusterName), true);
        reconciled++;
        if (outcome === 'done') intentsDone++;
        if (outcome === 'failed') intentsFailed++;
      }
    }
    // Intents still pending (provider errors) keep their cluster's upgrade in our view, so the
    // engine neither picks another version for it nor frees its mutexes.
    for (const intent of dryRun ? [] : listPendingIntents(db)) {
      const snap = snapByName.get(intent.clusterName);
      if (snap && holdsPendingUpgrade(intent, snap.currentUpgrade)) {
        snap.currentUpgrade = { version: intent.version, nextRun: toIsoSeconds(intent.nextRun), state: 'scheduled' };
      }
    }

    // 4. store the snapshot
    const stored = storeSnapshots(ctx, states, snaps);
    // New clusters need their ids and positions from the database; otherwise apply the writes.
    states = stored.inserted > 0 ? loadClusterStates(db, org.id) : withClusterRowUpdates(states, stored.updates);
    const statesByName = new Map(states.map((s) => [s.name, s]));

    // 5. decide
    const validated = validatePlanInput(loadPlanDocument(db, org.id, now));
    if (!validated.ok) {
      const first = validated.problems
        .slice(0, 5)
        .map((p) => `${p.path}: ${p.message}`)
        .join('; ');
      throw new Error(`the stored fleet is not a valid plan input (${validated.problems.length} problems): ${first}`);
    }
    const input = validated.input;
    const healthIssues = new Map(states.map((s) => [s.name, s.healthIssues] as const));
    const plan = evaluateFleet(input, loadGateState(db, org, now, healthIssues));

    const newIntentIds: number[] = [];
    let recorded = 0;
    db.$client.transaction(() => {
      const outcomes = planDecisionOutcomes(plan.decisions, statesByName);
      const all: DecisionWrite[] = outcomes.map((o) => o.record);
      const changed: DecisionWrite[] = outcomes.filter((o) => o.changed).map((o) => o.record);
      for (const { decision: d, changed: isNew, intent } of outcomes) {
        if (isNew && !dryRun && d.reason === 'UNHEALTHY') emit(ctx, 'skipped-unhealthy', { cluster: d.cluster, message: d.message });
        if (dryRun || !intent) continue;
        const id = insertIntent(db, {
          key: intent.key,
          tickId,
          kind: intent.kind,
          clusterName: intent.cluster,
          version: intent.version,
          nextRun: intent.nextRunMs,
          createdAt: now,
        });
        if (id !== null) newIntentIds.push(id);
        if (intent.kind === 'schedule-upgrade') {
          // hold the upgrade (and its mutexes) in our view at once; the provider follows
          if (id !== null)
            setClusterUpgrade(
              db,
              org.id,
              intent.cluster,
              { version: intent.version, nextRun: intent.nextRun, state: 'scheduled' },
              'scheduled',
            );
        } else {
          setClusterUpgrade(db, org.id, intent.cluster, null, 'idle');
          if (d.reason === 'VERSION_BLOCKED') emit(ctx, 'blocked', { cluster: d.cluster, version: intent.version, message: d.message });
        }
      }
      // A dry run records its whole plan; a real tick records what changed (the cluster row
      // always holds the latest decision), so a quiet fleet does not grow the table every minute.
      const toRecord = dryRun ? all : changed;
      insertDecisions(db, tickId, now, toRecord);
      recorded = toRecord.length;
      if (!dryRun) {
        updateLastDecisions(db, org.id, changed);
        saveVersionData(db, org.id, plan.versionData, now);
        maybeSampleSoak(db, org.id, plan.versionData, now);
      }
    })();

    // 6. act
    for (const intent of getIntents(db, newIntentIds)) {
      if (unreadable.has(intent.clusterName)) continue; // waits, pending, until the cluster can be read
      const lease2 = acquireLease(db, SCHEDULER_LEASE, holder, realNow().getTime(), leaseTtlMs);
      if (!lease2.acquired) throw new Error(`lost the scheduler lease to ${lease2.holder}; remaining intents are reconciled by the holder`);
      const outcome = await executeIntent(ctx, intent, statesByName.get(intent.clusterName), snapByName.get(intent.clusterName), false);
      if (outcome === 'done') intentsDone++;
      if (outcome === 'failed') intentsFailed++;
    }

    for (const d of plan.decisions)
      metrics.decisions.inc({ action: d.action, reason: d.reason ?? (d.action === 'upgrade' ? 'UPGRADE' : 'NONE') });
    const durationMs = Math.round(performance.now() - started);
    const summary: TickSummary = {
      clusters: snaps.length,
      upgrades: plan.decisions.filter((d) => d.action === 'upgrade').length,
      skips: plan.decisions.filter((d) => d.action === 'skip').length,
      cancels: plan.decisions.filter((d) => d.action === 'cancel').length,
      decisionsRecorded: recorded,
      intentsCreated: newIntentIds.length,
      intentsDone,
      intentsFailed,
      reconciled,
      events: ctx.events,
      durationMs,
    };
    finishTick(db, tickId, {
      finishedAt: new Date(now.getTime() + durationMs),
      status: 'succeeded',
      summary: summary as unknown as Record<string, number>,
    });
    metrics.ticks.inc({ status: 'succeeded' });
    metrics.tickDuration.observe({ status: 'succeeded', dry_run: String(dryRun) }, durationMs / 1000);
    metrics.lastTickTimestamp.set({ status: 'succeeded' }, now.getTime() / 1000);
    log('tick done', { tickId, ...summary });
    return { status: 'succeeded', tickId, summary, decisions: plan.decisions };
  } catch (err) {
    const error = err instanceof Error ? err.message : String(err);
    const durationMs = Math.round(performance.now() - started);
    try {
      finishTick(db, tickId, { finishedAt: new Date(now.getTime() + durationMs), status: 'failed', error });
    } catch {
      // the database itself failed; the next tick marks this row interrupted
    }
    metrics.ticks.inc({ status: 'failed' });
    metrics.tickDuration.observe({ status: 'failed', dry_run: String(dryRun) }, durationMs / 1000);
    metrics.lastTickTimestamp.set({ status: 'failed' }, now.getTime() / 1000);
    log('tick failed', { tickId, error });
    return { status: 'failed', tickId, error };
  }
}
