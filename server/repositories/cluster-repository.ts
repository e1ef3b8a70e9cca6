// Cluster queries: server-side filtering, sorting and paging for fleets of any size.
import { and, asc, desc, eq, inArray, like, or, sql, type SQL } from 'drizzle-orm';
import type { Db } from '@/db/open-database';
import { clusters, clusterWorkloads, clusterUpgrades } from '@/db/schema';
import { effectiveLabels } from '@/server/domain/labels/effective-labels';
import { connectionHeld, connectionReleased } from './transaction';

export type ClusterRow = typeof clusters.$inferSelect;

export interface ClusterFilter {
  /** only this organization's clusters (every service that serves a request sets it) */
  organizationId?: number;
  search?: string;
  sector?: string;
  workload?: string;
  state?: string;
  version?: string;
  reason?: string;
  managed?: boolean;
  /** only these clusters (an empty list matches none) */
  names?: readonly string[];
  /** a label (the provider's overlaid by fleetplan's): `key` present (value undefined) or `key` = value */
  label?: { key: string; value?: string };
  region?: string;
}

export const CLUSTER_SORT_KEYS = ['name', 'version', 'sector', 'state', 'channel', 'nextRun', 'region'] as const;
export type ClusterSortKey = (typeof CLUSTER_SORT_KEYS)[number];

function whereOf(filter: ClusterFilter): SQL | undefined {
  const parts: SQL[] = [];
  if (filter.organizationId !== undefined) parts.push(eq(clusters.organizationId, filter.organizationId));
  if (filter.search) {
    const q = `%${filter.search.replace(/[%_\\]/g, (c) => `\\${c}`)}%`;
    parts.push(
      or(
        sql`${clusters.name} like ${q} escape '\\'`,
        sql`${clusters.externalId} like ${q} escape '\\'`,
        sql`${clusters.region} like ${q} escape '\\'`,
      )!,
    );
  }
  if (filter.sector) parts.push(eq(clusters.sector, filter.sector));
  // Filters are free text: a value outside the column's vocabulary simply matches nothing.
  if (filter.state) parts.push(sql`${clusters.upgradeState} = ${filter.state}`);
  if (filter.version) parts.push(like(clusters.version, filter.version.endsWith('.') ? `${filter.version}%` : filter.version));
  if (filter.reason) parts.push(eq(clusters.lastDecisionReason, filter.reason));
  if (filter.region) parts.push(eq(clusters.region, filter.region));
  if (filter.label) {
    // json_each matches the key as it is (dots and slashes of `api.openshift.com/…` keys included);
    // json_patch overlays fleetplan's labels on the provider's (effective-labels.ts)
    const { key, value } = filter.label;
    const effective = sql`json_patch(${clusters.labels}, ${clusters.fleetplanLabels})`;
    parts.push(
      value === undefined
        ? sql`exists (select 1 from json_each(${effective}) where json_each.key = ${key})`
        : sql`exists (select 1 from json_each(${effective}) where json_each.key = ${key} and json_each.value = ${value})`,
    );
  }
  if (filter.names) parts.push(filter.names.length ? inArray(clusters.name, [...filter.names]) : sql`0`);
  if (filter.managed !== undefined)
    parts.push(filter.managed ? sql`${clusters.upgradePolicy} is not null` : sql`${clusters.upgradePolicy} is null`);
  if (filter.workload) {
    parts.push(
      inArray(
        clusters.id,
        sql`(select ${clusterWorkloads.clusterId} from ${clusterWorkloads} where ${clusterWorkloads.workload} = ${filter.workload})`,
      ),
    );
  }
  return parts.length ? and(...parts) : undefined;
}

const SORT_COLUMNS = {
  name: clusters.name,
  version: clusters.version,
  sector: clusters.sector,
  state: clusters.upgradeState,
  channel: clusters.channel,
  nextRun: clusters.nextRun,
  region: clusters.region,
} as const;

export async function listClusters(
  db: Db,
  opts: { filter: ClusterFilter; sort: ClusterSortKey; direction: 'asc' | 'desc'; offset: number; limit: number },
): Promise<{ rows: ClusterRow[]; total: number }> {
  while (connectionHeld(db)) await connectionReleased(db);
  const where = whereOf(opts.filter);
  const column = SORT_COLUMNS[opts.sort];
  const order = opts.direction === 'asc' ? asc(column) : desc(column);
  // versions sort numerically: pad each numeric part so 4.13.9 < 4.13.10
  const versionOrder = sql`printf('%05d.%05d.%05d', cast(substr(${clusters.version}, 1, instr(${clusters.version}, '.') - 1) as integer), cast(substr(${clusters.version}, instr(${clusters.version}, '.') + 1) as integer), cast(substr(substr(${clusters.version}, instr(${clusters.version}, '.') + 1), instr(substr(${clusters.version}, instr(${clusters.version}, '.') + 1), '.') + 1) as integer))`;
  const orderBy =
    opts.sort === 'version'
      ? [opts.direction === 'asc' ? asc(versionOrder) : desc(versionOrder), asc(clusters.name)]
      : [order, asc(clusters.name)];
  const rows = db
    .select()
    .from(clusters)
    .where(where)
    .orderBy(...orderBy)
    .limit(opts.limit)
    .offset(opts.offset)
    .all();
  const total = db
    .select({ n: sql<number>`count(*)` })
    .from(clusters)
    .where(where)
    .get()!.n;
  return { rows, total };
}

export async function countClusters(db: Db, organizationId?: number): Promise<number> {
  while (connectionHeld(db)) await connectionReleased(db);
  return db
    .select({ n: sql<number>`count(*)` })
    .from(clusters)
    .where(organizationId === undefined ? undefined : eq(clusters.organizationId, organizationId))
    .get()!.n;
}

export async function findClusterById(db: Db, id: number): Promise<ClusterRow | undefined> {
  while (connectionHeld(db)) await connectionReleased(db);
  return db.select().from(clusters).where(eq(clusters.id, id)).get();
}

/** The cluster of that name (in that organization, when given: names are unique per organization only). */
export async function findClusterByName(db: Db, name: string, organizationId?: number): Promise<ClusterRow | undefined> {
  while (connectionHeld(db)) await connectionReleased(db);
  return db
    .select()
    .from(clusters)
    .where(
      organizationId === undefined ? eq(clusters.name, name) : and(eq(clusters.name, name), eq(clusters.organizationId, organizationId)),
    )
    .get();
}

/** Clusters per version and upgrade state, of those `filter` selects (the Fleet table's filter). */
export async function countByVersion(db: Db, filter: ClusterFilter = {}): Promise<{ version: string; state: string; count: number }[]> {
  while (connectionHeld(db)) await connectionReleased(db);
  return db
    .select({ version: clusters.version, state: clusters.upgradeState, count: sql<number>`count(*)` })
    .from(clusters)
    .where(whereOf(filter))
    .groupBy(clusters.version, clusters.upgradeState)
    .all();
}

/** The values in use for the Fleet filters, of one organization's clusters. */
export async function distinctValues(
  db: Db,
  organizationId: number,
): Promise<{
  sectors: string[];
  workloads: string[];
  states: string[];
  reasons: string[];
  minors: string[];
  regions: string[];
  labels: string[];
}> {
  while (connectionHeld(db)) await connectionReleased(db);
  const col = <T extends { v: string | null }>(rows: T[]) => rows.map((r) => r.v).filter((v): v is string => !!v);
  const ours = eq(clusters.organizationId, organizationId);
  const ourIds = db.select({ id: clusters.id }).from(clusters).where(ours);
  return {
    sectors: col(db.selectDistinct({ v: clusters.sector }).from(clusters).where(ours).orderBy(clusters.sector).all()),
    workloads: col(
      db
        .selectDistinct({ v: clusterWorkloads.workload })
        .from(clusterWorkloads)
        .where(inArray(clusterWorkloads.clusterId, ourIds))
        .orderBy(clusterWorkloads.workload)
        .all(),
    ),
    states: col(db.selectDistinct({ v: clusters.upgradeState }).from(clusters).where(ours).orderBy(clusters.upgradeState).all()),
    reasons: col(
      db.selectDistinct({ v: clusters.lastDecisionReason }).from(clusters).where(ours).orderBy(clusters.lastDecisionReason).all(),
    ),
    minors: [
      ...new Set(
        col(db.selectDistinct({ v: clusters.version }).from(clusters).where(ours).all()).map((v) => v.split('.').slice(0, 2).join('.')),
      ),
    ].sort(),
    regions: col(db.selectDistinct({ v: clusters.region }).from(clusters).where(ours).orderBy(clusters.region).all()),
    // every key=value pair in use, for the label filter's suggestions (a few hundred at most in practice)
    labels: col(
      db.$client
        .prepare(
          `select distinct json_each.key || '=' || json_each.value as v from clusters, json_each(json_patch(clusters.labels, clusters.fleetplan_labels)) where clusters.organization_id = ? order by v limit 500`,
        )
        .all(organizationId) as { v: string }[],
    ),
  };
}

/** Every cluster of the organization the provider still reports, with both sets of labels (selector matching and previews). */
export async function listClusterLabels(
  db: Db,
  organizationId: number,
): Promise<{ name: string; labels: Record<string, string>; fleetplanLabels: Record<string, string> }[]> {
  while (connectionHeld(db)) await connectionReleased(db);
  return db
    .select({ name: clusters.name, labels: clusters.labels, fleetplanLabels: clusters.fleetplanLabels })
    .from(clusters)
    .where(and(eq(clusters.organizationId, organizationId), sql`${clusters.upgradeState} <> 'gone'`))
    .orderBy(asc(clusters.name))
    .all();
}

/** The names of the organization's clusters whose policy names `sector`. */
export async function listClusterNamesInSector(db: Db, organizationId: number, sector: string): Promise<string[]> {
  while (connectionHeld(db)) await connectionReleased(db);
  return db
    .select({ name: clusters.name })
    .from(clusters)
    .where(and(eq(clusters.organizationId, organizationId), eq(clusters.sector, sector)))
    .all()
    .map((r) => r.name);
}

/** A cluster's effective labels (the provider's overlaid by fleetplan's); null when the organization has no such cluster. */
export async function findClusterLabels(db: Db, organizationId: number, name: string): Promise<Record<string, string> | null> {
  while (connectionHeld(db)) await connectionReleased(db);
  const row = db
    .select({ labels: clusters.labels, fleetplanLabels: clusters.fleetplanLabels })
    .from(clusters)
    .where(and(eq(clusters.organizationId, organizationId), eq(clusters.name, name)))
    .get();
  return row ? effectiveLabels(row.labels, row.fleetplanLabels) : null;
}

/** Replaces the labels fleetplan sets on a cluster (the provider's stay as discovery wrote them). */
export async function setFleetplanLabels(db: Db, clusterId: number, labels: Record<string, string>): Promise<void> {
  while (connectionHeld(db)) await connectionReleased(db);
  db.update(clusters).set({ fleetplanLabels: labels }).where(eq(clusters.id, clusterId)).run();
}

export async function listClusterUpgrades(db: Db, clusterId: number, limit = 50) {
  while (connectionHeld(db)) await connectionReleased(db);
  return db
    .select()
    .from(clusterUpgrades)
    .where(eq(clusterUpgrades.clusterId, clusterId))
    .orderBy(desc(clusterUpgrades.startedAt))
    .limit(limit)
    .all();
}

/** The clusters the provider no longer reports (state `gone`), by name. */
export async function listGoneClusterNames(db: Db, organizationId: number): Promise<string[]> {
  while (connectionHeld(db)) await connectionReleased(db);
  return db
    .select({ name: clusters.name })
    .from(clusters)
    .where(and(eq(clusters.organizationId, organizationId), eq(clusters.upgradeState, 'gone')))
    .all()
    .map((r) => r.name);
}

/** The organization's clusters (not gone) holding provider version gates they have not agreed to, by name. */
export async function listPendingVersionGates(
  db: Db,
  organizationId: number,
): Promise<{ cluster: string; gates: ClusterRow['pendingVersionGates'] }[]> {
  while (connectionHeld(db)) await connectionReleased(db);
  return db
    .select({ cluster: clusters.name, gates: clusters.pendingVersionGates })
    .from(clusters)
    .where(
      and(
        eq(clusters.organizationId, organizationId),
        sql`json_array_length(${clusters.pendingVersionGates}) > 0`,
        sql`${clusters.upgradeState} <> 'gone'`,
      ),
    )
    .orderBy(asc(clusters.name))
    .all();
}

/**
 * Takes an acknowledged version gate off the cluster's pending list at once (the next snapshot
 * says the same): false when it was not pending.
 */
export async function removePendingVersionGate(db: Db, clusterId: number, gateId: string): Promise<boolean> {
  while (connectionHeld(db)) await connectionReleased(db);
  const row = db.select({ gates: clusters.pendingVersionGates }).from(clusters).where(eq(clusters.id, clusterId)).get();
  if (!row || !row.gates.some((g) => g.id === gateId)) return false;
  db.update(clusters)
    .set({ pendingVersionGates: row.gates.filter((g) => g.id !== gateId) })
    .where(eq(clusters.id, clusterId))
    .run();
  return true;
}
