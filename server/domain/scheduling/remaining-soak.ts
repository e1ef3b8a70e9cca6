/**
 * Remaining soak days per cluster and candidate version: the upgrade service's dashboard metric
 * `aus_cluster_version_remaining_soak_days`, special values included.
 *
 * @see ../shared/docs/research/upgrade-service.md §1.19
 */
import { findBlockingPattern } from '@/server/domain/plan/blocked-versions';
import type { Cluster, VersionData } from '@/server/domain/plan/types';
import { compareVersions } from '@/server/domain/version/version';
import { HOUR_MS, parseInstant } from '@/server/domain/plan/time';

export const REMAINING_SOAK_SCHEDULED = -1;
export const REMAINING_SOAK_STARTED = -2;
export const REMAINING_SOAK_LONG_RUNNING = -3;
export const REMAINING_SOAK_BLOCKED = -4;
/** a started upgrade older than this counts as long-running */
export const LONG_RUNNING_MS = 6 * HOUR_MS;

export interface RemainingSoak {
  cluster: string;
  version: string;
  value: number;
}

/**
 * Versions are visited from highest to lowest; once one is fully soaked (0) or has an active
 * upgrade marker (-1, -2, -3), lower versions are not reported, as the upgrade service does.
 * `startedAt` (optional, per cluster) tells started from long-running upgrades.
 */
export function computeRemainingSoak(
  cluster: Cluster,
  versionData: VersionData,
  orgBlocked: readonly string[],
  nowMs: number,
  startedAt?: string,
): RemainingSoak[] {
  const policy = cluster.upgradePolicy;
  if (!policy) return [];
  const out: RemainingSoak[] = [];
  const candidates = cluster.availableUpgrades.filter((v) => compareVersions(v, cluster.version) > 0).sort((a, b) => compareVersions(b, a));
  for (const version of candidates) {
    let value: number;
    const cu = cluster.currentUpgrade;
    if (cu && cu.version === version) {
      if (cu.state === 'scheduled') value = REMAINING_SOAK_SCHEDULED;
      else {
        const started = parseInstant(startedAt ?? cu.nextRun) ?? nowMs;
        value = nowMs - started > LONG_RUNNING_MS ? REMAINING_SOAK_LONG_RUNNING : REMAINING_SOAK_STARTED;
      }
    } else if (findBlockingPattern(version, [...orgBlocked], policy.conditions.blockedVersions)) {
      value = REMAINING_SOAK_BLOCKED;
    } else {
      const required = policy.conditions.soakDays ?? 0;
      const soaked = Math.min(...policy.workloads.map((w) => versionData.versions[version]?.workloads[w]?.soakDays ?? 0));
      value = Math.max(required - soaked, 0);
    }
    out.push({ cluster: cluster.name, version, value });
    if (value === 0 || value === REMAINING_SOAK_SCHEDULED || value === REMAINING_SOAK_STARTED || value === REMAINING_SOAK_LONG_RUNNING)
      break;
  }
  return out;
}
