/**
 * What the tick does with one action intent (schedule or cancel an upgrade), decided purely from
 * the provider's snapshot of the cluster: it may already be done (the provider has it, or the
 * cluster went past it), conflict with another upgrade, have expired, or still need the provider
 * call. The tick (server/scheduler/run-tick.ts) carries the plan out; a provider error there makes
 * the attempt fail and the intent stay pending for a retry.
 */
import { reachedVersion, type FinishedUpgradeReport, type ObservedUpgrade } from './snapshot-transitions';

/** The intent as stored (the fields this step reads). */
export interface PlannedIntent {
  /** `schedule-upgrade`; anything else is a cancel */
  kind: string;
  clusterName: string;
  version: string;
  nextRun: Date | null;
}

/** The provider's view of the cluster (null when it no longer reports it, or it is not stored). */
export interface IntentCluster {
  version: string;
  currentUpgrade: Pick<ObservedUpgrade, 'version' | 'state'> | null;
  lastUpgrade?: Pick<FinishedUpgradeReport, 'version'> | null;
  /** our stored view of its upgrade (held at once when the intent was created) */
  storedUpgrade: Pick<ObservedUpgrade, 'version' | 'state'> | null;
}

/**
 * - `mark-done`: nothing to send; `recordScheduled` when the upgrade history gets its
 *   `scheduled` step (the provider has it, or the cluster already went through it).
 * - `fail`: final, no retry; `releaseHeldUpgrade` when our view still holds the upgrade this intent
 *   scheduled (set the cluster idle so the engine decides again). `outcome` labels the metric.
 * - `send-schedule` / `send-cancel`: call the provider; on success mark done with `doneNote` and
 *   record the `scheduled` / `cancelled` step.
 */
export type IntentPlan =
  | { kind: 'mark-done'; note: string | null; recordScheduled: boolean }
  | { kind: 'fail'; reason: string; outcome: 'failed' | 'expired'; releaseHeldUpgrade: boolean }
  | { kind: 'send-schedule'; doneNote: string | null }
  | { kind: 'send-cancel'; doneNote: string | null };

export const INTENT_NOTES = {
  providerHasIt: 'reconciled: the provider already has this upgrade',
  alreadyUpgraded: 'reconciled: the cluster already went through this upgrade',
  sentAfterRestart: 'reconciled: sent after a restart',
  alreadyStarted: 'not cancelled: the upgrade already started',
  nothingToCancel: 'reconciled: nothing left to cancel',
  expired: 'expired: its start time passed before it could be sent; the engine decides again',
} as const;

/**
 * @param cluster null when the provider no longer reports the cluster (or it is not stored)
 * @param reconciling the intent was left pending by an earlier tick (a crash, a provider error)
 */
export function planIntent(intent: PlannedIntent, cluster: IntentCluster | null, nowMs: number, reconciling: boolean): IntentPlan {
  if (!cluster)
    return {
      kind: 'fail',
      reason: `cluster ${intent.clusterName} is no longer known to the provider`,
      outcome: 'failed',
      releaseHeldUpgrade: false,
    };
  const current = cluster.currentUpgrade;
  const sentNote = reconciling ? INTENT_NOTES.sentAfterRestart : null;
  if (intent.kind !== 'schedule-upgrade') {
    if (current && current.version === intent.version && current.state === 'scheduled') return { kind: 'send-cancel', doneNote: sentNote };
    return {
      kind: 'mark-done',
      note: current?.version === intent.version ? INTENT_NOTES.alreadyStarted : INTENT_NOTES.nothingToCancel,
      recordScheduled: false,
    };
  }
  if (current && current.version === intent.version)
    return { kind: 'mark-done', note: reconciling ? INTENT_NOTES.providerHasIt : null, recordScheduled: true };
  if (reachedVersion(cluster.version, intent.version) || cluster.lastUpgrade?.version === intent.version)
    return { kind: 'mark-done', note: INTENT_NOTES.alreadyUpgraded, recordScheduled: true };
  if (current)
    return {
      kind: 'fail',
      reason: `the cluster has another upgrade (${current.version}) at the provider`,
      outcome: 'failed',
      releaseHeldUpgrade: false,
    };
  if (!intent.nextRun || intent.nextRun.getTime() <= nowMs) {
    const held = cluster.storedUpgrade;
    return {
      kind: 'fail',
      reason: INTENT_NOTES.expired,
      outcome: 'expired',
      releaseHeldUpgrade: held?.version === intent.version && held.state === 'scheduled',
    };
  }
  return { kind: 'send-schedule', doneNote: sentNote };
}

/**
 * A schedule intent still pending (the provider call failed) holds its upgrade in our view of a
 * cluster the provider reports without one, so the engine neither picks another version for it
 * nor frees its mutexes.
 */
export function holdsPendingUpgrade(
  intent: PlannedIntent,
  providerUpgrade: IntentCluster['currentUpgrade'],
): intent is PlannedIntent & { nextRun: Date } {
  return !providerUpgrade && intent.kind === 'schedule-upgrade' && intent.nextRun !== null;
}
