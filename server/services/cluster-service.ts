// Use cases around clusters: the fleet list, one cluster, the fleet's version distribution.
import type { ClusterInhibitorFacts } from '@/server/domain/lifecycle/inhibitors';
import { compareVersions } from '@/server/domain/version/version';
import type { Db } from '@/db/open-database';
import * as clustersRepo from '@/server/repositories/cluster-repository';
import { readSnapshotObservedAt } from '@/server/repositories/decision-repository';
import type { FleetVersionView } from '@/server/domain/evaluation/evaluate-fleet';
import type { OrganizationScope } from './organization-scope';
import { evaluateStoredFleet } from './stored-fleet-evaluation';
import { AppError } from './app-error';
import { effectiveLabels } from '@/server/domain/labels/effective-labels';
import { clustersMatching, requireSelector } from './label-service';

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
  /** the labels selectors see: the provider's overlaid by fleetplan's (effective-labels.ts) */
  labels: Record<string, string>;
  /** discovery: the provider's labels (empty until a provider reports them) */
  providerLabels: Record<string, string>;
  /** the labels operators set in fleetplan */
  fleetplanLabels: Record<string, string>;
  /** discovery: the cloud (null until a provider reports it) */
  cloud: string | null;
  /** version gates the cluster has not agreed to (they hold upgrades to their minor) */
  pendingVersionGates: { id: string; minor: string; description: string; documentationUrl: string | null }[];
  /** installed operators and removed-API use as last reported (null: the provider reads neither) */
  inhibitors: ClusterInhibitorFacts | null;
  sector: string | null;
  workloads: string[];
  managed: boolean;
  healthy: boolean;
  healthIssues: string[];
  upgradeState: string;
  currentUpgrade: { version: string; nextRun: string; state: string; progress?: number } | null;
  availableUpgrades: string[];
  soakingUpgrades: SoakingUpgrade[];
  /** why it will never upgrade as configured with the releases available now (null: it may) */
  neverUpgrades: string[] | null;
  decision: { action: string; reason: string | null; message: string | null; version: string | null } | null;
  nextRun: string | null;
  observedAt: string;
}

/** What the engine says of a cluster now, for its row: the versions still soaking, and whether it never upgrades. */
interface EngineLookup {
  soaking(cluster: string): SoakingUpgrade[];
  never(cluster: string): string[] | null;
  /** every cluster that will never upgrade as configured */
  allNever(): string[];
  /** the sector a sector's label selector gave the cluster (its policy naming none), if any */
  selectedSector(cluster: string): string | undefined;
  /** the clusters a sector's label selector put in `sector` */
  selectedInto(sector: string): string[];
  /** the sectors selectors put clusters in */
  selectedSectors(): string[];
}

const NO_ENGINE_VIEW: EngineLookup = {
  soaking: () => [],
  never: () => null,
  allNever: () => [],
  selectedSector: () => undefined,
  selectedInto: () => [],
  selectedSectors: () => [],
};

function engineLookupOf(evaluation: FleetVersionView, selectedSectors: ReadonlyMap<string, string>): EngineLookup {
  return {
    selectedSector: (cluster) => selectedSectors.get(cluster),
    selectedInto: (sector) => [...selectedSectors].filter(([, s]) => s === sector).map(([name]) => name),
    selectedSectors: () => [...new Set(selectedSectors.values())],
    // unblocked candidates short of their soak threshold, highest first (the engine's verdicts)
    soaking: (cluster) =>
      (evaluation.candidateSoak(cluster) ?? []).flatMap(({ version, blockedBy, soak }) =>
        blockedBy === null && soak.requiredDays !== null && soak.soakedDays < soak.requiredDays
          ? [{ version, soakDays: soak.soakedDays, requiredDays: soak.requiredDays }]
          : [],
      ),
    never: (cluster) => evaluation.neverUpgrades(cluster)?.reasons ?? null,
    allNever: () => [...evaluation.allNeverUpgrades().keys()],
  };
}

/**
 * When the provider last reported the cluster: a tick writes only the rows that changed, and
 * records its own instant once (the last snapshot), so a cluster still listed was seen then.
 */
function observedAtOf(row: clustersRepo.ClusterRow, lastSnapshot: Date | null): Date {
  return row.upgradeState !== 'gone' && lastSnapshot && lastSnapshot > row.observedAt ? lastSnapshot : row.observedAt;
}

function toSummary(row: clustersRepo.ClusterRow, engine: EngineLookup, lastSnapshot: Date | null): ClusterSummary {
  const policy = row.upgradePolicy as { workloads?: string[] } | null;
  return {
    name: row.name,
    externalId: row.externalId,
    provider: row.provider,
    version: row.version,
    channel: row.channel,
    region: row.region,
    nodeCount: row.nodeCount,
    labels: effectiveLabels(row.labels, row.fleetplanLabels),
    providerLabels: row.labels,
    fleetplanLabels: row.fleetplanLabels,
    cloud: row.cloud,
    pendingVersionGates: row.pendingVersionGates,
    inhibitors: row.inhibitors,
    // the policy's sector, else the one a sector's selector gave it (what the engine plans with)
    sector: row.sector ?? engine.selectedSector(row.name) ?? null,
    workloads: policy?.workloads ?? [],
    managed: policy !== null,
    healthy: row.healthy,
    healthIssues: row.healthIssues,
    upgradeState: row.upgradeState,
    currentUpgrade: row.currentUpgrade,
    availableUpgrades: row.availableUpgrades,
    soakingUpgrades: engine.soaking(row.name),
    neverUpgrades: engine.never(row.name),
    decision: row.lastDecisionAction
      ? {
          action: row.lastDecisionAction,
          reason: row.lastDecisionReason,
          message: row.lastDecisionMessage,
          version: row.lastDecisionVersion,
        }
      : null,
    nextRun: row.nextRun?.toISOString() ?? null,
    observedAt: observedAtOf(row, lastSnapshot).toISOString(),
  };
}

/** The Fleet filter's `label=key=value` (or `label=key`) as the repository's filter: split at the first '='. */
export function parseLabelFilter(label: string | undefined): clustersRepo.ClusterFilter['label'] {
  if (!label) return undefined;
  const at = label.indexOf('=');
  return at < 0 ? { key: label.trim() } : { key: label.slice(0, at).trim(), value: label.slice(at + 1).trim() };
}

type ListFilter = Omit<clustersRepo.ClusterFilter, 'label'> & { neverUpgrades?: boolean; label?: string; selector?: string };

export function createClusterService(db: Db, now: () => Date, scope: OrganizationScope) {
  /** The Fleet table's soak column and never-upgrades flag: the stored fleet's evaluation (none when it does not validate). */
  async function engineLookup(): Promise<EngineLookup> {
    const org = await scope();
    const stored = org ? await evaluateStoredFleet(db, org, now()) : null;
    if (!stored?.ok) return NO_ENGINE_VIEW;
    const selected = new Map<string, string>();
    for (const c of stored.input.clusters) {
      const conditions = c.upgradePolicy?.conditions;
      if (conditions?.sectorSelector && conditions.sector) selected.set(c.name, conditions.sector);
    }
    return engineLookupOf(stored.view, selected);
  }

  /**
   * The repository's filter for the Fleet's: `neverUpgrades` and `selector` become the names they
   * select (both: the names both select). An invalid selector is refused with the parser's message.
   * `engine`: the caller's lookup when it has one (the evaluation is looked up once per call).
   */
  async function repositoryFilter(organizationId: number, input: ListFilter, engine?: EngineLookup): Promise<clustersRepo.ClusterFilter> {
    const lookup = async () => (engine ??= await engineLookup());
    const { neverUpgrades, label, selector, ...rest } = input;
    let names: string[] | undefined = neverUpgrades ? (await lookup()).allNever() : undefined;
    const narrow = (to: readonly string[]) => {
      const keep = new Set(to);
      names = (names ?? [...keep]).filter((n) => keep.has(n));
    };
    if (selector !== undefined && selector.trim() !== '')
      narrow((await clustersMatching(db, organizationId, requireSelector(selector))).names);
    let sector = rest.sector;
    // a sector's members include those its selector took (the stored column holds the policy's sector only)
    const selectedInto = sector ? (await lookup()).selectedInto(sector) : [];
    if (sector && selectedInto.length > 0) {
      narrow([...(await clustersRepo.listClusterNamesInSector(db, organizationId, sector)), ...selectedInto]);
      sector = undefined;
    }
    return { ...rest, sector, label: parseLabelFilter(label), organizationId, ...(names ? { names } : {}) };
  }

  return {
    async list(input: {
      /** `neverUpgrades`: only the clusters that will never upgrade as configured (the engine's verdict); `label`: key=value */
      filter: ListFilter;
      sort: clustersRepo.ClusterSortKey;
      direction: 'asc' | 'desc';
      offset: number;
      limit: number;
    }) {
      const org = await scope();
      if (!org) return { items: [], total: 0, offset: input.offset, limit: input.limit };
      const engine = await engineLookup();
      const { rows, total } = await clustersRepo.listClusters(db, {
        ...input,
        filter: await repositoryFilter(org.id, input.filter, engine),
      });
      const lastSnapshot = await readSnapshotObservedAt(db);
      return { items: rows.map((r) => toSummary(r, engine, lastSnapshot)), total, offset: input.offset, limit: input.limit };
    },

    async byName(name: string) {
      const org = await scope();
      const row = org && (await clustersRepo.findClusterByName(db, name, org.id));
      if (!row) throw new AppError('NOT_FOUND', `Cluster ${name} does not exist`);
      const history = (await clustersRepo.listClusterUpgrades(db, row.id)).map((u) => ({
        fromVersion: u.fromVersion,
        toVersion: u.toVersion,
        state: u.state,
        startedAt: u.startedAt?.toISOString() ?? null,
        completedAt: u.completedAt?.toISOString() ?? null,
        message: u.message,
      }));
      return {
        ...toSummary(row, await engineLookup(), await readSnapshotObservedAt(db)),
        upgradePolicy: row.upgradePolicy,
        policyRevision: row.policyRevision,
        history,
      };
    },

    async facets() {
      const org = await scope();
      if (!org) return { sectors: [], workloads: [], states: [], reasons: [], minors: [], regions: [], labels: [], neverUpgrades: 0 };
      const engine = await engineLookup();
      const values = await clustersRepo.distinctValues(db, org.id);
      // sectors whose only members came by selector are choosable too
      const sectors = [...new Set([...values.sectors, ...engine.selectedSectors()])].sort();
      return { ...values, sectors, neverUpgrades: engine.allNever().length };
    },

    /** clusters per version and state, of those the Fleet table's filter selects (the chart above it) */
    async versionDistribution(input: ListFilter = {}) {
      const org = await scope();
      if (!org) return [];
      const byVersion = new Map<string, Record<string, number>>();
      for (const { version, state, count } of await clustersRepo.countByVersion(db, await repositoryFilter(org.id, input))) {
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
