// Copies a fleetplan SQLite database into an empty, migrated PostgreSQL one (`fleetplan
// migrate-db`), then verifies the copy row for row before committing it:
// - the SQLite side is read in one read transaction (a consistent snapshot even while a server
//   writes), streamed with .iterate() and written in batches, so memory stays bounded;
// - the PostgreSQL side is written in ONE transaction, tables in foreign-key order; plan_revisions
//   last, since the triggers bump it while the others are copied;
// - identity sequences are moved past the copied ids;
// - per table, the row count and an order-independent digest of every row's values (read back
//   through a cursor) must equal the source's; anything else rolls back and names the table.
// Values are compared as the schemas type them (db/schema.ts and db/pg-schema.ts agree, see
// schema-dialects.test.ts): dates by their milliseconds, JSON by content with sorted keys.
import Database from 'better-sqlite3';
import { getTableColumns, getTableName, isTable, type Column, type Table } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/node-postgres';
import { getTableConfig as getPgTableConfig, type PgTable } from 'drizzle-orm/pg-core';
import { getTableConfig as getSqliteTableConfig, type SQLiteTable } from 'drizzle-orm/sqlite-core';
import { readMigrationFiles } from 'drizzle-orm/migrator';
import { createHash } from 'node:crypto';
import type { PoolClient } from 'pg';
import { verifyFleetplanSchema } from './database-schema';
import { MIGRATIONS_FOLDER } from './open-database';
import type { PgDb } from './open-postgres';
import * as pgSchema from './pg-schema';
import * as sqliteSchema from './schema';

/** rows per INSERT (fewer for wide tables: PostgreSQL takes at most 65,535 parameters) */
const BATCH_ROWS = 1000;
const MAX_PARAMETERS = 60_000;
/** tables written after every other: the other tables' triggers write to them */
const WRITTEN_LAST = new Set(['plan_revisions']);
/** what the migrations themselves put in a new database: not data of an install */
const MIGRATION_ROWS: Record<string, string[]> = {
  plan_revisions: ['structure', 'configuration', 'cluster_rows'].map((scope) => canonicalRow({ scope, revision: 0 })),
};

export type TableCopy = { table: string; rows: number; digest: string };

/** The copy was refused, or failed to write or to verify; nothing of it was committed. */
export class CopyRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CopyRefused';
  }
}

type TablePair = { name: string; sqlite: SQLiteTable; pg: PgTable };

function tablesByName(schema: Record<string, unknown>): Map<string, Table> {
  const tables = new Map<string, Table>();
  for (const value of Object.values(schema)) if (isTable(value)) tables.set(getTableName(value), value);
  return tables;
}

/** Every table of both schemas, parents before children (foreign keys), plan_revisions last. */
export function tablesInCopyOrder(): TablePair[] {
  const sqlite = tablesByName(sqliteSchema);
  const pg = tablesByName(pgSchema);
  const names = [...pg.keys()].sort();
  for (const name of names) if (!sqlite.has(name)) throw new Error(`table ${name} is in db/pg-schema.ts but not in db/schema.ts`);
  const parents = new Map(
    names.map((name) => [
      name,
      getPgTableConfig(pg.get(name) as PgTable)
        .foreignKeys.map((fk) => getTableName(fk.reference().foreignTable))
        .filter((parent) => parent !== name),
    ]),
  );
  const ordered: string[] = [];
  const visiting = new Set<string>();
  const visit = (name: string) => {
    if (ordered.includes(name)) return;
    if (visiting.has(name)) throw new Error(`foreign keys form a cycle through ${name}`);
    visiting.add(name);
    for (const parent of parents.get(name) ?? []) visit(parent);
    visiting.delete(name);
    ordered.push(name);
  };
  for (const name of names) if (!WRITTEN_LAST.has(name)) visit(name);
  for (const name of names) if (WRITTEN_LAST.has(name)) visit(name);
  return ordered.map((name) => ({ name, sqlite: sqlite.get(name) as SQLiteTable, pg: pg.get(name) as PgTable }));
}

function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'undefined';
  if (value instanceof Date) return `date:${value.getTime()}`;
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

/** one row's values, by column name, as a string that is equal for equal values in either database */
function canonicalRow(row: Record<string, unknown>): string {
  return canonicalJson(row);
}

/** an order-independent digest of a multiset of rows: the sum of their SHA-256 modulo 2^256 */
class RowDigest {
  private sum = 0n;
  rows = 0;
  add(canonical: string): void {
    this.sum = (this.sum + BigInt(`0x${createHash('sha256').update(canonical).digest('hex')}`)) & ((1n << 256n) - 1n);
    this.rows++;
  }
  get value(): string {
    return this.sum.toString(16).padStart(64, '0');
  }
}

function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** The tables of ours that hold rows the migrations did not write, with their counts. */
export async function nonEmptyTables(client: PoolClient): Promise<{ table: string; rows: number }[]> {
  const found: { table: string; rows: number }[] = [];
  for (const { name } of tablesInCopyOrder()) {
    const exists = await client.query<{ t: string | null }>('select to_regclass($1) as t', [`public.${quoteIdent(name)}`]);
    if (!exists.rows[0]?.t) continue;
    const expected = MIGRATION_ROWS[name] ?? [];
    const result = await client.query<Record<string, unknown>>(`select * from ${quoteIdent(name)} limit ${expected.length + 1}`);
    const unexpected = result.rows.map(canonicalRow).filter((row) => !expected.includes(row));
    if (unexpected.length > 0) {
      const count = await client.query<{ n: string }>(`select count(*) as n from ${quoteIdent(name)}`);
      found.push({ table: name, rows: Number(count.rows[0]!.n) });
    }
  }
  return found;
}

/** streams the SQLite table's rows, typed as db/schema.ts types them, keyed by column name */
function* sqliteRows(
  sqlite: Database.Database,
  table: SQLiteTable,
): Generator<{ byName: Record<string, unknown>; byKey: Record<string, unknown> }> {
  const columns = Object.entries(getTableColumns(table)) as [string, Column][];
  const statement = sqlite
    .prepare(`select ${columns.map(([, c]) => quoteIdent(c.name)).join(', ')} from ${quoteIdent(getSqliteTableConfig(table).name)}`)
    .raw(true);
  for (const raw of statement.iterate() as Iterable<unknown[]>) {
    const byName: Record<string, unknown> = {};
    const byKey: Record<string, unknown> = {};
    columns.forEach(([key, column], i) => {
      const value = raw[i] === null || raw[i] === undefined ? null : column.mapFromDriverValue(raw[i]);
      byName[column.name] = value;
      byKey[key] = value;
    });
    yield { byName, byKey };
  }
}

/** the digest of a PostgreSQL table's rows, read through a cursor (bounded memory) in the open transaction */
async function pgDigest(client: PoolClient, table: string): Promise<RowDigest> {
  const digest = new RowDigest();
  const cursor = `copy_check_${table}`;
  await client.query(`declare ${quoteIdent(cursor)} no scroll cursor for select * from ${quoteIdent(table)}`);
  for (;;) {
    // pg's own parsers give Date for timestamptz, objects for jsonb, booleans and numbers: the same
    // values drizzle maps the SQLite columns to
    const batch = await client.query<Record<string, unknown>>(`fetch ${BATCH_ROWS} from ${quoteIdent(cursor)}`);
    for (const row of batch.rows) digest.add(canonicalRow(row));
    if (batch.rows.length < BATCH_ROWS) break;
  }
  await client.query(`close ${quoteIdent(cursor)}`);
  return digest;
}

/**
 * `file` opened read-only, once it is known to be a fleetplan database with every migration of
 * this build applied (an older one is not migrated here: the file stays untouched).
 */
export function openSqliteSource(file: string): Database.Database {
  const sqlite = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const verdict = verifyFleetplanSchema(sqlite);
    if (!verdict.ok) throw new CopyRefused(`${file} is not a fleetplan database this version can read: ${verdict.problems.join('; ')}`);
    const ours = readMigrationFiles({ migrationsFolder: MIGRATIONS_FOLDER }).length;
    if (verdict.migrations < ours) {
      throw new CopyRefused(
        `${file} has ${verdict.migrations} of this fleetplan's ${ours} migrations applied: start this version of fleetplan on it ` +
          `once (npm start with DATABASE_URL=${file}; it migrates the file forward), stop it, then run migrate-db again`,
      );
    }
    return sqlite;
  } catch (err) {
    sqlite.close();
    throw err;
  }
}

export type CopyOptions = {
  /** called once every table is written, before the verification: tests alter the copy here to see it caught */
  beforeVerify?: (client: PoolClient) => Promise<void>;
};

/**
 * Copies every table of `sqlite` (a verified fleetplan database with every migration applied)
 * into `target` (migrated, holding no rows of an install), verifies, and commits; or rolls back
 * and throws CopyRefused naming the table.
 */
export async function copySqliteToPostgres(sqlite: Database.Database, target: PgDb, opts: CopyOptions = {}): Promise<TableCopy[]> {
  const tables = tablesInCopyOrder();
  const client = await target.$client.connect();
  const tx = drizzle(client, { schema: pgSchema });
  let failed: Error | undefined;
  sqlite.exec('begin');
  try {
    await client.query('begin');
    // no other writer while we check it is empty and fill it
    await client.query(`lock table ${tables.map((t) => quoteIdent(t.name)).join(', ')} in share row exclusive mode`);
    const nonEmpty = await nonEmptyTables(client);
    if (nonEmpty.length > 0) throw new CopyRefused(describeNonEmpty(nonEmpty));

    const copied: { table: string; source: RowDigest }[] = [];
    for (const { name, sqlite: sqliteTable, pg: pgTable } of tables) {
      if (MIGRATION_ROWS[name]) await client.query(`delete from ${quoteIdent(name)}`);
      const columnCount = Object.keys(getTableColumns(pgTable)).length;
      const batchRows = Math.max(1, Math.min(BATCH_ROWS, Math.floor(MAX_PARAMETERS / columnCount)));
      const source = new RowDigest();
      let batch: Record<string, unknown>[] = [];
      const flush = async () => {
        if (batch.length === 0) return;
        try {
          await tx.insert(pgTable).values(batch);
        } catch (err) {
          const cause = err instanceof Error && err.cause instanceof Error ? err.cause.message : String(err);
          throw new CopyRefused(`copying ${name} failed: ${cause}; the copy was rolled back`);
        }
        batch = [];
      };
      for (const row of sqliteRows(sqlite, sqliteTable)) {
        source.add(canonicalRow(row.byName));
        batch.push(row.byKey);
        if (batch.length >= batchRows) await flush();
      }
      await flush();
      copied.push({ table: name, source });
    }

    for (const { name, pg: pgTable } of tables) {
      for (const column of getPgTableConfig(pgTable).columns) {
        if (!column.generatedIdentity) continue;
        // the next id continues after the copied ones (1 for an empty table)
        await client.query(
          `select setval(pg_get_serial_sequence($1, $2), coalesce((select max(${quoteIdent(column.name)}) from ${quoteIdent(name)}), 0) + 1, false)`,
          [quoteIdent(name), column.name],
        );
      }
    }

    await opts.beforeVerify?.(client);
    const results: TableCopy[] = [];
    for (const { table, source } of copied) {
      const copy = await pgDigest(client, table);
      if (copy.rows !== source.rows) {
        throw new CopyRefused(
          `verification failed for ${table}: ${source.rows} rows in SQLite, ${copy.rows} in PostgreSQL; the copy was rolled back`,
        );
      }
      if (copy.value !== source.value) {
        throw new CopyRefused(
          `verification failed for ${table}: the rows' values differ between SQLite and PostgreSQL; the copy was rolled back`,
        );
      }
      results.push({ table, rows: source.rows, digest: source.value });
    }
    await client.query('commit');
    return results;
  } catch (err) {
    failed = err instanceof Error ? err : new Error(String(err));
    await client.query('rollback').catch(() => undefined);
    throw err;
  } finally {
    sqlite.exec('commit');
    client.release(failed && !(failed instanceof CopyRefused) ? failed : undefined);
  }
}

export function describeNonEmpty(tables: { table: string; rows: number }[]): string {
  const listed = tables.map((t) => `${t.table} (${t.rows} row${t.rows === 1 ? '' : 's'})`).join(', ');
  return `the target database is not empty: ${listed}. migrate-db only fills an empty database; nothing was changed`;
}
