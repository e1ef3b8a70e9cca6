// Sectors overview: per sector and workload the version spread (SQL aggregates, so the fleet's
// size does not reach the browser), and what soaks and what holds the next sector back as the
// engine sees it (evaluateFleet on the stored fleet: its sector membership, blocked, sector and
// soak rules).
import type { Db } from '@/db/open-database';
import { computeSectorDepths } from '@/lib/sector-depths';
import { compareVersions } from '@/server/domain/version/version';
import type { OrganizationScope } from './organization-scope';
import * as repo from '@/server/repositories/sector-repository';
import { evaluateStoredFleet } from './stored-fleet-evaluation';
import type { ManagedCluster } from '@/server/domain/plan/decide-upgrades';
import type { ApprovalKind } from '@/server/domain/plan/sector-gates';
import { sectorCanaries } from '@/server/domain/plan/canaries';
import { sectorMembership } from '@/server/domain/labels/sector-selectors';
import { listApprovals } from '@/server/repositories/approval-repository';

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

/** One version at one of a sector's gates: waiting for an approval, or approved. */
export interface SectorGateVersion {
  kind: ApprovalKind;
  version: string;
  state: 'pending' | 'approved';
  /** clusters (of this sector, or of the sectors after it for an after-gate) ready but for this approval */
  waiting: number;
  approvedBy: string | null;
  approvedAt: string | null;
  reason: string | null;
}

/** A sector's gates (issue 14): null when it has none. */
export interface SectorGates {
  before: boolean;
  after: boolean;
  notBefore: string | null;
  /** pending first, then the approved ones (newest approval first) */
  versions: SectorGateVersion[];
}

export interface SectorSummary {
  name: string;
  dependencies: string[];
  maxParallelUpgrades: string | null;
  /** the label selector that adds managed clusters whose policy names no sector (sector-selectors.ts); null = none */
  selector: string | null;
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
  gates: SectorGates | null;
  /** the sector's canaries (plan/canaries.ts): who goes first, how many as written, the soak; null = none */
  canaries: { canaries: string[]; size: string; soakHours: number; selector: string | null } | null;
}

export interface SectorsOverview {
  organization: { name: string; revision: number; frozen: boolean } | null;
  sectors: SectorSummary[];
}

export function createSectorService(db: Db, now: () => Date, scope: OrganizationScope) {
  return {
    async overview(): Promise<SectorsOverview> {
      const org = await scope();
      if (!org) return { organization: null, sectors: [] };
      const rows = await repo.listSectorRows(db, org.id);
      // The engine's view: the sectors' members (a selector-only sector's clusters name no
      // sector in their policies), and per sector and workload the newest version not blocked
      // for some cluster running it, the version the dependencies still hold it to, and the soak
      // now (none of these when the stored fleet does not validate: then the policies' sectors).
      const stored = await evaluateStoredFleet(db, org, now());
      const evaluation = stored.ok ? stored.view : null;
      const membership = stored.ok ? sectorMembership(stored.input.clusters) : null;
      const counts = await repo.countBySectorWorkloadVersion(db, org.id, membership);
      const thresholds = await repo.countSoakThresholdsBySector(db, org.id, membership);
      const decisions = await repo.countDecisionsBySector(db, org.id, membership);
      const depths = computeSectorDepths(rows);
      const totalsBySector = new Map((await repo.countBySector(db, org.id, membership)).map((t) => [t.sector, t]));

      // sector → workload → version → counts
      const spread = new Map<string, Map<string, Map<string, repo.SectorVersionCount>>>();
      for (const c of counts) {
        const bySector = spread.get(c.sector) ?? spread.set(c.sector, new Map()).get(c.sector)!;
        const byWorkload = bySector.get(c.workload) ?? bySector.set(c.workload, new Map()).get(c.workload)!;
        byWorkload.set(c.version, c);
      }
      const nextOf = new Map<string, string>();
      if (stored.ok) {
        for (const c of stored.input.clusters) {
          const sector = c.upgradePolicy?.conditions.sector;
          const next = sector === undefined ? null : stored.view.newestUnblocked(c.name);
          if (next === null) continue;
          for (const w of c.upgradePolicy!.workloads) {
            const key = `${sector}|${w}`;
            const cur = nextOf.get(key);
            if (!cur || compareVersions(next, cur) > 0) nextOf.set(key, next);
          }
        }
      }
      const gatesOf = await sectorGates(db, org.id, rows, stored);
      const canariesOf: ReturnType<typeof sectorCanaries> = stored.ok ? sectorCanaries(stored.input) : new Map<never, never>();
      const soakOf = (version: string, workload: string) => evaluation?.versionData.versions[version]?.workloads[workload]?.soakDays ?? 0;

      const sectors = rows.map((row): SectorSummary => {
        const sectorThresholds = thresholds
          .filter((t) => t.sector === row.name)
          .map((t) => ({ soakDays: t.soakDays, clusters: t.clusters }));
        const required = sectorThresholds.reduce<number | null>((m, t) => (t.soakDays === null ? m : Math.max(m ?? 0, t.soakDays)), null);
        const workloads = [...(spread.get(row.name)?.entries() ?? [])]
          .map(([workload, versions]): SectorWorkloadSummary => {
            const list = [...versions.values()].sort((a, b) => compareVersions(a.version, b.version));
            const nextVersion = nextOf.get(`${row.name}|${workload}`) ?? null;
            const soaked = nextVersion ? soakOf(nextVersion, workload) : 0;
            const req = evaluation?.sectorFloor(row.name, workload) ?? null;
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
          selector: row.selector,
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
          gates: gatesOf(row),
          canaries: canariesOf.get(row.name) ?? null,
        };
      });
      return { organization: { name: org.name, revision: org.revision, frozen: org.frozen }, sectors };
    },
  };
}

/**
 * Each gated sector's gates with the versions at them: pending where the engine holds a cluster
 * that every other version rule lets through (blocked, bound, sector order, soak), approved where
 * an unrevoked approval exists. Nothing is worked out when no sector has a gate.
 */
async function sectorGates(
  db: Db,
  organizationId: number,
  rows: readonly repo.SectorRow[],
  stored: Awaited<ReturnType<typeof evaluateStoredFleet>>,
): Promise<(row: repo.SectorRow) => SectorGates | null> {
  const gated = rows.filter((r) => r.approvalBefore || r.approvalAfter || r.notBefore);
  if (gated.length === 0) return () => null;
  const waiting = new Map<string, number>();
  const key = (sector: string, kind: ApprovalKind, version: string) => `${sector}\u0000${kind}\u0000${version}`;
  if (stored.ok && gated.some((r) => r.approvalBefore || r.approvalAfter)) {
    for (const c of stored.input.clusters) {
      if (!c.upgradePolicy?.conditions.sector || c.currentUpgrade) continue;
      const held = new Set<string>();
      for (const check of stored.view.versionChecks(c as ManagedCluster)) {
        const w = check.awaits;
        if (!w || check.blockedBy !== undefined || check.exceeds || !check.sector.pass || !check.soak.pass) continue;
        held.add(key(w.sector, w.kind, w.version));
      }
      for (const k of held) waiting.set(k, (waiting.get(k) ?? 0) + 1);
    }
  }
  const approved = await listApprovals(db, organizationId);
  return (row) => {
    if (!row.approvalBefore && !row.approvalAfter && !row.notBefore) return null;
    const versions: SectorGateVersion[] = [];
    for (const [k, n] of waiting) {
      const [sector, kind, version] = k.split('\u0000') as [string, ApprovalKind, string];
      if (sector === row.name)
        versions.push({ kind, version, state: 'pending', waiting: n, approvedBy: null, approvedAt: null, reason: null });
    }
    versions.sort((a, b) => compareVersions(b.version, a.version));
    const mine = approved
      .filter((a) => a.sector === row.name && (a.kind === 'before' ? row.approvalBefore : row.approvalAfter))
      .sort((a, b) => b.approvedAt.getTime() - a.approvedAt.getTime());
    for (const a of mine) {
      versions.push({
        kind: a.kind,
        version: a.version,
        state: 'approved',
        waiting: 0,
        approvedBy: a.approvedBy,
        approvedAt: a.approvedAt.toISOString(),
        reason: a.reason || null,
      });
    }
    return { before: row.approvalBefore, after: row.approvalAfter, notBefore: row.notBefore, versions };
  };
}

export type SectorService = ReturnType<typeof createSectorService>;
