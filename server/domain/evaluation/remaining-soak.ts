/**
 * Remaining soak days per cluster and candidate version: the upgrade service's dashboard metric
 * `aus_cluster_version_remaining_soak_days`, special values included, read from the engine's
 * own blocked and soak verdicts (FleetEvaluation.candidateSoak).
 *
 * @see ../shared/docs/research/upgrade-service.md §1.19
 */
import type { Cluster } from '@/server/domain/plan/types';
import { HOUR_MS, parseInstant } from '@/server/domain/plan/time';
import type { CandidateSoakVerdict } from './evaluate-fleet';

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
 * `startedAt` tells started from long-running upgrades (default: the upgrade's nextRun).
 */
export function remainingSoakOf(
  cluster: Cluster,
  candidates: readonly CandidateSoakVerdict[],
  nowMs: number,
  startedAt?: string,
): RemainingSoak[] {
  const out: RemainingSoak[] = [];
  const cu = cluster.currentUpgrade;
  for (const candidate of candidates) {
    let value: number;
    if (cu && cu.version === candidate.version) {
      if (cu.state === 'scheduled') value = REMAINING_SOAK_SCHEDULED;
      else {
        const started = parseInstant(startedAt ?? cu.nextRun) ?? nowMs;
        value = nowMs - started > LONG_RUNNING_MS ? REMAINING_SOAK_LONG_RUNNING : REMAINING_SOAK_STARTED;
      }
    } else if (candidate.blockedBy !== null) value = REMAINING_SOAK_BLOCKED;
    else value = candidate.soak.remainingDays;
    out.push({ cluster: cluster.name, version: candidate.version, value });
    if (value === 0 || value === REMAINING_SOAK_SCHEDULED || value === REMAINING_SOAK_STARTED || value === REMAINING_SOAK_LONG_RUNNING)
      break;
  }
  return out;
}
