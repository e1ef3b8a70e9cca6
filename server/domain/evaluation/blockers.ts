/**
 * "Why not?" as one ordered list: everything that keeps a managed cluster from upgrading now, in
 * the order the scheduler meets it, from one evaluation (evaluate-fleet.ts):
 * 1. the gates (freeze, exclusion, health, provider, halt), judged at the instant the upgrade
 *    would start;
 * 2. the engine's cluster rules (pending upgrade, suspend, the sector's notBefore, window,
 *    mutexes, available upgrades);
 * 3. the version rules (blocked, bound, sector order, soak, approval) of each newer version,
 *    highest first. notBefore and approval gates hold until the moment comes or an operator
 *    approves: they never clear by the next run on their own.
 *
 * Each blocker says whether it clears by the next run by itself: the maintenance window does (the
 * next run is in it), and so may a mutex (its holder finishes); every other one still holds
 * then. `holding` points at the first that still holds: what the cluster really waits for.
 */
import type { ClusterEvaluation } from './evaluate-fleet';

export interface Blocker {
  /** the gate or rule name (freeze, exclusion, health, …, schedule, mutex, blocked, sector, soak) */
  rule: string;
  /** the version a version rule is about */
  version?: string;
  message: string;
  /** true when it clears by the next run on its own (window, a mutex held by another cluster) */
  clearsByNextRun: boolean;
}

export interface Blockers {
  all: Blocker[];
  /** the index in `all` of the first blocker that still holds at the next run; null when only waits remain */
  holding: number | null;
}

const CLEARS_BY_ITSELF = new Set(['schedule', 'mutex']);

export function listBlockers(evaluation: ClusterEvaluation): Blockers {
  const all: Blocker[] = [];
  for (const g of evaluation.gates) if (!g.pass) all.push({ rule: g.gate, message: g.message, clearsByNextRun: false });
  for (const c of evaluation.checks) {
    if (c.pass) continue;
    // a window without any next run never clears
    const clears = CLEARS_BY_ITSELF.has(c.rule) && !(c.rule === 'schedule' && c.details?.nextRun == null);
    all.push({ rule: c.rule, message: c.message, clearsByNextRun: clears });
  }
  if (evaluation.decision?.action !== 'upgrade') {
    for (const candidate of evaluation.candidates) {
      for (const c of candidate.checks) {
        if (!c.pass) all.push({ rule: c.rule, version: candidate.version, message: c.message, clearsByNextRun: false });
      }
    }
  }
  const holding = all.findIndex((b) => !b.clearsByNextRun);
  return { all, holding: holding < 0 ? null : holding };
}
