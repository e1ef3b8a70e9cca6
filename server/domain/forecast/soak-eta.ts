/**
 * When does a (version, workload) reach each soak threshold? Soak grows by one day per day for
 * every healthy cluster running that version and workload, so at the current rate a threshold
 * T is reached after (T - soaked) / rate days. Pure: `now` is passed in.
 */
import { DAY_MS, formatInstant } from '../plan/time';

export type SoakThresholdEta = {
  soakDays: number;
  /** clusters waiting at this threshold */
  clusters: number;
  reached: boolean;
  /** UTC instant; null when never at the current rate (nobody runs it) */
  eta: string | null;
  /** days from now; 0 when reached, null when never */
  daysFromNow: number | null;
};

export function estimateSoakEtas(input: {
  soakDays: number;
  /** healthy clusters currently running the version with the workload */
  ratePerDay: number;
  thresholds: readonly { soakDays: number; clusters: number }[];
  nowMs: number;
}): SoakThresholdEta[] {
  const { soakDays, ratePerDay, nowMs } = input;
  return [...input.thresholds]
    .sort((a, b) => a.soakDays - b.soakDays)
    .map((t) => {
      if (soakDays >= t.soakDays)
        return { soakDays: t.soakDays, clusters: t.clusters, reached: true, eta: formatInstant(nowMs), daysFromNow: 0 };
      if (ratePerDay <= 0) return { soakDays: t.soakDays, clusters: t.clusters, reached: false, eta: null, daysFromNow: null };
      const days = (t.soakDays - soakDays) / ratePerDay;
      return {
        soakDays: t.soakDays,
        clusters: t.clusters,
        reached: false,
        eta: formatInstant(Math.ceil((nowMs + days * DAY_MS) / 1000) * 1000),
        daysFromNow: days,
      };
    });
}
