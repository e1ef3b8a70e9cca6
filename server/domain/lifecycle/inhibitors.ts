/**
 * Upgrade inhibitors read from the cluster itself (issue 14, item 7): installed operators that do
 * not support the target minor, and APIs the target removes that something still calls. Both are
 * real reasons a minor upgrade must wait, and OpenShift says so only indirectly (OLM sets
 * Upgradeable=False on its ClusterOperator; removed APIs need an admin acknowledgement); fleetplan
 * names the operator or the API and its callers. One rule, used by the scheduler's gates (before
 * an upgrade is planned) and by the lifecycle's start gates (on a fresh read). Pure.
 *
 * - An operator's `olm.maxOpenShiftVersion` (a CSV property, "4.15" or "4.15.3") is the newest
 *   OpenShift minor it supports: an upgrade to a later minor is held (OPERATOR_INCOMPATIBLE).
 * - APIRequestCount's `status.removedInRelease` is the *Kubernetes* minor that removes an API;
 *   OpenShift 4.Y ships Kubernetes 1.(Y+13) since 4.3. An API removed in the target's Kubernetes
 *   minor or earlier, with requests in the last 24 hours, holds the upgrade (REMOVED_API_IN_USE).
 */
import { parseVersion } from '@/server/domain/version/version';

export interface InstalledOperator {
  /** the ClusterServiceVersion's name, e.g. `elasticsearch-operator.v5.8.1` */
  name: string;
  namespace: string;
  /** the newest OpenShift version it supports (`olm.maxOpenShiftVersion`); null = no limit */
  maxOpenShiftVersion: string | null;
}

export interface RemovedApiUse {
  /** APIRequestCount's name: `resource.version.group`, e.g. `flowschemas.v1beta2.flowcontrol.apiserver.k8s.io` */
  resource: string;
  /** the Kubernetes minor that removes it, e.g. `1.29` */
  removedInRelease: string;
  /** requests in the last 24 hours */
  requestCount: number;
  /** who made them, most requests first (a few) */
  users: string[];
}

/** What a cluster reported about its operators and removed-API use (absent: the provider reads neither). */
export interface ClusterInhibitorFacts {
  operators: readonly InstalledOperator[];
  removedApis: readonly RemovedApiUse[];
}

export type InhibitorReason = 'OPERATOR_INCOMPATIBLE' | 'REMOVED_API_IN_USE';

export interface Inhibitor {
  reason: InhibitorReason;
  message: string;
}

/** [major, minor] of a version or minor label ("4.16.3", "4.16", "1.29"); null when it is neither. */
function minorOf(version: string): [number, number] | null {
  const v = parseVersion(version);
  if (v) return [v.major, v.minor];
  const m = /^(\d+)\.(\d+)$/.exec(version.trim());
  return m ? [Number(m[1]), Number(m[2])] : null;
}

const compareMinor = (a: [number, number], b: [number, number]) => a[0] - b[0] || a[1] - b[1];

/** The Kubernetes minor an OpenShift version ships (4.16.3 → 1.29); null before 4.3 or for non-4 versions. */
export function kubernetesMinorOf(openshiftVersion: string): string | null {
  const m = minorOf(openshiftVersion);
  if (!m || m[0] !== 4 || m[1] < 3) return null;
  return `1.${m[1] + 13}`;
}

/** The operators that do not support `toVersion`'s minor, and the removed APIs it would break, in that order. */
export function upgradeInhibitors(facts: ClusterInhibitorFacts | undefined, toVersion: string): Inhibitor[] {
  if (!facts) return [];
  const target = minorOf(toVersion);
  if (!target) return [];
  const found: Inhibitor[] = [];
  const incompatible = facts.operators.filter((op) => {
    const max = op.maxOpenShiftVersion === null ? null : minorOf(op.maxOpenShiftVersion);
    return max !== null && compareMinor(target, max) > 0;
  });
  if (incompatible.length > 0) {
    const named = incompatible.map((op) => `${op.name} (${op.namespace}) supports up to ${op.maxOpenShiftVersion}`);
    found.push({
      reason: 'OPERATOR_INCOMPATIBLE',
      message: `${toVersion} is newer than installed operators support: ${named.join('; ')}`,
    });
  }
  const kube = kubernetesMinorOf(toVersion);
  const kubeMinor = kube === null ? null : minorOf(kube);
  const removed =
    kubeMinor === null
      ? []
      : facts.removedApis.filter((api) => {
          const gone = minorOf(api.removedInRelease);
          return api.requestCount > 0 && gone !== null && compareMinor(gone, kubeMinor) <= 0;
        });
  if (removed.length > 0) {
    const named = removed.map(
      (api) =>
        `${api.resource} (removed in Kubernetes ${api.removedInRelease}; ${api.requestCount} requests in 24 h${api.users.length ? ` by ${api.users.join(', ')}` : ''})`,
    );
    found.push({
      reason: 'REMOVED_API_IN_USE',
      message: `${toVersion} (Kubernetes ${kube}) removes APIs still in use: ${named.join('; ')}`,
    });
  }
  return found;
}

/** Only the facts that could ever hold an upgrade (an operator with a limit, a removed API in use); null when none. */
export function inhibitingFacts(facts: ClusterInhibitorFacts): ClusterInhibitorFacts | null {
  const operators = facts.operators.filter((op) => op.maxOpenShiftVersion !== null);
  const removedApis = facts.removedApis.filter((api) => api.requestCount > 0);
  return operators.length === 0 && removedApis.length === 0 ? null : { operators, removedApis };
}
