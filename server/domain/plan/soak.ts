/**
 * Soak accumulation (contracts/plan.md step 1, AUS `update_history`).
 *
 * Soak days are cluster-days: for each healthy managed cluster on its current version, each of
 * its workloads gains `now - checkIn` days if the cluster was already reporting that
 * (version, workload); otherwise the cluster starts reporting and its first sighting adds 0.
 * Unhealthy clusters neither add time nor start reporting. Nothing is ever removed.
 */
import type { Cluster, VersionData, WorkloadSoak } from './types';
import { parseInstant, DAY_MS, formatInstant } from './time';

/**
 * Membership sets of reporting lists already seen, by list: a forecast accumulates soak once per
 * step over the same, mostly unchanged lists (tens of thousands of names on a large fleet), so
 * each list's Set is built once. A list is only ever appended to (names are unique in it), so a
 * Set of the same size still describes it.
 */
const reportingSetOf = new WeakMap<readonly string[], Set<string>>();

function membershipOf(reporting: readonly string[]): Set<string> {
  const known = reportingSetOf.get(reporting);
  if (known && known.size === reporting.length) return known;
  const set = new Set(reporting);
  reportingSetOf.set(reporting, set);
  return set;
}

/**
 * Returns a new VersionData with soak accumulated up to `nowMs`, visiting `clusters` in the
 * given order (the engine passes evaluation order, as AUS does, so float sums match it).
 * The input is not modified: a reporting list gaining a name is copied first; the others are
 * shared with the input (read them, never modify them).
 */
export function accumulateSoak(versionData: VersionData, clusters: readonly Cluster[], nowMs: number): VersionData {
  const checkIn = versionData.checkIn === undefined ? null : parseInstant(versionData.checkIn);
  const dt = checkIn === null ? 0 : (nowMs - checkIn) / DAY_MS;
  const versions: VersionData['versions'] = {};
  for (const [version, entry] of Object.entries(versionData.versions)) {
    const workloads: Record<string, WorkloadSoak> = {};
    for (const [w, soak] of Object.entries(entry.workloads)) {
      workloads[w] = { soakDays: soak.soakDays, reporting: soak.reporting };
    }
    versions[version] = { workloads };
  }
  // the lists this call copied (and so may append to), with their membership
  const owned = new Map<WorkloadSoak, Set<string>>();
  for (const cluster of clusters) {
    const policy = cluster.upgradePolicy;
    if (!policy || !cluster.healthy) continue;
    let entry = versions[cluster.version];
    if (!entry) {
      entry = { workloads: {} };
      versions[cluster.version] = entry;
    }
    for (const w of policy.workloads) {
      let soak = entry.workloads[w];
      if (!soak) {
        soak = { soakDays: 0, reporting: [] };
        entry.workloads[w] = soak;
        owned.set(soak, new Set());
      }
      const seen = owned.get(soak) ?? membershipOf(soak.reporting);
      if (seen.has(cluster.name)) soak.soakDays += dt;
      else {
        let mine = owned.get(soak);
        if (!mine) {
          soak.reporting = [...soak.reporting];
          owned.set(soak, (mine = new Set(seen)));
        }
        mine.add(cluster.name);
        soak.reporting.push(cluster.name);
      }
    }
  }
  for (const [soak, set] of owned) reportingSetOf.set(soak.reporting, set);
  return { checkIn: formatInstant(nowMs), versions };
}
