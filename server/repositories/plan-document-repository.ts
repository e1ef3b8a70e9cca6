// Reads the stored organization, clusters and soak into the decision engine's input document
// (the shape of contracts/plan.md), so the engine runs on exactly what is stored.
import { listInstanceBlockedPatterns } from './instance-blocked-version-repository';
import { and, asc, eq, gt, isNull, ne } from 'drizzle-orm';
import type { Db } from '@/db/open-database';
import { formatInstant, formatInstantToSecond } from '@/server/domain/plan/time';
import type { PlanOrganizationDocument } from '@/server/domain/policy-files/organization-snapshot';
import { approvalSettingOf } from '@/server/domain/policy-files/organization-snapshot';
import type { Approval } from '@/server/domain/plan/sector-gates';
import { listUpgradeResults } from './lifecycle-repository';
import { effectiveLabels, selectableLabels } from '@/server/domain/labels/effective-labels';
import { inhibitingFacts, type ClusterInhibitorFacts } from '@/server/domain/lifecycle/inhibitors';
import type { PendingGate } from '@/server/domain/lifecycle/gates';
import { tablesOf, type Tables } from './dialect';
import { connectionHeld, connectionReleased, readTogether } from './transaction';

/**
 * Only the columns the engine reads of a cluster: on a 10k fleet the rest (messages, regions,
 * timestamps) costs the scheduler tick more than the engine itself.
 */
function planClusterColumnsOf(clusters: Tables['clusters']) {
  return {
    name: clusters.name,
    version: clusters.version,
    channel: clusters.channel,
    availableUpgrades: clusters.availableUpgrades,
    healthy: clusters.healthy,
    upgradePolicy: clusters.upgradePolicy,
    currentUpgrade: clusters.currentUpgrade,
    labels: clusters.labels,
    fleetplanLabels: clusters.fleetplanLabels,
  };
}

export interface PlanDocument {
  now: string;
  organization: PlanOrganizationDocument;
  clusters: {
    name: string;
    version: string;
    channel: string;
    availableUpgrades: string[];
    healthy: boolean;
    upgradePolicy?: Record<string, unknown>;
    currentUpgrade?: { version: string; nextRun: string; state: 'scheduled' | 'started' };
    /** the effective labels (provider's overlaid by fleetplan's) a selector can name; absent when none */
    labels?: Record<string, string>;
  }[];
  versionData: { checkIn?: string; versions: Record<string, { workloads: Record<string, { soakDays: number; reporting: string[] }> }> };
  /** the approvals given and not revoked, for the sectors that exist (absent when there are none) */
  approvals?: Approval[];
  /** the canary sectors' completed upgrades and unacknowledged failures (absent without canaries) */
  upgradeResults?: { cluster: string; version: string; outcome: 'completed' | 'failed'; at: string; attempt?: number }[];
}

/** The instance's blocked versions as the engine input's field (absent when there are none, as in a plan file without them). */
async function instanceBlockedOf(db: Db): Promise<{ instanceBlockedVersions?: string[] }> {
  const patterns = await listInstanceBlockedPatterns(db);
  return patterns.length > 0 ? { instanceBlockedVersions: patterns } : {};
}

/**
 * The stored fleet as the engine's input at `now`. Clusters the provider no longer reports
 * (`gone`) are left out, unless `includeGone`: a policy change is validated against every cluster
 * that has a policy, so one that comes back is still a valid plan.
 */
export async function loadPlanDocument(
  db: Db,
  organizationId: number,
  now: Date,
  opts: { includeGone?: boolean } = {},
): Promise<PlanDocument> {
  return readTogether(db, async () => {
    const { blockedVersions, clusters, organizations, sectors } = tablesOf(db);
    const org = (await db.select().from(organizations).where(eq(organizations.id, organizationId)).limit(1))[0];
    if (!org) throw new Error(`organization ${organizationId} does not exist`);
    const sectorRows = await db
      .select()
      .from(sectors)
      .where(eq(sectors.organizationId, organizationId))
      .orderBy(asc(sectors.position), asc(sectors.id));
    const blocked = await db
      .select({ pattern: blockedVersions.pattern })
      .from(blockedVersions)
      .where(eq(blockedVersions.organizationId, organizationId))
      .orderBy(asc(blockedVersions.id));
    const clusterRows = await db
      .select(planClusterColumnsOf(clusters))
      .from(clusters)
      // a cluster the provider no longer reports is not planned for
      .where(
        opts.includeGone
          ? eq(clusters.organizationId, organizationId)
          : and(eq(clusters.organizationId, organizationId), ne(clusters.upgradeState, 'gone')),
      )
      .orderBy(asc(clusters.position), asc(clusters.id));
    return {
      now: formatInstantToSecond(now),
      organization: {
        name: org.name,
        blockedVersions: blocked.map((b) => b.pattern),
        ...(await instanceBlockedOf(db)),
        ...(org.allowedWorkloads ? { upgradePolicyAllowedWorkloads: org.allowedWorkloads } : {}),
        ...(org.allowedMutexes ? { upgradePolicyAllowedMutexes: org.allowedMutexes } : {}),
        ...(org.targetVersion ? { targetVersion: org.targetVersion } : {}),
        ...(org.maxVersion ? { maxVersion: org.maxVersion } : {}),
        sectors: sectorRows.map((s) => ({
          name: s.name,
          ...(s.maxParallelUpgrades ? { maxParallelUpgrades: s.maxParallelUpgrades } : {}),
          ...(s.maxConcurrentUpgrades ? { maxConcurrentUpgrades: s.maxConcurrentUpgrades } : {}),
          ...(s.targetVersion ? { targetVersion: s.targetVersion } : {}),
          ...(s.maxVersion ? { maxVersion: s.maxVersion } : {}),
          ...(s.approvalBefore || s.approvalAfter ? { approval: approvalSettingOf(s.approvalBefore, s.approvalAfter)! } : {}),
          ...(s.notBefore ? { notBefore: s.notBefore } : {}),
          ...(s.canary ? { canary: s.canary } : {}),
          ...(s.selector ? { selector: s.selector } : {}),
          dependencies: s.dependencies.map((name) => ({ name })),
        })),
      },
      clusters: clusterRows.map(planClusterOf),
      versionData: await loadVersionData(db, organizationId, now, org.soakCheckIn),
      ...(await approvalsOf(db, organizationId, new Set(sectorRows.map((s) => s.name)))),
      ...(await upgradeResultsOf(
        db,
        organizationId,
        sectorRows.filter((s) => s.canary).map((s) => s.name),
      )),
    };
  });
}

type PlanClusterRow = Pick<
  Tables['clusters']['$inferSelect'],
  'name' | 'version' | 'channel' | 'availableUpgrades' | 'healthy' | 'upgradePolicy' | 'currentUpgrade' | 'labels' | 'fleetplanLabels'
>;

/** A stored cluster as the document's cluster: one rule for the whole fleet's load and a few rows'. */
function planClusterOf(c: PlanClusterRow): PlanDocument['clusters'][number] {
  const labels = selectableLabels(effectiveLabels(c.labels, c.fleetplanLabels));
  return {
    name: c.name,
    version: c.version,
    channel: c.channel,
    availableUpgrades: c.availableUpgrades,
    healthy: c.healthy,
    ...(c.upgradePolicy ? { upgradePolicy: c.upgradePolicy } : {}),
    ...(c.currentUpgrade
      ? { currentUpgrade: { version: c.currentUpgrade.version, nextRun: c.currentUpgrade.nextRun, state: c.currentUpgrade.state } }
      : {}),
    ...(Object.keys(labels).length > 0 ? { labels } : {}),
  };
}

/** A cluster whose planned columns changed: as the document carries it, whether it is gone, and what the gates read of it (gate-state-repository.ts). */
export interface ChangedPlanCluster {
  cluster: PlanDocument['clusters'][number];
  gone: boolean;
  healthIssues: string[];
  pendingVersionGates: PendingGate[];
  /** the operators and removed APIs that can hold an upgrade (null: none, or not reported) */
  inhibitors: ClusterInhibitorFacts | null;
}

/**
 * The organization's clusters whose planned columns changed after the 'cluster_rows' revision
 * `sinceRevision` (clusters.changed_at_revision, migration 0022), gone ones included (the caller
 * decides what a cluster leaving or coming back means), in the plan's order.
 */
export async function loadChangedPlanClusters(db: Db, organizationId: number, sinceRevision: number): Promise<ChangedPlanCluster[]> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { clusters } = tablesOf(db);
  const rows = await db
    .select({
      ...planClusterColumnsOf(clusters),
      upgradeState: clusters.upgradeState,
      healthIssues: clusters.healthIssues,
      pendingVersionGates: clusters.pendingVersionGates,
      inhibitors: clusters.inhibitors,
    })
    .from(clusters)
    .where(and(eq(clusters.organizationId, organizationId), gt(clusters.changedAtRevision, sinceRevision)))
    .orderBy(asc(clusters.position), asc(clusters.id));
  return rows.map((row) => ({
    cluster: planClusterOf(row),
    gone: row.upgradeState === 'gone',
    healthIssues: row.healthIssues,
    pendingVersionGates: row.pendingVersionGates,
    inhibitors: row.inhibitors ? inhibitingFacts(row.inhibitors) : null,
  }));
}

/** The canary rule's input for the sectors with canaries, as the document carries it (absent without any). */
async function upgradeResultsOf(
  db: Db,
  organizationId: number,
  canarySectors: readonly string[],
): Promise<Pick<PlanDocument, 'upgradeResults'>> {
  if (canarySectors.length === 0) return {};
  const results = await listUpgradeResults(db, organizationId, canarySectors);
  return { upgradeResults: results.map((r) => ({ ...r, at: formatInstant(r.at) })) };
}

/** The unrevoked approvals of sectors that exist (an approval outlives a renamed or removed sector, unused). */
async function approvalsOf(db: Db, organizationId: number, sectorNames: ReadonlySet<string>): Promise<{ approvals?: Approval[] }> {
  const { approvals } = tablesOf(db);
  const rows = (
    await db
      .select({ sector: approvals.sector, version: approvals.version, kind: approvals.kind })
      .from(approvals)
      .where(and(eq(approvals.organizationId, organizationId), isNull(approvals.revokedAt)))
      .orderBy(asc(approvals.id))
  ).filter((a) => sectorNames.has(a.sector));
  return rows.length > 0 ? { approvals: rows } : {};
}

/**
 * The accumulated soak as the plan document carries it (`versionData`): the check-in only once
 * `now` has passed it. `soakCheckIn` when the caller read the organization already.
 */
export async function loadVersionData(
  db: Db,
  organizationId: number,
  now: Date,
  soakCheckIn?: Date | null,
): Promise<PlanDocument['versionData']> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { organizations, versionSoak } = tablesOf(db);
  const { storedCheckIn, soakRows } = await readTogether(db, async () => ({
    storedCheckIn:
      soakCheckIn !== undefined
        ? soakCheckIn
        : ((
            await db
              .select({ soakCheckIn: organizations.soakCheckIn })
              .from(organizations)
              .where(eq(organizations.id, organizationId))
              .limit(1)
          )[0]?.soakCheckIn ?? null),
    soakRows: await db
      .select({
        version: versionSoak.version,
        workload: versionSoak.workload,
        soakDays: versionSoak.soakDays,
        reporting: versionSoak.reporting,
      })
      .from(versionSoak)
      .where(eq(versionSoak.organizationId, organizationId))
      // the primary key's order, which SQLite's lookup gives by itself: the same document on both databases
      .orderBy(asc(versionSoak.version), asc(versionSoak.workload)),
  }));
  const versions: PlanDocument['versionData']['versions'] = {};
  for (const s of soakRows) {
    const v = (versions[s.version] ??= { workloads: {} });
    v.workloads[s.workload] = { soakDays: s.soakDays, reporting: s.reporting };
  }
  const checkIn = storedCheckIn && storedCheckIn.getTime() <= now.getTime() ? formatInstantToSecond(storedCheckIn) : undefined;
  return { ...(checkIn ? { checkIn } : {}), versions };
}
