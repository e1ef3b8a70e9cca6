// Use cases around clusters: the fleet list, one cluster, the fleet's version distribution.
import { compareVersions, isSemver } from '@/server/domain/version/version';
import type { Db } from '@/db/open-database';
import * as clustersRepo from '@/server/repositories/cluster-repository';
import { listVersionSoak } from '@/server/repositories/version-repository';
import { AppError } from './app-error';

export interface SoakingUpgrade {
  version: string;
  /** lowest soak over the cluster's workloads */
  soakDays: number;
  requiredDays: number;
}

export interface ClusterSummary {
  name: string;
  externalId: string;
  provider: string;
  version: string;
  channel: string;
  region: string;
  nodeCount: number;
  sector: string | null;
  workloads: string[];
  managed: boolean;
  healthy: boolean;
  healthIssues: string[];
  upgradeState: string;
  currentUpgrade: { version: string; nextRun: string; state: string; progress?: number } | null;
  availableUpgrades: string[];
  soakingUpgrades: SoakingUpgrade[];
  decision: { action: string; reason: string | null; message: string | null; version: string | null } | null;
  nextRun: string | null;
  observedAt: string;
}

type SoakIndex = Map<string, number>;

function soakingUpgradesOf(row: clustersRepo.ClusterRow, soak: SoakIndex): SoakingUpgrade[] {
  const policy = row.upgradePolicy as { workloads?: string[]; conditions?: { soakDays?: number } } | null;
  const required = policy?.conditions?.soakDays;
  if (!policy?.workloads?.length || required === undefined) return [];
  return row.availableUpgrades
    .filter((v) => isSemver(v) && compareVersions(v, row.version) > 0)
    .sort((a, b) => compareVersions(b, a))
    .map((version) => ({
      version,
      soakDays: Math.min(...policy.workloads!.map((w) => soak.get(`${version}|${w}`) ?? 0)),
      requiredDays: required,
    }))
    .filter((s) => s.soakDays < s.requiredDays);
}

function toSummary(row: clustersRepo.ClusterRow, soak: SoakIndex): ClusterSummary {
  const policy = row.upgradePolicy as { workloads?: string[] } | null;
  return {
    name: row.name,
    externalId: row.externalId,
    provider: row.provider,
    version: row.version,
    channel: row.channel,
    region: row.region,
    nodeCount: row.nodeCount,
    sector: row.sector,
    workloads: policy?.workloads ?? [],
    managed: policy !== null,
    healthy: row.healthy,
    healthIssues: row.healthIssues,
    upgradeState: row.upgradeState,
    currentUpgrade: row.currentUpgrade,
    availableUpgrades: row.availableUpgrades,
    soakingUpgrades: soakingUpgradesOf(row, soak),
    decision: row.lastDecisionAction
      ? {
          action: row.lastDecisionAction,
          reason: row.lastDecisionReason,
          message: row.lastDecisionMessage,
          version: row.lastDecisionVersion,
        }
      : null,
    nextRun: row.nextRun?.toISOString() ?? null,
    observedAt: row.observedAt.toISOString(),
  };
}

export function createClusterService(db: Db) {
  function soakIndex(): SoakIndex {
    const index: SoakIndex = new Map();
    for (const s of listVersionSoak(db)) index.set(`${s.version}|${s.workload}`, s.soakDays);
    return index;
  }

  return {
    list(input: {
      filter: clustersRepo.ClusterFilter;
      sort: clustersRepo.ClusterSortKey;
      direction: 'asc' | 'desc';
      offset: number;
      limit: number;
    }) {
      const { rows, total } = clustersRepo.listClusters(db, input);
      const soak = soakIndex();
      return { items: rows.map((r) => toSummary(r, soak)), total, offset: input.offset, limit: input.limit };
    },

    byName(name: string) {
      const row = clustersRepo.findClusterByName(db, name);
      if (!row) throw new AppError('NOT_FOUND', `Cluster ${name} does not exist`);
      const history = clustersRepo.listClusterUpgrades(db, row.id).map((u) => ({
        fromVersion: u.fromVersion,
        toVersion: u.toVersion,
        state: u.state,
        startedAt: u.startedAt?.toISOString() ?? null,
        completedAt: u.completedAt?.toISOString() ?? null,
        message: u.message,
      }));
      return { ...toSummary(row, soakIndex()), upgradePolicy: row.upgradePolicy, policyRevision: row.policyRevision, history };
    },

    facets() {
      return clustersRepo.distinctValues(db);
    },

    versionDistribution() {
      const byVersion = new Map<string, Record<string, number>>();
      for (const { version, state, count } of clustersRepo.countByVersion(db)) {
        const entry = byVersion.get(version) ?? {};
        entry[state] = (entry[state] ?? 0) + count;
        byVersion.set(version, entry);
      }
      return [...byVersion.entries()]
        .sort(([a], [b]) => compareVersions(a, b))
        .map(([version, states]) => ({ version, total: Object.values(states).reduce((a, b) => a + b, 0), ...states }));
    },
  };
}

export type ClusterService = ReturnType<typeof createClusterService>;
