// What a policy draft changes: the engine's decisions before and after, cluster by cluster.
import type { Decision } from '../plan/types';

export interface DecisionSummary {
  action: Decision['action'];
  version: string | null;
  reason: string | null;
  nextRun: string | null;
  message: string;
}

export interface DecisionChange {
  cluster: string;
  before: DecisionSummary | null;
  after: DecisionSummary | null;
}

function summarizeDecision(d: Decision): DecisionSummary {
  return { action: d.action, version: d.version ?? null, reason: d.reason ?? null, nextRun: d.nextRun ?? null, message: d.message };
}

/** Same action, version, reason and next run (messages may word the same decision differently). */
function sameDecision(a: DecisionSummary | null, b: DecisionSummary | null): boolean {
  if (a === null || b === null) return a === b;
  return a.action === b.action && a.version === b.version && a.reason === b.reason && a.nextRun === b.nextRun;
}

/**
 * The clusters whose decision differs between two engine runs, in the order of the `after` run
 * (then clusters only `before` decided), and how many clusters were compared.
 */
export function diffDecisions(before: readonly Decision[], after: readonly Decision[]): { changes: DecisionChange[]; evaluated: number } {
  const beforeBy = new Map(before.map((d) => [d.cluster, summarizeDecision(d)]));
  const afterBy = new Map(after.map((d) => [d.cluster, summarizeDecision(d)]));
  const names = [...new Set([...after.map((d) => d.cluster), ...before.map((d) => d.cluster)])];
  const changes = names
    .map((cluster) => ({ cluster, before: beforeBy.get(cluster) ?? null, after: afterBy.get(cluster) ?? null }))
    .filter((c) => !sameDecision(c.before, c.after));
  return { changes, evaluated: names.length };
}
