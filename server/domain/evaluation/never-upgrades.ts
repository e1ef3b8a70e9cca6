/**
 * Which managed clusters will never upgrade as configured, with the releases available now, and
 * why. "Not now" (outside the window, a mutex taken, soak still growing) passes with time;
 * these do not:
 * - the schedule is suspended, or its cron never fires again;
 * - every newer available version is blocked for the cluster (organization or cluster pattern);
 * - a version's soak can never grow for one of the cluster's workloads: soak days are earned by
 *   managed clusters running the version with the workload (soak.ts), so when no such cluster
 *   runs it and none can reach it, the version never soaks for it.
 *
 * Which (workload, version) pairs can still soak is a least fixed point: a pair soaks when a
 * managed cluster with the workload runs the version, or when a cluster with the workload can
 * upgrade to it, that is: the version is offered to it, not blocked for it, and for each of its
 * workloads already soaked enough or able to soak. The sector rule and mutexes are left out:
 * they wait for other clusters, which this does not follow, so the answer "never" stays certain
 * while a cluster it calls possible may still wait long. Approval gates and a sector's notBefore
 * are left out for the same reason: they are waits that clear (an operator approves, the moment
 * comes), never "will never upgrade".
 *
 * Pure: the engine run (PlanRun) gives the candidates, block patterns and soak it decides with.
 */
import type { ManagedCluster, PlanRun } from '@/server/domain/plan/decide-upgrades';
import { nextScheduleRuns } from '@/server/domain/plan/cron-schedule';

export interface NeverUpgrades {
  /** what keeps it from ever upgrading, one line per cause (per version for the version rules) */
  reasons: string[];
}

const KEY_SEPARATOR = '\u0000';

/** A version a cluster is offered, waiting for the workloads that cannot soak it yet. */
type Waiting = { cluster: ManagedCluster; version: string; missing: number };

/**
 * What the answer depends on for one cluster. Clusters alike in all of it get the same answer,
 * so the work is done once per kind of cluster (a few hundred on a 10,000-cluster fleet).
 */
function likenessOf(c: ManagedCluster): string {
  const p = c.upgradePolicy;
  return [
    c.version,
    c.availableUpgrades.join(','),
    p.workloads.join(','),
    p.conditions.soakDays ?? '',
    p.conditions.blockedVersions.join(KEY_SEPARATOR),
    p.schedule.suspend ? 'suspended' : '',
    p.schedule.cron,
    p.schedule.location,
    p.schedule.isoWeek ?? '',
    // targets and caps (the sector's too): the versions above them are not candidates
    p.conditions.sector ?? '',
    p.conditions.targetVersion?.raw ?? '',
    p.conditions.maxVersion?.raw ?? '',
  ].join(KEY_SEPARATOR + KEY_SEPARATOR);
}

export function findNeverUpgrades(run: PlanRun): Map<string, NeverUpgrades> {
  const kinds = new Map<string, { like: ManagedCluster; members: ManagedCluster[] }>();
  for (const c of run.order) {
    const key = likenessOf(c);
    const kind = kinds.get(key);
    if (kind) kind.members.push(c);
    else kinds.set(key, { like: c, members: [c] });
  }
  const alike = [...kinds.values()].map((k) => k.like);

  // version -> the workloads that run it or can reach it (so its soak grows for them)
  const soaking = new Map<string, Set<string>>();
  const canSoak = (workload: string, version: string) => soaking.get(version)?.has(workload) ?? false;
  const markSoaking = (workload: string, version: string): boolean => {
    let workloads = soaking.get(version);
    if (!workloads) soaking.set(version, (workloads = new Set()));
    if (workloads.has(workload)) return false;
    workloads.add(workload);
    return true;
  };
  for (const c of alike) for (const w of c.upgradePolicy.workloads) markSoaking(w, c.version);
  // an upgrade already under way lands its cluster on its version whatever its policy says now
  for (const c of run.order) {
    if (c.currentUpgrade) for (const w of c.upgradePolicy.workloads) markSoaking(w, c.currentUpgrade.version);
  }

  const soakedEnough = (c: ManagedCluster, w: string, version: string): boolean => {
    const required = c.upgradePolicy.conditions.soakDays;
    if (required === undefined) return true;
    return (run.versionData.versions[version]?.workloads[w]?.soakDays ?? 0) >= required || canSoak(w, version);
  };
  // a version above the cluster's target or cap is never taken: as if it were not offered (a
  // cluster at its target is done, not stuck)
  const newerOf = new Map<ManagedCluster, string[]>(
    alike.map((c) => [c, run.candidates(c).newer.filter((v) => run.exceededBound(c, v) === undefined)]),
  );

  // The least fixed point, with a work list: each offered version of each kind of cluster waits
  // for the workloads that cannot soak it yet; a (workload, version) pair that becomes able to
  // soak releases the versions waiting for it, and a version with nothing left to wait for is
  // reachable, so its cluster's workloads can soak it in turn. Linear in the offered versions.
  const waitingFor = new Map<string, Waiting[]>();
  const queue: [string, string][] = [];
  const reach = (c: ManagedCluster, version: string) => {
    for (const w of c.upgradePolicy.workloads) if (markSoaking(w, version)) queue.push([w, version]);
  };
  for (const c of alike) {
    if (c.upgradePolicy.schedule.suspend) continue;
    for (const version of newerOf.get(c)!) {
      if (run.isBlocked(c, version) !== undefined) continue;
      const missing = c.upgradePolicy.workloads.filter((w) => !soakedEnough(c, w, version));
      if (missing.length === 0) {
        reach(c, version);
        continue;
      }
      const entry: Waiting = { cluster: c, version, missing: missing.length };
      for (const w of missing) {
        const key = w + KEY_SEPARATOR + version;
        const list = waitingFor.get(key);
        if (list) list.push(entry);
        else waitingFor.set(key, [entry]);
      }
    }
  }
  for (let next = queue.pop(); next; next = queue.pop()) {
    const [w, version] = next;
    for (const entry of waitingFor.get(w + KEY_SEPARATOR + version) ?? []) {
      entry.missing--;
      if (entry.missing === 0) reach(entry.cluster, entry.version);
    }
  }

  const never = new Map<string, NeverUpgrades>();
  const now = new Date(run.nowMs);
  for (const { like, members } of kinds.values()) {
    const verdict = neverVerdict(like, newerOf.get(like)!, run, now, soakedEnough);
    if (!verdict) continue;
    // one already on its way has nothing to hold
    for (const c of members) if (!c.currentUpgrade) never.set(c.name, verdict);
  }
  return never;
}

function neverVerdict(
  c: ManagedCluster,
  versions: readonly string[],
  run: PlanRun,
  now: Date,
  soakedEnough: (c: ManagedCluster, w: string, version: string) => boolean,
): NeverUpgrades | null {
  // up to date: nothing to hold
  if (versions.length === 0) return null;
  const schedule = c.upgradePolicy.schedule;
  if (schedule.suspend) return { reasons: ['its schedule is suspended'] };
  if (nextScheduleRuns(schedule, now, 1).length === 0) return { reasons: [`its schedule '${schedule.cron}' never runs again`] };
  const reasons: string[] = [];
  for (const version of versions) {
    const blockedBy = run.isBlocked(c, version);
    if (blockedBy !== undefined) {
      reasons.push(`${version} is blocked by ${blockedBy}`);
      continue;
    }
    const unsoakable = c.upgradePolicy.workloads.find((w) => !soakedEnough(c, w, version));
    if (unsoakable === undefined) return null;
    reasons.push(
      `${version} never soaks ${c.upgradePolicy.conditions.soakDays} days for workload ${unsoakable}: no cluster running ${unsoakable} runs it or can reach it first`,
    );
  }
  return { reasons };
}
