/**
 * What one tick does with each gated decision, decided purely: the row to record, whether it
 * differs from the cluster's last decision, and the intent it implies (schedule or cancel an
 * upgrade, with an idempotency key so a decision repeated by later ticks triggers nothing twice).
 * The tick (server/scheduler/run-tick.ts) only writes and acts on this.
 */
import { parseInstant } from '@/server/domain/plan/time';
import type { DecisionAction } from '@/server/domain/plan/types';
import type { GatedDecision } from './apply-gates';

/** The cluster's stored state this step reads (its last decision and current upgrade). */
export interface LastDecisionState {
  lastDecisionAction: DecisionAction | null;
  lastDecisionReason: string | null;
  lastDecisionVersion: string | null;
  nextRun: number | null;
  currentUpgrade: { nextRun: string } | null;
}

/** A decision as the tick stores it (the decisions table, and the cluster's last decision). */
export interface DecisionRecord {
  clusterName: string;
  action: DecisionAction;
  version: string | null;
  reason: string | null;
  message: string | null;
  nextRun: number | null;
}

export type UpgradeIntent =
  | { kind: 'schedule-upgrade'; key: string; cluster: string; version: string; nextRun: string; nextRunMs: number | null }
  | { kind: 'cancel-upgrade'; key: string; cluster: string; version: string; nextRun: string | null; nextRunMs: number | null };

export interface DecisionOutcome {
  decision: GatedDecision;
  record: DecisionRecord;
  /** differs from the stored last decision (or the cluster has none) */
  changed: boolean;
  /** null for decisions that act on nothing, and for clusters not stored (yet) */
  intent: UpgradeIntent | null;
}

export function intentKey(kind: 'schedule' | 'cancel', cluster: string, version: string, nextRun: string | null): string {
  return `${kind}:${cluster}:${version}:${nextRun ?? '-'}`;
}

function sameDecision(d: GatedDecision, s: LastDecisionState, nextRunMs: number | null): boolean {
  return (
    s.lastDecisionAction === d.action &&
    (s.lastDecisionReason ?? null) === (d.reason ?? null) &&
    (s.lastDecisionVersion ?? null) === (d.version ?? null) &&
    (s.nextRun ?? null) === nextRunMs
  );
}

export function planDecisionOutcomes(
  decisions: readonly GatedDecision[],
  stored: ReadonlyMap<string, LastDecisionState>,
): DecisionOutcome[] {
  return decisions.map((d) => {
    const nextRunMs = d.nextRun ? parseInstant(d.nextRun) : null;
    const record: DecisionRecord = {
      clusterName: d.cluster,
      action: d.action,
      version: d.version ?? null,
      reason: d.reason ?? null,
      message: d.message ?? null,
      nextRun: nextRunMs,
    };
    const s = stored.get(d.cluster);
    const changed = !s || !sameDecision(d, s, nextRunMs);
    let intent: UpgradeIntent | null = null;
    if (s && d.action === 'upgrade' && d.version && d.nextRun) {
      intent = {
        kind: 'schedule-upgrade',
        key: intentKey('schedule', d.cluster, d.version, d.nextRun),
        cluster: d.cluster,
        version: d.version,
        nextRun: d.nextRun,
        nextRunMs,
      };
    } else if (s && d.action === 'cancel' && d.version) {
      const cuNextRun = s.currentUpgrade?.nextRun ?? null;
      intent = {
        kind: 'cancel-upgrade',
        key: intentKey('cancel', d.cluster, d.version, cuNextRun),
        cluster: d.cluster,
        version: d.version,
        nextRun: cuNextRun,
        nextRunMs: cuNextRun ? parseInstant(cuNextRun) : null,
      };
    }
    return { decision: d, record, changed, intent };
  });
}
