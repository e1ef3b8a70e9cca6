// Cluster queries: server-side filtering, sorting and paging for fleets of any size.
import { and, asc, count, desc, eq, inArray, like, ne, or, sql, type SQL } from 'drizzle-orm';
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core';
import type { Db } from '@/db/open-database';
import type { clusters } from '@/db/schema';
import { effectiveLabels } from '@/server/domain/labels/effective-labels';
import { isPostgres, tablesOf, type Tables } from './dialect';
import { pgRows } from './postgres-statement';
import { connectionHeld, connectionReleased, readTogether, withTransaction } from './transaction';

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

/**
 * The clusters `filter` selects, on `db`'s dialect. The label filter matches the effective labels
 * (fleetplan's overlaid on the provider's, effective-labels.ts) by key as it is, dots and slashes
 * of `api.openshift.com/…` keys included: json_patch and json_each on SQLite, `||` and `->>` on
 * PostgreSQL's jsonb.
 */
function whereOf(db: Db, filter: ClusterFilter): SQL | undefined {
  const { clusters, clusterWorkloads } = tablesOf(db);
  const postgres = isPostgres(db);
  const parts: SQL[] = [];
  if (filter.organizationId !== undefined) parts.push(eq(clusters.organizationId, filter.organizationId));
  if (filter.search) {
    const q = `%${filter.search.replace(/[%_\\]/g, (c) => `\\${c}`)}%`;
    // SQLite's like ignores ASCII case; PostgreSQL's ilike does the same
    const matches = (column: SQLiteColumn) => (postgres ? sql`${column} ilike ${q} escape '\\'` : sql`${column} like ${q} escape '\\'`);
    parts.push(or(matches(clusters.name), matches(clusters.externalId), matches(clusters.region))!);
  }
  if (filter.sector) parts.push(eq(clusters.sector, filter.sector));
  // Filters are free text: a value outside the column's vocabulary simply matches nothing.
  if (filter.state) parts.push(sql`${clusters.upgradeState} = ${filter.state}`);
  if (filter.version) parts.push(like(clusters.version, filter.version.endsWith('.') ? `${filter.version}%` : filter.version));
  if (filter.reason) parts.push(eq(clusters.lastDecisionReason, filter.reason));
  if (filter.region) parts.push(eq(clusters.region, filter.region));
  if (filter.label) {
    const { key, value } = filter.label;
    if (postgres) {
      const effective = sql`(${clusters.labels} || ${clusters.fleetplanLabels})`;
      parts.push(value === undefined ? sql`${effective} ? ${key}` : sql`${effective} ->> ${key} = ${value}`);
    } else {
      const effective = sql`json_patch(${clusters.labels}, ${clusters.fleetplanLabels})`;
      parts.push(
        value === undefined
          ? sql`exists (select 1 from json_each(${effective}) where json_each.key = ${key})`
          : sql`exists (select 1 from json_each(${effective}) where json_each.key = ${key} and json_each.value = ${value})`,
      );
    }
  }
  if (filter.names) parts.push(filter.names.length ? inArray(clusters.name, [...filter.names]) : sql`1 = 0`);
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

/** The columns a sort key orders by (then by name). */
function sortColumnOf(clusters: Tables['clusters'], sort: Exclude<ClusterSortKey, 'version'>) {
  return {
    name: clusters.name,
    sector: clusters.sector,
    state: clusters.upgradeState,
    channel: clusters.channel,
    nextRun: clusters.nextRun,
    region: clusters.region,
  }[sort];
}

/** SQLite's order of nulls on both: first ascending, last descending (PostgreSQL's default is the reverse). */
function orderOf(db: Db, column: SQLiteColumn, direction: 'asc' | 'desc'): SQL {
  if (!isPostgres(db)) return direction === 'asc' ? asc(column) : desc(column);
  return direction === 'asc' ? sql`${column} asc nulls first` : sql`${column} desc nulls last`;
}

/**
 * Versions sort numerically: 4.13.9 < 4.13.10. SQLite pads each numeric part into one text key;
 * PostgreSQL orders by the three numbers (the leading digits of each part, as SQLite's cast reads them).
 */
function versionOrderOf(db: Db, direction: 'asc' | 'desc'): SQL[] {
  const { clusters } = tablesOf(db);
  const v = clusters.version;
  if (isPostgres(db)) {
    return [1, 2, 3].map((part) => {
      const number = sql`coalesce(substring(split_part(${v}, '.', ${sql.raw(String(part))}) from '^[0-9]+')::integer, 0)`;
      return direction === 'asc' ? asc(number) : desc(number);
    });
  }
  const padded = sql`printf('%05d.%05d.%05d', cast(substr(${v}, 1, instr(${v}, '.') - 1) as integer), cast(substr(${v}, instr(${v}, '.') + 1) as integer), cast(substr(substr(${v}, instr(${v}, '.') + 1), instr(substr(${v}, instr(${v}, '.') + 1), '.') + 1) as integer))`;
  return [direction === 'asc' ? asc(padded) : desc(padded)];
}

export async function listClusters(
  db: Db,
  opts: { filter: ClusterFilter; sort: ClusterSortKey; direction: 'asc' | 'desc'; offset: number; limit: number },
): Promise<{ rows: ClusterRow[]; total: number }> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { clusters } = tablesOf(db);
  const where = whereOf(db, opts.filter);
  const order =
    opts.sort === 'version' ? versionOrderOf(db, opts.direction) : [orderOf(db, sortColumnOf(clusters, opts.sort), opts.direction)];
  return readTogether(db, async () => {
    const rows = await db
      .select()
      .from(clusters)
      .where(where)
      .orderBy(...order, asc(clusters.name))
      .limit(opts.limit)
      .offset(opts.offset);
    const total = (await db.select({ n: count() }).from(clusters).where(where))[0]!.n;
    return { rows, total };
  });
}

export async function countClusters(db: Db, organizationId?: number): Promise<number> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { clusters } = tablesOf(db);
  return (
    await db
      .select({ n: count() })
      .from(clusters)
      .where(organizationId === undefined ? undefined : eq(clusters.organizationId, organizationId))
  )[0]!.n;
}

export async function findClusterById(db: Db, id: number): Promise<ClusterRow | undefined> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { clusters } = tablesOf(db);
  return (await db.select().from(clusters).where(eq(clusters.id, id)).limit(1))[0];
}

/** The cluster of that name (in that organization, when given: names are unique per organization only). */
export async function findClusterByName(db: Db, name: string, organizationId?: number): Promise<ClusterRow | undefined> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { clusters } = tablesOf(db);
  return (
    await db
      .select()
      .from(clusters)
      .where(
        organizationId === undefined ? eq(clusters.name, name) : and(eq(clusters.name, name), eq(clusters.organizationId, organizationId)),
      )
      .limit(1)
  )[0];
}

/** Clusters per version and upgrade state, of those `filter` selects (the Fleet table's filter). */
export async function countByVersion(db: Db, filter: ClusterFilter = {}): Promise<{ version: string; state: string; count: number }[]> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { clusters } = tablesOf(db);
  return await db
    .select({ version: clusters.version, state: clusters.upgradeState, count: count() })
    .from(clusters)
    .where(whereOf(db, filter))
    .groupBy(clusters.version, clusters.upgradeState)
    // SQLite returns groups in this order by itself; PostgreSQL (hashing them) would not
    .orderBy(asc(clusters.version), asc(clusters.upgradeState));
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
  const { clusters, clusterWorkloads } = tablesOf(db);
  const col = <T extends { v: string | null }>(rows: T[]) => rows.map((r) => r.v).filter((v): v is string => !!v);
  const ours = eq(clusters.organizationId, organizationId);
  const ourIds = db.select({ id: clusters.id }).from(clusters).where(ours);
  const distinctOf = async (column: SQLiteColumn) =>
    col(
      await db
        .selectDistinct({ v: sql<string | null>`${column}` })
        .from(clusters)
        .where(ours)
        .orderBy(column),
    );
  return readTogether(db, async () => ({
    sectors: await distinctOf(clusters.sector),
    workloads: col(
      await db
        .selectDistinct({ v: clusterWorkloads.workload })
        .from(clusterWorkloads)
        .where(inArray(clusterWorkloads.clusterId, ourIds))
        .orderBy(clusterWorkloads.workload),
    ),
    states: await distinctOf(clusters.upgradeState),
    reasons: await distinctOf(clusters.lastDecisionReason),
    minors: [...new Set((await distinctOf(clusters.version)).map((v) => v.split('.').slice(0, 2).join('.')))].sort(),
    regions: await distinctOf(clusters.region),
    // every key=value pair in use, for the label filter's suggestions (a few hundred at most in practice)
    labels: col(await labelPairsInUse(db, organizationId)),
  }));
}

const LABEL_SUGGESTIONS = 500;

/**
 * The distinct key=value pairs of the organization's effective labels, in byte order (json_each on
 * SQLite, jsonb_each_text on PostgreSQL, whose text takes the database's collation unless told).
 */
async function labelPairsInUse(db: Db, organizationId: number): Promise<{ v: string }[]> {
  if (isPostgres(db)) {
    return pgRows<{ v: string }>(
      db,
      sql`select distinct (e.key || '=' || e.value) collate "C" as v from clusters, jsonb_each_text(clusters.labels || clusters.fleetplan_labels) e
          where clusters.organization_id = ${organizationId} order by v limit ${LABEL_SUGGESTIONS}`,
    );
  }
  return db.$client
    .prepare(
      `select distinct json_each.key || '=' || json_each.value as v from clusters, json_each(json_patch(clusters.labels, clusters.fleetplan_labels)) where clusters.organization_id = ? order by v limit ${LABEL_SUGGESTIONS}`,
    )
    .all(organizationId) as { v: string }[];
}

/** Every cluster of the organization the provider still reports, with both sets of labels (selector matching and previews). */
export async function listClusterLabels(
  db: Db,
  organizationId: number,
): Promise<{ name: string; labels: Record<string, string>; fleetplanLabels: Record<string, string> }[]> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { clusters } = tablesOf(db);
  return await db
    .select({ name: clusters.name, labels: clusters.labels, fleetplanLabels: clusters.fleetplanLabels })
    .from(clusters)
    .where(and(eq(clusters.organizationId, organizationId), ne(clusters.upgradeState, 'gone')))
    .orderBy(asc(clusters.name));
}

/** The names of the organization's clusters whose policy names `sector`. */
export async function listClusterNamesInSector(db: Db, organizationId: number, sector: string): Promise<string[]> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { clusters } = tablesOf(db);
  return (
    (
      await db
        .select({ name: clusters.name })
        .from(clusters)
        .where(and(eq(clusters.organizationId, organizationId), eq(clusters.sector, sector)))
        // oldest first, as SQLite's walk of clusters_sector gives them
        .orderBy(asc(clusters.id))
    ).map((r) => r.name)
  );
}

/** A cluster's effective labels (the provider's overlaid by fleetplan's); null when the organization has no such cluster. */
export async function findClusterLabels(db: Db, organizationId: number, name: string): Promise<Record<string, string> | null> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { clusters } = tablesOf(db);
  const row = (
    await db
      .select({ labels: clusters.labels, fleetplanLabels: clusters.fleetplanLabels })
      .from(clusters)
      .where(and(eq(clusters.organizationId, organizationId), eq(clusters.name, name)))
      .limit(1)
  )[0];
  return row ? effectiveLabels(row.labels, row.fleetplanLabels) : null;
}

/** Replaces the labels fleetplan sets on a cluster (the provider's stay as discovery wrote them). */
export async function setFleetplanLabels(db: Db, clusterId: number, labels: Record<string, string>): Promise<void> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { clusters } = tablesOf(db);
  await db.update(clusters).set({ fleetplanLabels: labels }).where(eq(clusters.id, clusterId));
}

export async function listClusterUpgrades(db: Db, clusterId: number, limit = 50) {
  while (connectionHeld(db)) await connectionReleased(db);
  const { clusterUpgrades } = tablesOf(db);
  return await db
    .select()
    .from(clusterUpgrades)
    .where(eq(clusterUpgrades.clusterId, clusterId))
    .orderBy(orderOf(db, clusterUpgrades.startedAt, 'desc'))
    .limit(limit);
}

/** The clusters the provider no longer reports (state `gone`), by name. */
export async function listGoneClusterNames(db: Db, organizationId: number): Promise<string[]> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { clusters } = tablesOf(db);
  return (
    await db
      .select({ name: clusters.name })
      .from(clusters)
      .where(and(eq(clusters.organizationId, organizationId), eq(clusters.upgradeState, 'gone')))
      .orderBy(asc(clusters.id))
  ).map((r) => r.name);
}

/** The organization's clusters (not gone) holding provider version gates they have not agreed to, by name. */
export async function listPendingVersionGates(
  db: Db,
  organizationId: number,
): Promise<{ cluster: string; gates: ClusterRow['pendingVersionGates'] }[]> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { clusters } = tablesOf(db);
  const gatesPending = isPostgres(db)
    ? sql`jsonb_array_length(${clusters.pendingVersionGates}) > 0`
    : sql`json_array_length(${clusters.pendingVersionGates}) > 0`;
  return await db
    .select({ cluster: clusters.name, gates: clusters.pendingVersionGates })
    .from(clusters)
    .where(and(eq(clusters.organizationId, organizationId), gatesPending, ne(clusters.upgradeState, 'gone')))
    .orderBy(asc(clusters.name));
}

/**
 * Takes an acknowledged version gate off the cluster's pending list at once (the next snapshot
 * says the same): false when it was not pending.
 */
export async function removePendingVersionGate(db: Db, clusterId: number, gateId: string): Promise<boolean> {
  return withTransaction(db, async () => {
    const { clusters } = tablesOf(db);
    const row = (await db.select({ gates: clusters.pendingVersionGates }).from(clusters).where(eq(clusters.id, clusterId)).limit(1))[0];
    if (!row || !row.gates.some((g) => g.id === gateId)) return false;
    await db
      .update(clusters)
      .set({ pendingVersionGates: row.gates.filter((g) => g.id !== gateId) })
      .where(eq(clusters.id, clusterId));
    return true;
  });
}
