// A cheap token for "the database may have changed": views that derive something costly from the
// stored data (the fleet evaluation) key a cache by it instead of re-reading 10,000 clusters.
import type Database from 'better-sqlite3';
import type { Db } from '@/db/open-database';
import { FAILURE_STATES } from '@/server/domain/lifecycle/machine';
import { sql, type SQL } from 'drizzle-orm';
import { isPostgres } from './dialect';
import { pgRows } from './postgres-statement';
import { connectionHeld, connectionReleased } from './transaction';

const totalChangesOf = new WeakMap<Database.Database, Database.Statement<[], { changes: number }>>();

/**
 * Changes whenever a row of any table may have changed: `total_changes()` counts every row this
 * connection inserted, updated or deleted since it opened (trigger and cascade rows included), and
 * `PRAGMA data_version` moves when another connection (the CLI, a second process) commits. A
 * rolled-back change still moves the count, so the token can change without the data changing,
 * never the other way round. (`data_version` alone would miss this connection's own writes.)
 *
 * Null inside an open transaction: rows written there may still roll back, and a rollback moves
 * neither counter back, so nothing read inside it may be kept.
 */
export async function readDataVersion(db: Db): Promise<string | null> {
  while (connectionHeld(db)) await connectionReleased(db);
  if (isPostgres(db)) {
    // The snapshot (the oldest transaction still running, the next to come, those in between still
    // running) moves whenever a writing transaction commits, on any connection: a token that
    // changes with the data (and with writes to other databases of the server: a miss, never a stale hit).
    const row = await unlessWrittenHere<{ snapshot: string }>(db, sql`pg_current_snapshot()::text as snapshot`);
    return row && `pg:${row.snapshot}`;
  }
  const client = db.$client;
  if (client.inTransaction) return null;
  let totalChanges = totalChangesOf.get(client);
  if (!totalChanges) {
    totalChanges = client.prepare<[], { changes: number }>('SELECT total_changes() AS changes');
    totalChangesOf.set(client, totalChanges);
  }
  const changes = totalChanges.get()!.changes;
  const committedElsewhere = client.pragma('data_version', { simple: true }) as number;
  return `${committedElsewhere}:${changes}`;
}

const structureRevisionOf = new WeakMap<Database.Database, Database.Statement<[], { revision: number }>>();

/**
 * The plan input's structure revision (db/schema.ts planRevisions, bumped by triggers on the
 * tables it is built from, whoever writes them). Null when it cannot be trusted: inside an open
 * transaction, or when the row is missing.
 */
export async function readPlanStructureRevision(db: Db): Promise<number | null> {
  while (connectionHeld(db)) await connectionReleased(db);
  if (isPostgres(db)) {
    const row = await unlessWrittenHere<{ revision: number | null }>(
      db,
      sql`(select revision from plan_revisions where scope = 'structure') as revision`,
    );
    return row?.revision ?? null;
  }
  const client = db.$client;
  if (client.inTransaction) return null;
  let statement = structureRevisionOf.get(client);
  if (!statement) {
    statement = client.prepare<[], { revision: number }>("SELECT revision FROM plan_revisions WHERE scope = 'structure'");
    structureRevisionOf.set(client, statement);
  }
  return statement.get()?.revision ?? null;
}

const planRowRevisionsOf = new WeakMap<
  Database.Database,
  Database.Statement<[], { structure: number | null; clusterRows: number | null }>
>();

/**
 * The plan structure revision with the 'cluster_rows' one (migration 0022), read together: the
 * latter moves once for every structure move that is a cluster's own planned columns changing
 * (its name, position and organization staying), so when both moved by the same count since a
 * load, nothing but those rows changed the structure. Null when they cannot be trusted (inside an
 * open transaction, a row missing).
 */
export async function readPlanRowRevisions(db: Db): Promise<{ structure: number; clusterRows: number } | null> {
  while (connectionHeld(db)) await connectionReleased(db);
  const row = isPostgres(db)
    ? await unlessWrittenHere<{ structure: number | null; clusterRows: number | null }>(
        db,
        sql`(select revision from plan_revisions where scope = 'structure') as structure,
            (select revision from plan_revisions where scope = 'cluster_rows') as "clusterRows"`,
      )
    : planRowRevisionsOnSqlite(db);
  if (!row) return null;
  return row.structure === null || row.clusterRows === null ? null : { structure: row.structure, clusterRows: row.clusterRows };
}

function planRowRevisionsOnSqlite(db: Db): { structure: number | null; clusterRows: number | null } | null {
  const client = db.$client;
  if (client.inTransaction) return null;
  let statement = planRowRevisionsOf.get(client);
  if (!statement) {
    statement = client.prepare<[], { structure: number | null; clusterRows: number | null }>(
      `SELECT (SELECT revision FROM plan_revisions WHERE scope = 'structure') AS structure,
              (SELECT revision FROM plan_revisions WHERE scope = 'cluster_rows') AS clusterRows`,
    );
    planRowRevisionsOf.set(client, statement);
  }
  return statement.get()!;
}

/**
 * PostgreSQL: `columns` read, or null when the caller's transaction has written (its rows may
 * still roll back, as SQLite's open transaction). Unlike SQLite, a unit of work that has only read
 * gets an answer: it reads committed rows, in the snapshot the answer is read in.
 */
async function unlessWrittenHere<T>(db: Db, columns: SQL): Promise<T | null> {
  const row = (
    await pgRows<T & { written: boolean }>(db, sql`select ${columns}, pg_current_xact_id_if_assigned() is not null as written`)
  )[0]!;
  if (row.written) return null;
  const { written: _, ...rest } = row;
  return rest as T;
}

/** the lifecycle states of a failure, as an SQL list */
const FAILURE_STATE_LIST = [...FAILURE_STATES].map((state) => `'${state}'`).join(', ');

const forecastInputsOf = new WeakMap<
  Database.Database,
  Database.Statement<[{ org: number }], { configuration: string; observation: string }>
>();

/** The two halves of what a forecast depends on (readForecastInputsRevision). */
export interface ForecastInputsRevision {
  /**
   * what people set: policies, sectors, labels, blocked versions, approvals, update graphs (the
   * plan's configuration revision, migration 0020), the freeze, the maintenance exclusions, the
   * health-gate setting and the unacknowledged failures (an acknowledgement releases a halt)
   */
  configuration: string;
  /** what the fleet reports: the plan structure revision (versions, offers, health, upgrades) and soak reporting */
  observation: string;
}

/**
 * What a forecast of the organization's fleet depends on, in two tokens: its configuration and the
 * fleet's observed state. Soak *days* are left out: they grow at every tick by the engine's own
 * rule from what is in the tokens, so a forecast kept for a short while stays right; nor do the
 * scheduler's own bookkeeping writes (its lease, tick rows) move them, which readDataVersion does —
 * on a running server that made every forecast a cache miss. Null when they cannot be trusted.
 */
export async function readForecastInputsRevision(db: Db, organizationId: number): Promise<ForecastInputsRevision | null> {
  const structure = await readPlanStructureRevision(db);
  if (structure === null) return null;
  // the statements below run after an await: the connection's turn is checked here, next to them
  while (connectionHeld(db)) await connectionReleased(db);
  if (isPostgres(db)) {
    const inputs = await forecastInputsOnPostgres(db, organizationId);
    return { configuration: inputs.configuration, observation: `${structure}:${inputs.observation}` };
  }
  if (db.$client.inTransaction) return null;
  const client = db.$client;
  let statement = forecastInputsOf.get(client);
  if (!statement) {
    statement = client.prepare<[{ org: number }], { configuration: string; observation: string }>(
      `SELECT json_array(
         (SELECT revision FROM plan_revisions WHERE scope = 'configuration'),
         (SELECT json_array(frozen, frozen_reason) FROM organizations WHERE id = @org),
         (SELECT json_group_array(json_array(id, scope, subject, starts_at, ends_at, reason)) FROM maintenance_exclusions WHERE organization_id = @org),
         (SELECT value FROM settings WHERE key = 'scheduler.healthGate'),
         (SELECT json_group_array(id) FROM upgrade_lifecycles WHERE acknowledged_at IS NULL AND state IN (${FAILURE_STATE_LIST}))
       ) AS configuration,
       json_array(
         (SELECT json_group_array(json_array(version, workload, json_array_length(reporting))) FROM version_soak WHERE organization_id = @org)
       ) AS observation`,
    );
    forecastInputsOf.set(client, statement);
  }
  const row = statement.get({ org: organizationId })!;
  return { configuration: row.configuration, observation: `${structure}:${row.observation}` };
}

/** PostgreSQL: the same two tokens' parts as SQLite's (jsonb text; in key order, as SQLite reads them). */
async function forecastInputsOnPostgres(db: Db, organizationId: number): Promise<ForecastInputsRevision> {
  return (
    await pgRows<ForecastInputsRevision>(
      db,
      sql`select jsonb_build_array(
            (select revision from plan_revisions where scope = 'configuration'),
            (select jsonb_build_array(frozen, frozen_reason) from organizations where id = ${organizationId}),
            (select coalesce(jsonb_agg(jsonb_build_array(id, scope, subject, starts_at, ends_at, reason) order by id), '[]')
               from maintenance_exclusions where organization_id = ${organizationId}),
            (select value from settings where key = 'scheduler.healthGate'),
            (select coalesce(jsonb_agg(id order by id), '[]') from upgrade_lifecycles
               where acknowledged_at is null and state in (${sql.raw(FAILURE_STATE_LIST)}))
          )::text as configuration,
          jsonb_build_array(
            (select coalesce(jsonb_agg(jsonb_build_array(version, workload, jsonb_array_length(reporting)) order by version, workload), '[]')
               from version_soak where organization_id = ${organizationId})
          )::text as observation`,
    )
  )[0]!;
}
