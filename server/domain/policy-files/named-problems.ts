/**
 * The engine reports problems at paths of its input document (`clusters[17].upgradePolicy...`),
 * where 17 is a position in the stored fleet that means nothing to an editor. These helpers
 * name the cluster instead (`clusters[name=hive-prod-01].upgradePolicy.conditions.soakDays`) or
 * map the path onto the caller's own input (`policy.conditions.soakDays`).
 */

export type NamedProblem = {
  path: string;
  message: string;
  /** the cluster the problem is about */
  cluster?: string;
  /** path inside that cluster's upgradePolicy (`conditions.soakDays`; '' for the policy itself) */
  field?: string;
};

export type NamedWarning = NamedProblem & { code: string };

export type PathMapping = {
  /** where a cluster's policy sits in the caller's input (`policy`, `clusters[2].policy`), if it does */
  clusterPolicyPath?: (cluster: string) => string | undefined;
  /** where the organization's blocked version #i sits in the caller's input */
  blockedVersionPath?: (index: number) => string | undefined;
  /** prefix replacing `organization.` (default: keep it) */
  organizationPrefix?: string;
};

const CLUSTER_PATH = /^clusters\[(\d+)\](.*)$/;
const BLOCKED_PATH = /^organization\.blockedVersions\[(\d+)\](.*)$/;
const POLICY = '.upgradePolicy';

export function nameProblem<P extends { path: string; message: string }>(
  p: P,
  clusterNames: readonly string[],
  mapping: PathMapping = {},
): P & NamedProblem {
  const c = CLUSTER_PATH.exec(p.path);
  if (c) {
    const name = clusterNames[Number(c[1])];
    if (name === undefined) return { ...p };
    const rest = c[2] ?? '';
    if (rest === POLICY || rest.startsWith(`${POLICY}.`) || rest.startsWith(`${POLICY}[`)) {
      const inner = rest.slice(POLICY.length);
      const field = inner.replace(/^\./, '');
      const own = mapping.clusterPolicyPath?.(name);
      return { ...p, path: own !== undefined ? `${own}${inner}` : `clusters[name=${name}]${rest}`, cluster: name, field };
    }
    return { ...p, path: `clusters[name=${name}]${rest}`, cluster: name };
  }
  const b = BLOCKED_PATH.exec(p.path);
  if (b) {
    const own = mapping.blockedVersionPath?.(Number(b[1]));
    if (own !== undefined) return { ...p, path: `${own}${b[2] ?? ''}` };
  }
  if (mapping.organizationPrefix !== undefined && p.path.startsWith('organization.')) {
    return { ...p, path: `${mapping.organizationPrefix}${p.path.slice('organization.'.length)}` };
  }
  return { ...p };
}

export function nameProblems<P extends { path: string; message: string }>(
  problems: readonly P[],
  clusterNames: readonly string[],
  mapping: PathMapping = {},
): (P & NamedProblem)[] {
  return problems.map((p) => nameProblem(p, clusterNames, mapping));
}
