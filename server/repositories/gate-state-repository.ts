// The scheduler's gates as stored: the organization's freeze, the maintenance exclusions still
// ahead, the health gate with each cluster's health issues and the version gates clusters have
// not agreed to. The tick and every view that explains decisions (why-not, forecast, sectors,
// metrics) load them here, so they all judge with the same gates.
import { inhibitingFacts, type ClusterInhibitorFacts } from '@/server/domain/lifecycle/inhibitors';
import { and, eq, isNotNull, sql, type ColumnBaseConfig, type ColumnDataType } from 'drizzle-orm';
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core';
import type { Db } from '@/db/open-database';
import { buildHaltIndex, EMPTY_HALTS, type HaltIndex } from '@/server/domain/lifecycle/halts';
import { clusterLabelsOf, exclusionWindowOf, type GateState } from '@/server/domain/scheduling/apply-gates';
import type { PlanInput } from '@/server/domain/plan/types';
import { effectiveLabels } from '@/server/domain/labels/effective-labels';
import type { PendingGate } from '@/server/domain/lifecycle/gates';
import { listUnacknowledgedFailures } from '@/server/repositories/lifecycle-repository';
import { listSectorRows } from '@/server/repositories/sector-repository';
import { listExclusions } from '@/server/repositories/exclusion-repository';
import { HEALTH_GATE_SETTING, readSetting } from '@/server/repositories/scheduler-repository';
import { loadStoredGraphIndex } from '@/server/repositories/update-graph-repository';
import { routeFinder, type RouteFinder } from '@/server/domain/plan/route-following';
import type { GraphIndex } from '@/server/domain/path/update-graph-index';
import { isPostgres, tablesOf } from './dialect';
import { connectionHeld, connectionReleased, readTogether } from './transaction';

export interface GateOrganization {
  id: number;
  frozen: boolean;
  frozenReason?: string | null;
}

/**
 * Gates at `now`. `healthIssues` defaults to the stored clusters' (the tick passes those of the
 * snapshot it just took). The labels exclusions by selector match come from `clusters` (a plan
 * input's, which holds them) when given, else from the stored clusters: the tick passes the input
 * it just loaded, so it does not read and parse every cluster's labels a second time.
 */
export async function loadGateState(
  db: Db,
  org: GateOrganization,
  now: Date,
  healthIssues?: ReadonlyMap<string, readonly string[]>,
  clusters?: PlanInput['clusters'],
): Promise<GateState> {
  return readTogether(db, async () => {
    const facts: ClusterGateFacts = {
      healthIssues: healthIssues ?? (await loadHealthIssues(db, org.id)),
      versionGates: await loadPendingVersionGates(db, org.id),
      inhibitors: await loadInhibitors(db, org.id),
    };
    return await loadGateStateWithClusterFacts(db, org, now, facts, clusters);
  });
}

/**
 * What the gates hold per cluster from the clusters' own rows. Their columns are in the plan
 * structure revision's trigger, so a caller that keeps the clusters while it stays keeps these too:
 * on a 10,000-cluster fleet that reports its operators, reading and parsing every row's inhibitors
 * alone costs ~0.1 s.
 */
export interface ClusterGateFacts {
  healthIssues: ReadonlyMap<string, readonly string[]>;
  versionGates: ReadonlyMap<string, readonly PendingGate[]>;
  inhibitors: ReadonlyMap<string, ClusterInhibitorFacts>;
}

/** Gates at `now` with the clusters' facts the caller kept: only the freeze, exclusions, halts, the health-gate switch and routes are read. */
export async function loadGateStateWithClusterFacts(
  db: Db,
  org: GateOrganization,
  now: Date,
  facts: ClusterGateFacts,
  clusters?: PlanInput['clusters'],
): Promise<GateState> {
  return readTogether(db, async () => {
    const exclusions = (await listExclusions(db, org.id, { endingAfter: now })).map((e) =>
      exclusionWindowOf({
        scope: e.scope,
        subject: e.subject,
        startsAt: e.startsAt.getTime(),
        endsAt: e.endsAt.getTime(),
        reason: e.reason,
      }),
    );
    return {
      frozen: org.frozen,
      frozenReason: org.frozenReason ?? null,
      exclusions,
      // only an exclusion by selector reads labels: without one no fleet pays for them
      ...(exclusions.some((e) => e.scope === 'selector')
        ? { clusterLabels: clusters ? clusterLabelsOf(clusters) : await loadClusterLabels(db, org.id) }
        : {}),
      healthGate: (await readSetting<boolean>(db, HEALTH_GATE_SETTING)) ?? true,
      healthIssues: facts.healthIssues,
      halts: await loadHalts(db, org.id),
      versionGates: facts.versionGates,
      inhibitors: facts.inhibitors,
      ...(await routesOf(db)),
    };
  });
}

/** Per cluster, its effective labels (the provider's overlaid by fleetplan's). */
export async function loadClusterLabels(db: Db, organizationId: number): Promise<ReadonlyMap<string, Readonly<Record<string, string>>>> {
  while (connectionHeld(db)) await connectionReleased(db);
  if (isPostgres(db)) {
    const { clusters } = tablesOf(db);
    const rows = await db
      .select({ name: clusters.name, labels: clusters.labels, fleetplanLabels: clusters.fleetplanLabels })
      .from(clusters)
      .where(eq(clusters.organizationId, organizationId));
    return new Map(rows.map((r) => [r.name, effectiveLabels(r.labels, r.fleetplanLabels)]));
  }
  // SQLite: a prepared statement and JSON.parse, for a 10,000-cluster tick
  const rows = db.$client
    .prepare(`select name, labels, fleetplan_labels as fleetplanLabels from clusters where organization_id = ?`)
    .all(organizationId) as { name: string; labels: string; fleetplanLabels: string }[];
  return new Map(
    rows.map((r) => [
      r.name,
      effectiveLabels(JSON.parse(r.labels) as Record<string, string>, JSON.parse(r.fleetplanLabels) as Record<string, string>),
    ]),
  );
}

const finders = new WeakMap<GraphIndex, RouteFinder>();

/**
 * The routes over the stored update graphs (one finder per graph set, so its memo lives as long as
 * the set): none without a stored graph, or with a broken one (the Paths page says so).
 */
async function routesOf(db: Db): Promise<{ routes?: RouteFinder }> {
  const stored = await loadStoredGraphIndex(db);
  if (!stored?.ok) return {};
  let finder = finders.get(stored.index);
  if (!finder) finders.set(stored.index, (finder = routeFinder(stored.index)));
  return { routes: finder };
}

/** Per cluster, the operators and removed-API use that can hold an upgrade, as last reported (only clusters with some). */
export async function loadInhibitors(db: Db, organizationId: number): Promise<ReadonlyMap<string, ClusterInhibitorFacts>> {
  while (connectionHeld(db)) await connectionReleased(db);
  const found = new Map<string, ClusterInhibitorFacts>();
  const keep = (name: string, reported: ClusterInhibitorFacts) => {
    const facts = inhibitingFacts(reported);
    if (facts) found.set(name, facts);
  };
  if (isPostgres(db)) {
    const { clusters } = tablesOf(db);
    const rows = await db
      .select({ name: clusters.name, inhibitors: clusters.inhibitors })
      .from(clusters)
      .where(and(eq(clusters.organizationId, organizationId), isNotNull(clusters.inhibitors)));
    for (const r of rows) keep(r.name, r.inhibitors!);
    return found;
  }
  const rows = db.$client
    .prepare(`select name, inhibitors from clusters where organization_id = ? and inhibitors is not null`)
    .all(organizationId) as { name: string; inhibitors: string }[];
  for (const r of rows) keep(r.name, JSON.parse(r.inhibitors) as ClusterInhibitorFacts);
  return found;
}

/**
 * Per cluster, its health issues as the last snapshot reported them (only clusters with some: on a
 * large fleet most have none, and an empty map lets the gates skip their second engine run).
 */
export async function loadHealthIssues(db: Db, organizationId: number): Promise<ReadonlyMap<string, readonly string[]>> {
  while (connectionHeld(db)) await connectionReleased(db);
  if (isPostgres(db)) {
    const { clusters } = tablesOf(db);
    return new Map(await nonEmptyListsOf(db, organizationId, clusters.healthIssues));
  }
  const rows = db.$client
    .prepare(`select name, health_issues as issues from clusters where organization_id = ? and health_issues <> '[]'`)
    .all(organizationId) as { name: string; issues: string }[];
  return new Map(rows.map((r) => [r.name, JSON.parse(r.issues) as string[]]));
}

/** Per cluster, the version gates it has not agreed to as the last snapshot reported them (only clusters with some). */
export async function loadPendingVersionGates(db: Db, organizationId: number): Promise<ReadonlyMap<string, readonly PendingGate[]>> {
  while (connectionHeld(db)) await connectionReleased(db);
  if (isPostgres(db)) {
    const { clusters } = tablesOf(db);
    return new Map(await nonEmptyListsOf(db, organizationId, clusters.pendingVersionGates));
  }
  const rows = db.$client
    .prepare(`select name, pending_version_gates as gates from clusters where organization_id = ? and pending_version_gates <> '[]'`)
    .all(organizationId) as { name: string; gates: string }[];
  return new Map(rows.map((r) => [r.name, JSON.parse(r.gates) as PendingGate[]]));
}

/** PostgreSQL: per cluster of the organization, its list in a jsonb list column (only clusters whose list is not empty). */
async function nonEmptyListsOf<T>(
  db: Db,
  organizationId: number,
  column: SQLiteColumn<ColumnBaseConfig<ColumnDataType, string> & { data: T[] }>,
) {
  const { clusters } = tablesOf(db);
  const rows = await db
    .select({ name: clusters.name, list: column })
    .from(clusters)
    .where(and(eq(clusters.organizationId, organizationId), sql`${column} <> '[]'::jsonb`));
  return rows.map((r): [string, T[]] => [r.name, r.list]);
}

/** The unacknowledged upgrade failures and what they halt (lifecycle/halts.ts). */
export async function loadHalts(db: Db, organizationId: number): Promise<HaltIndex> {
  return readTogether(db, async () => {
    const failures = await listUnacknowledgedFailures(db, organizationId);
    if (failures.length === 0) return EMPTY_HALTS;
    const sectors = (await listSectorRows(db, organizationId)).map((s) => ({ name: s.name, dependencies: s.dependencies ?? [] }));
    return buildHaltIndex(
      failures.map((f) => ({ attemptId: f.id, cluster: f.cluster, sector: f.sector, version: f.toVersion, halts: f.haltsOnFailure })),
      sectors,
    );
  });
}
