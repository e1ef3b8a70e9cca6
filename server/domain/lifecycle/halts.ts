/**
 * Failures halt. An unacknowledged failure (failed or timed-out attempt) of version V on a cluster
 * in sector S halts upgrades to V in S and in every sector downstream of S (sectors that depend on
 * S, directly or not), unless the failed cluster's policy says `onFailure: continue`. Whatever the
 * policy, V is never retried on the failed cluster itself until the failure is acknowledged.
 */

export interface UnacknowledgedFailure {
  attemptId: number;
  cluster: string;
  /** the failed cluster's sector, if any */
  sector: string | null;
  version: string;
  /** the failed cluster's policy says onFailure: halt */
  halts: boolean;
}

export interface SectorDependencies {
  name: string;
  /** the sectors this one depends on (follows) */
  dependencies: readonly string[];
}

export interface HaltIndex {
  /** cluster → version → the failure */
  byCluster: ReadonlyMap<string, ReadonlyMap<string, UnacknowledgedFailure>>;
  /** sector → version → the failure that halts it there */
  bySector: ReadonlyMap<string, ReadonlyMap<string, UnacknowledgedFailure>>;
}

export const EMPTY_HALTS: HaltIndex = { byCluster: new Map(), bySector: new Map() };

/** `sector` and every sector downstream of it (depending on it, transitively); cycles are cut. */
export function downstreamSectors(sector: string, sectors: readonly SectorDependencies[]): Set<string> {
  const dependents = new Map<string, string[]>();
  for (const s of sectors)
    for (const dep of s.dependencies) {
      const list = dependents.get(dep) ?? [];
      list.push(s.name);
      dependents.set(dep, list);
    }
  const seen = new Set<string>([sector]);
  const stack = [sector];
  while (stack.length > 0) {
    const next = stack.pop()!;
    for (const d of dependents.get(next) ?? [])
      if (!seen.has(d)) {
        seen.add(d);
        stack.push(d);
      }
  }
  return seen;
}

export function buildHaltIndex(failures: readonly UnacknowledgedFailure[], sectors: readonly SectorDependencies[]): HaltIndex {
  const byCluster = new Map<string, Map<string, UnacknowledgedFailure>>();
  const bySector = new Map<string, Map<string, UnacknowledgedFailure>>();
  for (const f of failures) {
    const forCluster = byCluster.get(f.cluster) ?? new Map<string, UnacknowledgedFailure>();
    if (!forCluster.has(f.version)) forCluster.set(f.version, f);
    byCluster.set(f.cluster, forCluster);
    if (!f.halts || f.sector === null) continue;
    for (const s of downstreamSectors(f.sector, sectors)) {
      const forSector = bySector.get(s) ?? new Map<string, UnacknowledgedFailure>();
      if (!forSector.has(f.version)) forSector.set(f.version, f);
      bySector.set(s, forSector);
    }
  }
  return { byCluster, bySector };
}

export const hasHalts = (index: HaltIndex) => index.byCluster.size > 0;

/** Why an upgrade of `cluster` (in `sector`) to `version` is halted, or null. */
export function haltReason(index: HaltIndex, cluster: string, sector: string | null | undefined, version: string): string | null {
  const own = index.byCluster.get(cluster)?.get(version);
  if (own) return `the upgrade to ${version} failed on this cluster and is not acknowledged (attempt ${own.attemptId})`;
  const bySector = sector ? index.bySector.get(sector)?.get(version) : undefined;
  if (bySector)
    return `halted: the upgrade to ${version} failed on ${bySector.cluster} (sector ${bySector.sector}${
      bySector.sector === sector ? '' : `, upstream of ${sector}`
    }) and is not acknowledged`;
  return null;
}
