/**
 * "Why not?" for one cluster of a plan document: the engine's decision with every rule it applies
 * (pass/fail and numbers), for the cluster and for every candidate version. A view of
 * evaluateFleet without gates (the `plan` contract has none).
 */
import { evaluateFleet, NO_GATES } from '@/server/domain/evaluation/evaluate-fleet';
import type { ClusterExplanation, PlanInput } from './types';

/**
 * Explains the engine's decision for `clusterName` with every rule it applies. Unknown or
 * unmanaged clusters get `managed: false` and no decision.
 */
export function explainCluster(input: PlanInput, clusterName: string): ClusterExplanation {
  const e = evaluateFleet(input, NO_GATES, { explain: [clusterName] }).clusters.get(clusterName);
  if (!e) {
    return {
      cluster: clusterName,
      managed: false,
      checks: [{ rule: 'pending', pass: false, message: 'unknown cluster' }],
      candidates: [],
      ignoredVersions: [],
    };
  }
  const candidates = e.candidates.map(({ version, chosen, checks }) => ({ version, chosen, checks }));
  if (!e.managed) return { cluster: clusterName, managed: false, checks: e.checks, candidates, ignoredVersions: e.ignoredVersions };
  return {
    cluster: clusterName,
    managed: true,
    ...(e.engineDecision ? { decision: e.engineDecision } : {}),
    ...(e.order !== undefined ? { order: e.order } : {}),
    checks: e.checks,
    candidates,
    ignoredVersions: e.ignoredVersions,
  };
}
