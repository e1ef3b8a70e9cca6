import { parseVersion } from '../version/version';

/**
 * Minors whose update to the next minor removes Kubernetes APIs and therefore carries an admin
 * gate (an acknowledgement in `openshift-config/admin-acks`). Known from the OpenShift update
 * docs: 4.8→4.9, 4.11→4.12, 4.12→4.13, 4.13→4.14, 4.15→4.16, 4.18→4.19. The gate name is derived
 * by minor: `ack-4.Y-kube-1.K-api-removals-in-4.Y+1`, where 4.(Y+1) ships Kubernetes 1.K = 1.(Y+14).
 * This is a rule of thumb for the runbook: the cluster's own list is authoritative
 * (`oc -n openshift-config-managed get configmap admin-gates -o yaml`).
 * @see https://docs.openshift.com/container-platform/4.12/updating/updating-cluster-prepare.html
 */
export const MINORS_WITH_API_REMOVAL_GATES: readonly number[] = [8, 11, 12, 13, 15, 18];

/**
 * The admin gates to acknowledge before leaving `from`'s minor for `to`'s: the known ones
 * (adminGatesForHop) and, when the cluster's own list was read (openshift-config-managed/admin-gates,
 * whose keys name the minor they guard: `ack-4.15-…`), those of `from`'s minor — a release may
 * declare a gate this list does not know yet. Sorted, each once.
 */
export function adminGatesToAcknowledge(from: string, to: string, clusterGates?: readonly string[]): string[] {
  const known = adminGatesForHop(from, to);
  const a = parseVersion(from);
  const b = parseVersion(to);
  if (!clusterGates || !a || !b || b.major !== a.major || b.minor !== a.minor + 1) return known;
  const prefix = `ack-${a.major}.${a.minor}-`;
  return [...new Set([...known, ...clusterGates.filter((g) => g.startsWith(prefix))])].sort();
}

/** Admin-gate names to acknowledge before updating from `from`'s minor to `to`'s (4.y only). */
export function adminGatesForHop(from: string, to: string): string[] {
  const a = parseVersion(from);
  const b = parseVersion(to);
  if (!a || !b || a.major !== 4 || b.major !== 4 || b.minor !== a.minor + 1) return [];
  if (!MINORS_WITH_API_REMOVAL_GATES.includes(a.minor)) return [];
  return [`ack-4.${a.minor}-kube-1.${a.minor + 14}-api-removals-in-4.${b.minor}`];
}
