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
 * Returns a new VersionData with soak accumulated up to `nowMs`, visiting `clusters` in the
 * given order (the engine passes evaluation order, as AUS does, so float sums match it).
 * The input is not modified.
 */
export function accumulateSoak(versionData: VersionData, clusters: readonly Cluster[], nowMs: number): VersionData {
  const checkIn = versionData.checkIn === undefined ? null : parseInstant(versionData.checkIn);
  const dt = checkIn === null ? 0 : (nowMs - checkIn) / DAY_MS;
  const versions: VersionData['versions'] = {};
  for (const [version, entry] of Object.entries(versionData.versions)) {
    const workloads: Record<string, WorkloadSoak> = {};
    for (const [w, soak] of Object.entries(entry.workloads)) {
      workloads[w] = { soakDays: soak.soakDays, reporting: [...soak.reporting] };
    }
    versions[version] = { workloads };
  }
  // Reporting lists can be long (thousands of clusters); membership goes through Sets.
  const reportingSets = new Map<WorkloadSoak, Set<string>>();
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
      }
      let seen = reportingSets.get(soak);
      if (!seen) {
        seen = new Set(soak.reporting);
        reportingSets.set(soak, seen);
      }
      if (seen.has(cluster.name)) soak.soakDays += dt;
      else {
        seen.add(cluster.name);
        soak.reporting.push(cluster.name);
      }
    }
  }
  return { checkIn: formatInstant(nowMs), versions };
}
