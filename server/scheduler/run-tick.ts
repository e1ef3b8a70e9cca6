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
import semver from 'semver';
import type { Db } from '@/db/open-database';
import { identifierProblem } from '@/server/domain/identifiers';
import { validatePlanInput } from '@/server/domain/plan/validate-plan-input';
import { evaluateFleet } from '@/server/domain/evaluation/evaluate-fleet';
import type { GatedDecision } from '@/server/domain/scheduling/apply-gates';
import { planDecisionOutcomes } from '@/server/domain/scheduling/tick-decisions';
import type { ClusterSnapshot, FleetProvider, ProviderUpgrade } from '@/server/integrations/providers/types';
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
  type SnapshotUpdate,
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
  type IntentRow,
} from '@/server/repositories/scheduler-repository';
import { maybeSampleSoak, saveVersionData } from '@/server/repositories/soak-repository';
import { enqueueDeliveries, hasEnabledWebhooks } from '@/server/repositories/webhook-repository';
import { loadGateState } from './gate-state';

export const SCHEDULER_LEASE = 'scheduler';
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

function isAtLeast(version: string, target: string): boolean {
  const a = semver.valid(version);
  const b = semver.valid(target);
  return a !== null && b !== null && semver.gte(a, b);
}

/** Carries out one intent against the provider; `snap` is patched with the result. */
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
  if (!state || !snap) {
    markIntentAttemptFailed(db, intent.id, now, `cluster ${intent.clusterName} is no longer known to the provider`, true);
    metrics.intents.inc({ kind, outcome: 'failed' });
    return 'failed';
  }
  const ref = { externalId: state.externalId, name: state.name };
  const nextRun = intent.nextRun ? toIsoSeconds(intent.nextRun) : null;
  try {
    if (intent.kind === 'schedule-upgrade') {
      const cu = snap.currentUpgrade;
      if (cu && cu.version === intent.version) {
        markIntentDone(db, intent.id, now, reconciling ? 'reconciled: the provider already has this upgrade' : undefined);
      } else if (isAtLeast(snap.version, intent.version) || (snap.lastUpgrade && snap.lastUpgrade.version === intent.version)) {
        markIntentDone(db, intent.id, now, 'reconciled: the cluster already went through this upgrade');
      } else if (cu) {
        markIntentAttemptFailed(db, intent.id, now, `the cluster has another upgrade (${cu.version}) at the provider`, true);
        metrics.intents.inc({ kind, outcome: 'failed' });
        return 'failed';
      } else if (!intent.nextRun || intent.nextRun.getTime() <= now.getTime()) {
        markIntentAttemptFailed(
          db,
          intent.id,
          now,
          'expired: its start time passed before it could be sent; the engine decides again',
          true,
        );
        if (state.currentUpgrade?.version === intent.version && state.currentUpgrade.state === 'scheduled')
          setClusterUpgrade(db, ctx.organizationId, state.name, null, 'idle');
        metrics.intents.inc({ kind, outcome: 'expired' });
        return 'failed';
      } else {
        await provider.scheduleUpgrade(
          { ...ref, version: intent.version, nextRun: intent.nextRun, idempotencyKey: intent.idempotencyKey },
          now,
        );
        snap.currentUpgrade = { version: intent.version, nextRun: nextRun!, state: 'scheduled' };
        markIntentDone(db, intent.id, now, reconciling ? 'reconciled: sent after a restart' : undefined);
      }
      db.$client.transaction(() => {
        recordUpgradeTransition(db, {
          clusterId: state.id,
          fromVersion: snap.version,
          toVersion: intent.version,
          state: 'scheduled',
          at: now.getTime(),
          scheduledFor: intent.nextRun?.getTime() ?? null,
        });
        emit(ctx, 'scheduled', { cluster: state.name, version: intent.version, fromVersion: snap.version, nextRun });
      })();
    } else {
      const cu = snap.currentUpgrade;
      if (cu && cu.version === intent.version && cu.state === 'scheduled') {
        await provider.cancelUpgrade({ ...ref, version: intent.version, idempotencyKey: intent.idempotencyKey }, now);
        snap.currentUpgrade = null;
        markIntentDone(db, intent.id, now, reconciling ? 'reconciled: sent after a restart' : undefined);
        db.$client.transaction(() => {
          recordUpgradeTransition(db, {
            clusterId: state.id,
            fromVersion: snap.version,
            toVersion: intent.version,
            state: 'cancelled',
            at: now.getTime(),
          });
          emit(ctx, 'cancelled', { cluster: state.name, version: intent.version });
        })();
      } else {
        markIntentDone(
          db,
          intent.id,
          now,
          cu?.version === intent.version ? 'not cancelled: the upgrade already started' : 'reconciled: nothing left to cancel',
        );
      }
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

function upgradeStateOf(cu: ProviderUpgrade | null, previous: string, failedNow: boolean): string {
  if (cu) return cu.state === 'started' ? 'upgrading' : 'scheduled';
  if (failedNow) return 'failed';
  return previous === 'failed' ? 'failed' : 'idle';
}

/** Stores the snapshot and records the lifecycle transitions it implies; returns what it wrote. */
function storeSnapshots(ctx: Ctx, states: StoredClusterState[], snaps: ClusterSnapshot[]): { updates: SnapshotUpdate[]; inserted: number } {
  const byExternal = new Map(states.map((s) => [s.externalId, s]));
  const byName = new Map(states.map((s) => [s.name, s]));
  const updates: SnapshotUpdate[] = [];
  const inserts: SnapshotInsert[] = [];
  const at = ctx.now.getTime();
  ctx.db.$client.transaction(() => {
    for (const snap of snaps) {
      const prev = byExternal.get(snap.externalId) ?? byName.get(snap.name);
      const cu = snap.currentUpgrade
        ? {
            version: snap.currentUpgrade.version,
            nextRun: snap.currentUpgrade.nextRun,
            state: snap.currentUpgrade.state,
            ...(snap.currentUpgrade.startedAt ? { startedAt: snap.currentUpgrade.startedAt } : {}),
            ...(snap.currentUpgrade.progress !== undefined ? { progress: snap.currentUpgrade.progress } : {}),
          }
        : null;
      if (!prev) {
        inserts.push({
          name: snap.name,
          externalId: snap.externalId,
          provider: ctx.provider.name,
          version: snap.version,
          channel: snap.channel,
          availableUpgrades: snap.availableUpgrades,
          healthy: snap.healthy,
          healthIssues: snap.healthIssues,
          currentUpgrade: cu,
          upgradeState: upgradeStateOf(snap.currentUpgrade, 'idle', false),
        });
        continue;
      }
      const before = prev.currentUpgrade;
      let failedNow = false;
      if (before && (!cu || cu.version !== before.version)) {
        const last = snap.lastUpgrade && snap.lastUpgrade.version === before.version ? snap.lastUpgrade : null;
        if (last?.state === 'failed') {
          failedNow = true;
          recordUpgradeTransition(ctx.db, {
            clusterId: prev.id,
            fromVersion: prev.version,
            toVersion: before.version,
            state: 'failed',
            at,
            message: last.message ?? null,
          });
          emit(ctx, 'failed', { cluster: prev.name, version: before.version, fromVersion: prev.version, message: last.message ?? null });
        } else if (last?.state === 'completed' || isAtLeast(snap.version, before.version)) {
          if (before.state === 'scheduled')
            emit(ctx, 'started', { cluster: prev.name, version: before.version, fromVersion: prev.version });
          recordUpgradeTransition(ctx.db, {
            clusterId: prev.id,
            fromVersion: prev.version,
            toVersion: before.version,
            state: 'completed',
            at,
          });
          emit(ctx, 'completed', { cluster: prev.name, version: before.version, fromVersion: prev.version });
        } else {
          recordUpgradeTransition(ctx.db, {
            clusterId: prev.id,
            fromVersion: prev.version,
            toVersion: before.version,
            state: 'cancelled',
            at,
            message: 'removed at the provider',
          });
          emit(ctx, 'cancelled', { cluster: prev.name, version: before.version, message: 'removed at the provider' });
        }
      }
      if (cu?.state === 'started' && !(before?.state === 'started' && before.version === cu.version)) {
        recordUpgradeTransition(ctx.db, { clusterId: prev.id, fromVersion: snap.version, toVersion: cu.version, state: 'started', at });
        emit(ctx, 'started', { cluster: prev.name, version: cu.version, fromVersion: snap.version });
      }
      updates.push({
        id: prev.id,
        version: snap.version,
        channel: snap.channel,
        availableUpgrades: snap.availableUpgrades,
        healthy: snap.healthy,
        healthIssues: snap.healthIssues,
        currentUpgrade: cu,
        upgradeState: upgradeStateOf(snap.currentUpgrade, prev.upgradeState, failedNow),
      });
    }
    writeSnapshots(ctx.db, ctx.organizationId, updates, inserts, ctx.now);
  })();
  return { updates, inserted: inserts.length };
}

/** The cluster states after `updates` were written, without reading 10k rows back. */
function withSnapshotUpdates(states: StoredClusterState[], updates: SnapshotUpdate[]): StoredClusterState[] {
  const byId = new Map(updates.map((u) => [u.id, u]));
  return states.map((s) => {
    const u = byId.get(s.id);
    return u
      ? {
          ...s,
          version: u.version,
          currentUpgrade: u.currentUpgrade,
          upgradeState: u.upgradeState,
          healthy: u.healthy,
          healthIssues: u.healthIssues,
        }
      : s;
  });
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
    try {
      snaps = await provider.listClusters(now);
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
      if (snap && !snap.currentUpgrade && intent.kind === 'schedule-upgrade' && intent.nextRun) {
        snap.currentUpgrade = { version: intent.version, nextRun: toIsoSeconds(intent.nextRun), state: 'scheduled' };
      }
    }

    // 4. store the snapshot
    const stored = storeSnapshots(ctx, states, snaps);
    // New clusters need their ids and positions from the database; otherwise apply the writes.
    states = stored.inserted > 0 ? loadClusterStates(db, org.id) : withSnapshotUpdates(states, stored.updates);
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
