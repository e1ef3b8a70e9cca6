// Sectors overview: per sector and workload the version spread, what soaks and what holds the
// next sector back, from SQL aggregates (the fleet's size does not reach the browser).
import type { Db } from '@/db/open-database';
import { computeSectorDepths } from '@/server/domain/sectors/sector-depths';
import { findBlockingPattern } from '@/server/domain/plan/blocked-versions';
import { compareVersions } from '@/server/domain/version/version';
import { findOrganization } from '@/server/repositories/organization-repository';
import * as repo from '@/server/repositories/sector-repository';

export interface SectorWorkloadSummary {
  workload: string;
  clusters: number;
  minVersion: string;
  maxVersion: string;
  /** clusters per current version, oldest first */
  versions: { version: string; clusters: number }[];
  /** newest unblocked version offered to the sector's clusters running the workload */
  nextVersion: string | null;
  /** nextVersion's accumulated soak against the sector's highest threshold, while short of it */
  soaking: { version: string; soakDays: number; requiredDays: number } | null;
  /** the dependency sector whose clusters still run an older version than nextVersion */
  waitsFor: { sector: string; version: string; target: string } | null;
}

export interface SectorSummary {
  name: string;
  dependencies: string[];
  maxParallelUpgrades: string | null;
  /** longest dependency chain above it (0 = no dependencies): the layout's column */
  depth: number;
  clusters: number;
  healthy: number;
  upgrading: number;
  soakThresholds: { soakDays: number | null; clusters: number }[];
  decisions: { action: string | null; reason: string | null; clusters: number }[];
  workloads: SectorWorkloadSummary[];
  /** people-readable blockers, e.g. "prod-blue waits: stage still runs 4.13.39 for workload ocm" */
  waits: string[];
}

export interface SectorsOverview {
  organization: { name: string; revision: number; frozen: boolean } | null;
  sectors: SectorSummary[];
}

export function createSectorService(db: Db) {
  return {
    overview(): SectorsOverview {
      const org = findOrganization(db);
      if (!org) return { organization: null, sectors: [] };
      const rows = repo.listSectorRows(db, org.id);
      const blocked = repo.listBlockedPatterns(db, org.id);
      const counts = repo.countBySectorWorkloadVersion(db, org.id);
      const offers = repo.countOffersBySectorWorkload(db, org.id);
      const thresholds = repo.countSoakThresholdsBySector(db, org.id);
      const decisions = repo.countDecisionsBySector(db, org.id);
      const soak = new Map(repo.listSoakDays(db, org.id).map((s) => [`${s.version}|${s.workload}`, s.soakDays]));
      const depths = computeSectorDepths(rows);
      const totalsBySector = new Map(repo.countBySector(db, org.id).map((t) => [t.sector, t]));

      // sector → workload → version → counts
      const spread = new Map<string, Map<string, Map<string, repo.SectorVersionCount>>>();
      for (const c of counts) {
        const bySector = spread.get(c.sector) ?? spread.set(c.sector, new Map()).get(c.sector)!;
        const byWorkload = bySector.get(c.workload) ?? bySector.set(c.workload, new Map()).get(c.workload)!;
        byWorkload.set(c.version, c);
      }
      const minOf = (sector: string, workload: string): string | null => {
        const versions = [...(spread.get(sector)?.get(workload)?.keys() ?? [])];
        return versions.length ? versions.reduce((a, b) => (compareVersions(a, b) <= 0 ? a : b)) : null;
      };
      const nextOf = new Map<string, string>();
      for (const o of offers) {
        if (findBlockingPattern(o.version, blocked) !== undefined) continue;
        const key = `${o.sector}|${o.workload}`;
        const cur = nextOf.get(key);
        if (!cur || compareVersions(o.version, cur) > 0) nextOf.set(key, o.version);
      }
      const byName = new Map(rows.map((r) => [r.name, r]));
      /** nearest dependency sectors hosting the workload (looked through otherwise), as the engine does */
      const requiredMin = (sector: string, workload: string): { sector: string; version: string } | null => {
        let best: { sector: string; version: string } | null = null;
        const seen = new Set<string>();
        const visit = (name: string) => {
          for (const dep of byName.get(name)?.dependencies ?? []) {
            if (seen.has(dep)) continue;
            seen.add(dep);
            const min = minOf(dep, workload);
            if (min) {
              if (!best || compareVersions(min, best.version) < 0) best = { sector: dep, version: min };
            } else visit(dep);
          }
        };
        visit(sector);
        return best;
      };

      const sectors = rows.map((row): SectorSummary => {
        const sectorThresholds = thresholds
          .filter((t) => t.sector === row.name)
          .map((t) => ({ soakDays: t.soakDays, clusters: t.clusters }));
        const required = sectorThresholds.reduce<number | null>((m, t) => (t.soakDays === null ? m : Math.max(m ?? 0, t.soakDays)), null);
        const workloads = [...(spread.get(row.name)?.entries() ?? [])]
          .map(([workload, versions]): SectorWorkloadSummary => {
            const list = [...versions.values()].sort((a, b) => compareVersions(a.version, b.version));
            const nextVersion = nextOf.get(`${row.name}|${workload}`) ?? null;
            const soaked = nextVersion ? (soak.get(`${nextVersion}|${workload}`) ?? 0) : 0;
            const req = requiredMin(row.name, workload);
            return {
              workload,
              clusters: list.reduce((n, v) => n + v.clusters, 0),
              minVersion: list[0]!.version,
              maxVersion: list[list.length - 1]!.version,
              versions: list.map((v) => ({ version: v.version, clusters: v.clusters })),
              nextVersion,
              soaking:
                nextVersion && required !== null && soaked < required
                  ? { version: nextVersion, soakDays: soaked, requiredDays: required }
                  : null,
              waitsFor:
                nextVersion && req && compareVersions(req.version, nextVersion) < 0
                  ? { sector: req.sector, version: req.version, target: nextVersion }
                  : null,
            };
          })
          .sort((a, b) => a.workload.localeCompare(b.workload));
        const total = totalsBySector.get(row.name);
        return {
          name: row.name,
          dependencies: row.dependencies,
          maxParallelUpgrades: row.maxParallelUpgrades,
          depth: depths.get(row.name) ?? 0,
          clusters: total?.clusters ?? 0,
          healthy: total?.healthy ?? 0,
          upgrading: total?.upgrading ?? 0,
          soakThresholds: sectorThresholds.sort((a, b) => (a.soakDays ?? -1) - (b.soakDays ?? -1)),
          decisions: decisions
            .filter((d) => d.sector === row.name)
            .map((d) => ({ action: d.action, reason: d.reason, clusters: d.clusters }))
            .sort((a, b) => b.clusters - a.clusters),
          workloads,
          waits: workloads
            .filter((w) => w.waitsFor)
            .map((w) => `${row.name} waits: ${w.waitsFor!.sector} still runs ${w.waitsFor!.version} for workload ${w.workload}`),
        };
      });
      return { organization: { name: org.name, revision: org.revision, frozen: org.frozen }, sectors };
    },
  };
}

export type SectorService = ReturnType<typeof createSectorService>;
