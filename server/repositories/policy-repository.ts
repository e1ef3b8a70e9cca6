// Stored policies: the organization's settings (allow-lists, freeze, revision), its sectors and
// blocked versions, each cluster's policy (with its cluster_workloads rows) and the policy
// revision history. Functions take the database or a transaction, so a service can make a whole
// edit one transaction.
import type { Db } from '@/db/open-database';
import { and, asc, count, desc, eq, gte, lte, type SQL } from 'drizzle-orm';
import type { blockedVersions, policyRevisions, sectors } from '@/db/schema';
import { affectedRows, tablesOf, type Tables } from './dialect';
import { connectionHeld, connectionReleased, readTogether, withTransaction } from './transaction';

export type SectorRow = typeof sectors.$inferSelect;
export type BlockedVersionRow = typeof blockedVersions.$inferSelect;
export type PolicyRevisionRow = typeof policyRevisions.$inferSelect;

export async function listSectors(db: Db, organizationId: number): Promise<SectorRow[]> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { sectors } = tablesOf(db);
  return await db.select().from(sectors).where(eq(sectors.organizationId, organizationId)).orderBy(asc(sectors.position), asc(sectors.id));
}

export async function listBlockedVersions(db: Db, organizationId: number): Promise<BlockedVersionRow[]> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { blockedVersions } = tablesOf(db);
  return await db.select().from(blockedVersions).where(eq(blockedVersions.organizationId, organizationId)).orderBy(asc(blockedVersions.id));
}

export interface OrganizationFields {
  name?: string;
  allowedWorkloads?: string[] | null;
  allowedMutexes?: string[] | null;
  targetVersion?: string | null;
  maxVersion?: string | null;
  frozen?: boolean;
  frozenReason?: string | null;
}

/**
 * Writes organization fields and moves the revision from `expectedRevision` to the next one.
 * Returns false (and writes nothing) when the stored revision is no longer `expectedRevision`.
 */
export async function updateOrganizationRow(
  db: Db,
  organizationId: number,
  expectedRevision: number,
  fields: OrganizationFields,
  at: Date,
): Promise<boolean> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { organizations } = tablesOf(db);
  const result = await db
    .update(organizations)
    .set({ ...fields, revision: expectedRevision + 1, updatedAt: at })
    .where(and(eq(organizations.id, organizationId), eq(organizations.revision, expectedRevision)));
  return affectedRows(result) === 1;
}

export interface SectorInput {
  name: string;
  maxParallelUpgrades: string | null;
  /** `?? null` on write: sectors snapshotted before these settings existed lack them */
  maxConcurrentUpgrades?: string | null;
  targetVersion?: string | null;
  maxVersion?: string | null;
  /** approval gates as the settings carry them ({before, after}, validated); null = none */
  approval?: Record<string, unknown> | null;
  notBefore?: string | null;
  /** canaries as the settings carry them ({count | percent, soakHours}, validated); null = none */
  canary?: Record<string, unknown> | null;
  selector?: string | null;
  dependencies: string[];
}

/** Replaces the sectors, keeping the given order. */
export async function replaceSectors(db: Db, organizationId: number, list: readonly SectorInput[]): Promise<void> {
  return withTransaction(db, async () => {
    const { sectors } = tablesOf(db);
    await db.delete(sectors).where(eq(sectors.organizationId, organizationId));
    if (list.length === 0) return;
    await db.insert(sectors).values(
      list.map((s, position) => ({
        organizationId,
        name: s.name,
        position,
        maxParallelUpgrades: s.maxParallelUpgrades,
        maxConcurrentUpgrades: s.maxConcurrentUpgrades ?? null,
        targetVersion: s.targetVersion ?? null,
        maxVersion: s.maxVersion ?? null,
        approvalBefore: s.approval?.before === true,
        approvalAfter: s.approval?.after === true,
        notBefore: s.notBefore ?? null,
        canary: s.canary ?? null,
        selector: s.selector ?? null,
        dependencies: [...s.dependencies],
      })),
    );
  });
}

export interface BlockedVersionInput {
  pattern: string;
  reason: string;
}

/**
 * Makes the blocked versions exactly `list`: patterns already stored keep who added them and
 * when (their reason is updated); new ones are recorded as added by `actor` at `at`.
 */
export async function replaceBlockedVersions(
  db: Db,
  organizationId: number,
  list: readonly BlockedVersionInput[],
  actor: string,
  at: Date,
): Promise<void> {
  return withTransaction(db, async () => {
    const { blockedVersions } = tablesOf(db);
    const existing = new Map((await listBlockedVersions(db, organizationId)).map((b) => [b.pattern, b]));
    const wanted = new Set(list.map((b) => b.pattern));
    for (const [pattern, row] of existing) if (!wanted.has(pattern)) await db.delete(blockedVersions).where(eq(blockedVersions.id, row.id));
    for (const b of list) {
      const row = existing.get(b.pattern);
      if (row) {
        if (row.reason !== b.reason) await db.update(blockedVersions).set({ reason: b.reason }).where(eq(blockedVersions.id, row.id));
      } else {
        await db.insert(blockedVersions).values({ organizationId, pattern: b.pattern, reason: b.reason, createdBy: actor, createdAt: at });
      }
    }
  });
}

export interface ClusterPolicyRow {
  id: number;
  name: string;
  position: number;
  version: string;
  upgradePolicy: Record<string, unknown> | null;
  sector: string | null;
  policyRevision: number;
}

/** of the handle's own table: the policy's JSON maps per database */
const clusterPolicyColumns = ({ clusters }: Tables) => ({
  id: clusters.id,
  name: clusters.name,
  position: clusters.position,
  version: clusters.version,
  upgradePolicy: clusters.upgradePolicy,
  sector: clusters.sector,
  policyRevision: clusters.policyRevision,
});

/** Every cluster of the organization in file order, with its policy (null = not managed). */
export async function listClusterPolicies(db: Db, organizationId: number): Promise<ClusterPolicyRow[]> {
  while (connectionHeld(db)) await connectionReleased(db);
  const tables = tablesOf(db);
  const { clusters } = tables;
  return await db
    .select(clusterPolicyColumns(tables))
    .from(clusters)
    .where(eq(clusters.organizationId, organizationId))
    .orderBy(asc(clusters.position), asc(clusters.id));
}

export async function findClusterPolicy(db: Db, organizationId: number, name: string): Promise<ClusterPolicyRow | undefined> {
  while (connectionHeld(db)) await connectionReleased(db);
  const tables = tablesOf(db);
  const { clusters } = tables;
  return (
    await db
      .select(clusterPolicyColumns(tables))
      .from(clusters)
      .where(and(eq(clusters.organizationId, organizationId), eq(clusters.name, name)))
      .limit(1)
  )[0];
}

/**
 * Stores a cluster's policy (document form), its sector column and cluster_workloads rows, and
 * moves its policy revision from `expectedRevision` on. False when the revision moved meanwhile.
 */
export async function setClusterPolicy(
  db: Db,
  clusterId: number,
  expectedRevision: number,
  policy: Record<string, unknown> | null,
): Promise<boolean> {
  return withTransaction(db, async () => {
    const { clusterWorkloads, clusters } = tablesOf(db);
    const conditions = policy?.conditions as { sector?: unknown } | undefined;
    const sector = typeof conditions?.sector === 'string' ? conditions.sector : null;
    const result = await db
      .update(clusters)
      .set({ upgradePolicy: policy, sector, policyRevision: expectedRevision + 1 })
      .where(and(eq(clusters.id, clusterId), eq(clusters.policyRevision, expectedRevision)));
    if (affectedRows(result) !== 1) return false;
    await db.delete(clusterWorkloads).where(eq(clusterWorkloads.clusterId, clusterId));
    const workloads = Array.isArray(policy?.workloads)
      ? [...new Set(policy.workloads.filter((w): w is string => typeof w === 'string'))]
      : [];
    for (const workload of workloads) await db.insert(clusterWorkloads).values({ clusterId, workload });
    return true;
  });
}

export interface PolicyRevisionInput {
  organizationId: number;
  scope: 'organization' | 'cluster';
  subject: string;
  revision: number;
  actor: string;
  at: Date;
  summary: string;
  before: unknown;
  after: unknown;
}

export async function insertPolicyRevision(db: Db, row: PolicyRevisionInput): Promise<number> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { policyRevisions } = tablesOf(db);
  return (await db.insert(policyRevisions).values(row).returning({ id: policyRevisions.id }))[0]!.id;
}

export async function findPolicyRevision(db: Db, organizationId: number, id: number): Promise<PolicyRevisionRow | undefined> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { policyRevisions } = tablesOf(db);
  return (
    await db
      .select()
      .from(policyRevisions)
      .where(and(eq(policyRevisions.organizationId, organizationId), eq(policyRevisions.id, id)))
      .limit(1)
  )[0];
}

/**
 * Policy revisions, newest first: of one organization (every organization's when left out), of
 * one scope and subject, within `from`–`to` (inclusive). The policy history and the Activity page
 * both read them here.
 */
export async function listPolicyRevisions(
  db: Db,
  opts: {
    organizationId?: number;
    scope?: 'organization' | 'cluster';
    subject?: string;
    from?: Date;
    to?: Date;
    offset: number;
    limit: number;
  },
): Promise<{ rows: PolicyRevisionRow[]; total: number }> {
  return readTogether(db, async () => {
    const { policyRevisions } = tablesOf(db);
    const parts: SQL[] = [];
    if (opts.organizationId !== undefined) parts.push(eq(policyRevisions.organizationId, opts.organizationId));
    if (opts.scope) parts.push(eq(policyRevisions.scope, opts.scope));
    if (opts.subject) parts.push(eq(policyRevisions.subject, opts.subject));
    if (opts.from) parts.push(gte(policyRevisions.at, opts.from));
    if (opts.to) parts.push(lte(policyRevisions.at, opts.to));
    const where = parts.length > 0 ? and(...parts) : undefined;
    const rows = await db
      .select()
      .from(policyRevisions)
      .where(where)
      .orderBy(desc(policyRevisions.at), desc(policyRevisions.id))
      .limit(opts.limit)
      .offset(opts.offset);
    const total = (await db.select({ n: count() }).from(policyRevisions).where(where).limit(1))[0]!.n;
    return { rows, total };
  });
}

/**
 * Keys of the organization file we do not model (top-level, per sector, per listed cluster),
 * kept so an import followed by an export gives the file back. Stored in `settings`.
 */
export interface OrganizationFileExtras {
  file?: Record<string, unknown>;
  sectors?: Record<string, Record<string, unknown>>;
  clusters?: Record<string, Record<string, unknown>>;
}

const extrasKey = (organizationId: number) => `policy-files.extras.${organizationId}`;

export async function getOrganizationFileExtras(db: Db, organizationId: number): Promise<OrganizationFileExtras> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { settings } = tablesOf(db);
  const row = (
    await db
      .select({ value: settings.value })
      .from(settings)
      .where(eq(settings.key, extrasKey(organizationId)))
      .limit(1)
  )[0];
  return (row?.value as OrganizationFileExtras | undefined) ?? {};
}

export async function setOrganizationFileExtras(db: Db, organizationId: number, extras: OrganizationFileExtras, at: Date): Promise<void> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { settings } = tablesOf(db);
  await db
    .insert(settings)
    .values({ key: extrasKey(organizationId), value: extras, updatedAt: at })
    .onConflictDoUpdate({ target: settings.key, set: { value: extras, updatedAt: at } });
}
