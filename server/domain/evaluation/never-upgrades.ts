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
 * while a cluster it calls possible may still wait long.
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

export function findNeverUpgrades(run: PlanRun): Map<string, NeverUpgrades> {
  const soaking = new Set<string>();
  const key = (workload: string, version: string) => workload + KEY_SEPARATOR + version;
  for (const c of run.order) for (const w of c.upgradePolicy.workloads) soaking.add(key(w, c.version));

  // each cluster's newer, unblocked versions: what it could ever move to
  const offered = new Map<ManagedCluster, string[]>();
  for (const c of run.order)
    offered.set(
      c,
      run.candidates(c).newer.filter((v) => run.isBlocked(c, v) === undefined),
    );

  const soakedEnough = (c: ManagedCluster, w: string, version: string): boolean => {
    const required = c.upgradePolicy.conditions.soakDays;
    if (required === undefined) return true;
    return (run.versionData.versions[version]?.workloads[w]?.soakDays ?? 0) >= required || soaking.has(key(w, version));
  };
  const canReach = (c: ManagedCluster, version: string) => c.upgradePolicy.workloads.every((w) => soakedEnough(c, w, version));

  // least fixed point: each pass adds pairs; it ends when a pass adds none
  for (let changed = true; changed;) {
    changed = false;
    for (const c of run.order) {
      if (c.upgradePolicy.schedule.suspend) continue;
      for (const version of offered.get(c)!) {
        if (!canReach(c, version)) continue;
        for (const w of c.upgradePolicy.workloads) {
          const k = key(w, version);
          if (!soaking.has(k)) {
            soaking.add(k);
            changed = true;
          }
        }
      }
    }
  }

  const never = new Map<string, NeverUpgrades>();
  const now = new Date(run.nowMs);
  const firesAgain = new Map<string, boolean>();
  const scheduleFiresAgain = (s: ManagedCluster['upgradePolicy']['schedule']) => {
    const k = [s.cron, s.location, s.isoWeek ?? ''].join(KEY_SEPARATOR);
    let fires = firesAgain.get(k);
    if (fires === undefined) firesAgain.set(k, (fires = nextScheduleRuns(s, now, 1).length > 0));
    return fires;
  };
  for (const c of run.order) {
    const { newer } = run.candidates(c);
    // up to date, or already on its way: nothing to hold
    if (newer.length === 0 || c.currentUpgrade) continue;
    const schedule = c.upgradePolicy.schedule;
    if (schedule.suspend) {
      never.set(c.name, { reasons: ['its schedule is suspended'] });
      continue;
    }
    if (!scheduleFiresAgain(schedule)) {
      never.set(c.name, { reasons: [`its schedule '${schedule.cron}' never runs again`] });
      continue;
    }
    const reasons: string[] = [];
    for (const version of newer) {
      const blockedBy = run.isBlocked(c, version);
      if (blockedBy !== undefined) {
        reasons.push(`${version} is blocked by ${blockedBy}`);
        continue;
      }
      const unsoakable = c.upgradePolicy.workloads.find((w) => !soakedEnough(c, w, version));
      if (unsoakable === undefined) {
        reasons.length = 0;
        break;
      }
      reasons.push(
        `${version} never soaks ${c.upgradePolicy.conditions.soakDays} days for workload ${unsoakable}: no cluster running ${unsoakable} runs it or can reach it first`,
      );
    }
    if (reasons.length > 0) never.set(c.name, { reasons });
  }
  return never;
}
