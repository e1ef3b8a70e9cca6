// Soak over time for one (version, workload) against the thresholds of the clusters waiting for
// it, with the date each threshold is reached at the current accumulation rate.
import type { Db } from '@/db/open-database';
import { estimateSoakEtas, type SoakThresholdEta } from '@/server/domain/forecast/soak-eta';
import { findBlockingPattern } from '@/server/domain/plan/blocked-versions';
import { listInstanceBlockedPatterns } from '@/server/repositories/instance-blocked-version-repository';
import { compareVersions } from '@/server/domain/version/version';
import type { OrganizationScope } from './organization-scope';
import { listBlockedPatterns } from '@/server/repositories/sector-repository';
import * as repo from '@/server/repositories/soak-query-repository';
import { AppError } from './app-error';

const DAY_MS = 86_400_000;
const SERIES_DAYS = 60;

export interface SoakVersionOption {
  version: string;
  workload: string;
  soakDays: number;
  /** clusters offered the version whose threshold is not reached yet */
  waiting: number;
  /** clusters offered the version (any threshold) */
  offered: number;
}

export interface SoakSeries {
  version: string;
  workload: string;
  now: string;
  soakDays: number;
  ratePerDay: number;
  samples: { at: string; soakDays: number; reportingCount: number }[];
  thresholds: SoakThresholdEta[];
  /** straight line from now to the highest threshold at the current rate (empty when never) */
  projection: { at: string; soakDays: number }[];
}

const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

export function createSoakService(db: Db, now: () => Date, scope: OrganizationScope) {
  const org = async () => {
    const o = await scope();
    if (!o) throw new AppError('NOT_FOUND', 'No organization is stored yet');
    return o;
  };
  return {
    async versions(): Promise<{ options: SoakVersionOption[]; default: { version: string; workload: string } | null }> {
      const o = await scope();
      if (!o) return { options: [], default: null };
      const blocked = [...(await listInstanceBlockedPatterns(db)), ...(await listBlockedPatterns(db, o.id))];
      const soak = new Map((await repo.listSoakTotals(db, o.id)).map((s) => [`${s.version}|${s.workload}`, s.soakDays]));
      const options = new Map<string, SoakVersionOption>();
      for (const row of await repo.countOffersByThreshold(db, o.id)) {
        if (findBlockingPattern(row.version, blocked) !== undefined) continue;
        const key = `${row.version}|${row.workload}`;
        const soakDays = soak.get(key) ?? 0;
        const opt = options.get(key) ?? { version: row.version, workload: row.workload, soakDays, waiting: 0, offered: 0 };
        opt.offered += row.clusters;
        if (row.soakDays !== null && soakDays < row.soakDays) opt.waiting += row.clusters;
        options.set(key, opt);
      }
      const list = [...options.values()].sort(
        (a, b) => compareVersions(b.version, a.version) || b.waiting - a.waiting || a.workload.localeCompare(b.workload),
      );
      // The newest version someone waits for that is already soaking somewhere (a version nobody
      // runs yet has no curve to show), else the newest waited-for one.
      const first = list.find((x) => x.waiting > 0 && x.soakDays > 0) ?? list.find((x) => x.waiting > 0) ?? list[0];
      return { options: list, default: first ? { version: first.version, workload: first.workload } : null };
    },

    async series(input: { version: string; workload: string }): Promise<SoakSeries> {
      const o = await org();
      const nowMs = now().getTime();
      const total = await repo.findSoakTotal(db, o.id, input.version, input.workload);
      const soakDays = total?.soakDays ?? 0;
      const ratePerDay = await repo.countHealthyRunning(db, o.id, input.version, input.workload);
      const samples = (await repo.listSoakSamples(db, o.id, input.version, input.workload, new Date(nowMs - SERIES_DAYS * DAY_MS)))
        .filter((s) => s.at.getTime() <= nowMs)
        .map((s) => ({ at: iso(s.at.getTime()), soakDays: s.soakDays, reportingCount: s.reportingCount }));
      const last = samples[samples.length - 1];
      if (total && (!last || Date.parse(last.at) < nowMs - 60_000))
        samples.push({ at: iso(nowMs), soakDays, reportingCount: total.reportingCount });
      const byThreshold = new Map<number, number>();
      for (const row of await repo.countOffersByThreshold(db, o.id, input)) {
        if (row.soakDays === null) continue;
        byThreshold.set(row.soakDays, (byThreshold.get(row.soakDays) ?? 0) + row.clusters);
      }
      const thresholds = estimateSoakEtas({
        soakDays,
        ratePerDay,
        thresholds: [...byThreshold].map(([d, clusters]) => ({ soakDays: d, clusters })),
        nowMs,
      });
      const pending = thresholds.filter((t) => !t.reached);
      const furthest = pending[pending.length - 1];
      const projection = furthest?.eta
        ? [
            { at: iso(nowMs), soakDays },
            { at: furthest.eta, soakDays: furthest.soakDays },
          ]
        : [];
      return { version: input.version, workload: input.workload, now: iso(nowMs), soakDays, ratePerDay, samples, thresholds, projection };
    },
  };
}

export type SoakService = ReturnType<typeof createSoakService>;
