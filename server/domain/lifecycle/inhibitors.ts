/**
 * Upgrade inhibitors read from the cluster itself (issue 14, item 7): installed operators that do
 * not support the target minor, and APIs the target removes that something still calls. Both are
 * real reasons a minor upgrade must wait, and OpenShift says so only indirectly (OLM sets
 * Upgradeable=False on its ClusterOperator; removed APIs need an admin acknowledgement); fleetplan
 * names the operator or the API and its callers. One rule, used by the scheduler's gates (before
 * an upgrade is planned) and by the lifecycle's start gates (on a fresh read). Pure.
 *
 * - An operator's `olm.maxOpenShiftVersion` (a CSV property, "4.15" or "4.15.3") is the newest
 *   OpenShift minor it supports: a *minor* upgrade to a later minor is held (OPERATOR_INCOMPATIBLE),
 *   as OLM holds it; a limit that does not read as a version holds every minor upgrade (OLM too
 *   refuses to guess). A z-stream within the current minor is never held.
 * - APIRequestCount's `status.removedInRelease` is the *Kubernetes* minor that removes an API;
 *   OpenShift 4.Y ships Kubernetes 1.(Y+13) since 4.3. An API called in the last 24 hours that the
 *   target's Kubernetes removes and the current one still serves holds the upgrade
 *   (REMOVED_API_IN_USE).
 */
import { parseVersion } from '@/server/domain/version/version';

export interface InstalledOperator {
  /** the ClusterServiceVersion's name, e.g. `elasticsearch-operator.v5.8.1` */
  name: string;
  namespace: string;
  /** the newest OpenShift version it supports (`olm.maxOpenShiftVersion`); null = no limit */
  maxOpenShiftVersion: string | null;
}

/**
 * An API a later release removes that was called in the last 24 hours. Only what the rule reads is
 * kept (not the rolling request counts, which would change the stored facts at every read).
 */
export interface RemovedApiUse {
  /** APIRequestCount's name: `resource.version.group`, e.g. `flowschemas.v1beta2.flowcontrol.apiserver.k8s.io` */
  resource: string;
  /** the Kubernetes minor that removes it, e.g. `1.29` */
  removedInRelease: string;
  /** the callers with the most requests (a few, by name) */
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

/** [1, minor] of the Kubernetes an OpenShift version ships; null before 4.3 or for non-4 versions. */
function kubernetesOf(openshiftVersion: string): [number, number] | null {
  const m = minorOf(openshiftVersion);
  return m && m[0] === 4 && m[1] >= 3 ? [1, m[1] + 13] : null;
}

/** The Kubernetes minor an OpenShift version ships (4.16.3 → 1.29); null before 4.3 or for non-4 versions. */
export function kubernetesMinorOf(openshiftVersion: string): string | null {
  const k = kubernetesOf(openshiftVersion);
  return k ? `${k[0]}.${k[1]}` : null;
}

/**
 * What holds an upgrade from `fromVersion` to `toVersion`: the operators that do not support the
 * target's minor, then the removed APIs it would break.
 */
export function upgradeInhibitors(facts: ClusterInhibitorFacts | undefined, fromVersion: string, toVersion: string): Inhibitor[] {
  if (!facts) return [];
  const target = minorOf(toVersion);
  if (!target) return [];
  const current = minorOf(fromVersion);
  const found: Inhibitor[] = [];
  const minorUpgrade = current === null || compareMinor(target, current) > 0;
  const incompatible = minorUpgrade
    ? facts.operators.filter((op) => {
        if (op.maxOpenShiftVersion === null) return false;
        const max = minorOf(op.maxOpenShiftVersion);
        return max === null || compareMinor(target, max) > 0;
      })
    : [];
  if (incompatible.length > 0) {
    const named = incompatible.map((op) =>
      minorOf(op.maxOpenShiftVersion!) === null
        ? `${op.name} (${op.namespace}) declares a maxOpenShiftVersion that is not a version ('${op.maxOpenShiftVersion}')`
        : `${op.name} (${op.namespace}) supports up to ${op.maxOpenShiftVersion}`,
    );
    found.push({
      reason: 'OPERATOR_INCOMPATIBLE',
      message: `${toVersion} is newer than installed operators support: ${named.join('; ')}`,
    });
  }
  const kubeMinor = kubernetesOf(toVersion);
  const fromKubeMinor = kubernetesOf(fromVersion);
  const removed =
    kubeMinor === null
      ? []
      : facts.removedApis.filter((api) => {
          const gone = minorOf(api.removedInRelease);
          // removed by the target, and still served where the cluster is
          return gone !== null && compareMinor(gone, kubeMinor) <= 0 && (fromKubeMinor === null || compareMinor(gone, fromKubeMinor) > 0);
        });
  if (removed.length > 0) {
    const named = removed.map(
      (api) =>
        `${api.resource} (removed in Kubernetes ${api.removedInRelease}${api.users.length ? `; called by ${api.users.join(', ')}` : ''})`,
    );
    found.push({
      reason: 'REMOVED_API_IN_USE',
      message: `${toVersion} (Kubernetes ${kubernetesMinorOf(toVersion)}) removes APIs still in use: ${named.join('; ')}`,
    });
  }
  return found;
}

/** Only the facts that could ever hold an upgrade (an operator with a limit, a removed API in use); null when none. */
export function inhibitingFacts(facts: ClusterInhibitorFacts): ClusterInhibitorFacts | null {
  const operators = facts.operators.filter((op) => op.maxOpenShiftVersion !== null);
  return operators.length === 0 && facts.removedApis.length === 0 ? null : { operators, removedApis: facts.removedApis };
}
