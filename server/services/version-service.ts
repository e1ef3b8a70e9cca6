// The upgrade service's version history: per version and workload the soak accumulated and the
// clusters reporting it, how many clusters run the version now, and which regexes block it.
import type { Db } from '@/db/open-database';
import { patternMatches } from '@/server/domain/plan/blocked-versions';
import { compareVersions, isSemver } from '@/server/domain/version/version';
import type { OrganizationScope } from './organization-scope';
import { listInstanceBlockedVersions } from '@/server/repositories/instance-blocked-version-repository';
import { countClustersByVersion, listBlockedVersions, listVersionSoakOf } from '@/server/repositories/version-repository';

export interface VersionHistoryRow {
  version: string;
  runningCount: number;
  firstSeenAt: string | null;
  /** workload -> soak */
  workloads: Record<string, { soakDays: number; reportingCount: number; reporting: string[] }>;
  blockedBy: { pattern: string; reason: string; instanceWide: boolean }[];
}

const MAX_REPORTING_NAMES = 20;

function byVersionDesc(a: string, b: string): number {
  if (isSemver(a) && isSemver(b)) return compareVersions(b, a);
  return b.localeCompare(a);
}

export function createVersionService(db: Db, scope: OrganizationScope) {
  return {
    async history() {
      const org = await scope();
      if (!org) return { workloads: [], versions: [] as VersionHistoryRow[], blocked: [] };
      // the instance's blocked versions block here too (named instance-wide), then the organization's own
      const blocked = [
        ...(await listInstanceBlockedVersions(db)).map((b) => ({ ...b, instanceWide: true })),
        ...(await listBlockedVersions(db, org.id)).map((b) => ({ ...b, instanceWide: false })),
      ];
      const rows = new Map<string, VersionHistoryRow>();
      const row = (version: string) => {
        let r = rows.get(version);
        if (!r) {
          r = { version, runningCount: 0, firstSeenAt: null, workloads: {}, blockedBy: [] };
          rows.set(version, r);
        }
        return r;
      };
      const workloads = new Set<string>();
      for (const s of await listVersionSoakOf(db, org.id)) {
        const r = row(s.version);
        workloads.add(s.workload);
        r.workloads[s.workload] = {
          soakDays: s.soakDays,
          reportingCount: s.reporting.length,
          reporting: s.reporting.slice(0, MAX_REPORTING_NAMES),
        };
        const first = s.firstSeenAt.toISOString();
        if (!r.firstSeenAt || first < r.firstSeenAt) r.firstSeenAt = first;
      }
      for (const { version, count } of await countClustersByVersion(db, org.id)) row(version).runningCount = count;
      for (const r of rows.values()) {
        r.blockedBy = blocked
          .filter((b) => patternMatches(b.pattern, r.version))
          .map((b) => ({ pattern: b.pattern, reason: b.reason, instanceWide: b.instanceWide }));
      }
      const versions = [...rows.values()].sort((a, b) => byVersionDesc(a.version, b.version));
      return {
        workloads: [...workloads].sort(),
        versions,
        blocked: blocked.map((b) => ({
          pattern: b.pattern,
          reason: b.reason,
          instanceWide: b.instanceWide,
          createdBy: b.createdBy,
          createdAt: b.createdAt.toISOString(),
          matches: versions.filter((v) => v.blockedBy.some((x) => x.pattern === b.pattern)).map((v) => v.version),
        })),
      };
    },
  };
}

export type VersionService = ReturnType<typeof createVersionService>;
