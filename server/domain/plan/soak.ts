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

type LedgerGroup = {
  /** the healthy managed clusters running the version with the workload, in the order they joined */
  names: string[];
  /** those not yet seen in the version's reporting list by the last accumulation */
  unchecked: string[];
};

/**
 * accumulateSoak for a fleet that changes little between calls — the forecast, which accumulates
 * once per simulated step over the same clusters and between two steps only moves a few of them
 * to a new version. The rule is accumulateSoak's; what changes is the bookkeeping: clusters are
 * kept grouped by (version, workload), so a call costs one addition per reporting cluster and a
 * membership check only for a cluster that joined a group since the last call, instead of looking
 * every cluster's version and workloads up again. The result equals accumulateSoak's (the same
 * float additions per entry; a reporting list may name newcomers in another order, which no rule
 * reads).
 */
export class SoakLedger {
  private readonly groups = new Map<string, Map<string, LedgerGroup>>();
  /** the VersionData the last call returned: fed back, only newcomers need checking */
  private last: VersionData | null = null;

  /** `clusters` in the order accumulateSoak would visit them (the engine's order). */
  constructor(clusters: readonly Cluster[]) {
    for (const c of clusters) this.join(c, c.version);
  }

  /** `cluster` now runs `cluster.version`; it ran `from` (its soak there stays, it adds no more). */
  moved(cluster: Cluster, from: string): void {
    if (!cluster.upgradePolicy || !cluster.healthy) return;
    const byWorkload = this.groups.get(from);
    for (const w of cluster.upgradePolicy.workloads) {
      const group = byWorkload?.get(w);
      if (!group) continue;
      group.names = group.names.filter((n) => n !== cluster.name);
      group.unchecked = group.unchecked.filter((n) => n !== cluster.name);
    }
    this.join(cluster, cluster.version);
  }

  /** How many clusters add soak to (version, workload): soak days it gains per day from the next call on. */
  reporters(version: string, workload: string): number {
    return this.groups.get(version)?.get(workload)?.names.length ?? 0;
  }

  private join(c: Cluster, version: string): void {
    if (!c.upgradePolicy || !c.healthy) return;
    let byWorkload = this.groups.get(version);
    if (!byWorkload) this.groups.set(version, (byWorkload = new Map<string, LedgerGroup>()));
    for (const w of c.upgradePolicy.workloads) {
      let group = byWorkload.get(w);
      if (!group) byWorkload.set(w, (group = { names: [], unchecked: [] }));
      group.names.push(c.name);
      group.unchecked.push(c.name);
    }
  }

  /** accumulateSoak(versionData, the ledger's clusters, nowMs). */
  accumulate(versionData: VersionData, nowMs: number): VersionData {
    const checkIn = versionData.checkIn === undefined ? null : parseInstant(versionData.checkIn);
    const dt = checkIn === null ? 0 : (nowMs - checkIn) / DAY_MS;
    const fedBack = versionData === this.last;
    const versions: VersionData['versions'] = {};
    for (const [version, entry] of Object.entries(versionData.versions)) {
      const workloads: Record<string, WorkloadSoak> = {};
      for (const [w, soak] of Object.entries(entry.workloads)) workloads[w] = { soakDays: soak.soakDays, reporting: soak.reporting };
      versions[version] = { workloads };
    }
    for (const [version, byWorkload] of this.groups) {
      for (const [w, group] of byWorkload) {
        if (group.names.length === 0) continue;
        let entry = versions[version];
        if (!entry) versions[version] = entry = { workloads: {} };
        const soak = entry.workloads[w];
        if (!soak) {
          // first sighting of the pair: everyone starts reporting, nobody adds time
          entry.workloads[w] = { soakDays: 0, reporting: [...group.names] };
          group.unchecked = [];
          continue;
        }
        const toCheck = fedBack ? group.unchecked : group.names;
        const seen = toCheck.length > 0 ? membershipOf(soak.reporting) : null;
        const newcomers = seen === null ? [] : toCheck.filter((n) => !seen.has(n));
        // one addition per reporting cluster, as accumulateSoak makes them
        for (let i = group.names.length - newcomers.length; i > 0; i--) soak.soakDays += dt;
        if (seen !== null && newcomers.length > 0) {
          soak.reporting = [...soak.reporting, ...newcomers];
          const set = new Set(seen);
          for (const n of newcomers) set.add(n);
          reportingSetOf.set(soak.reporting, set);
        }
        group.unchecked = [];
      }
    }
    const result: VersionData = { checkIn: formatInstant(nowMs), versions };
    this.last = result;
    return result;
  }
}
