// Raw statements on a PostgreSQL handle, for the repositories' PostgreSQL branches: aggregates
// and bulk writes the shared query builder cannot say (jsonb functions, `insert … select from
// jsonb_to_recordset`). The `Db` type is SQLite's (dialect.ts), so node-postgres' `execute` is
// reached here, once, rather than cast in every repository.
import { sql, type SQL, type SQLWrapper } from 'drizzle-orm';
import { Client, type ClientConfig } from 'pg';
import type { Db } from '@/db/open-database';
import { APPLICATION_NAME } from '@/db/open-postgres';
import { isPostgres } from './dialect';

interface PostgresExecute {
  execute<T>(query: SQL): Promise<{ rows: T[]; rowCount: number | null }>;
}

/**
 * One raw statement through a PostgreSQL handle (on the unit of work's connection inside one).
 * The driver gives timestamps as text here: select them as epoch milliseconds where they are read.
 */
export async function pgExecute<Row = Record<string, unknown>>(db: Db, query: SQL): Promise<{ rows: Row[]; rowCount: number }> {
  const result = await (db as unknown as PostgresExecute).execute<Row>(query);
  return { rows: result.rows, rowCount: result.rowCount ?? 0 };
}

/** The rows `query` returns on a PostgreSQL handle (its aliases as written: quote camelCase ones). */
export async function pgRows<T>(db: Db, query: SQL): Promise<T[]> {
  return (await pgExecute<T>(db, query)).rows;
}

/** Runs a writing `query` on a PostgreSQL handle; returns how many rows it touched. */
export async function pgRun(db: Db, query: SQL): Promise<number> {
  return (await pgExecute(db, query)).rowCount;
}

/**
 * One column of a batch as one PostgreSQL array parameter (`unnest(${arrayOf(...)}::text[], ...)`):
 * drizzle would spread a plain array into a list of parameters.
 */
export function arrayOf<Item, Value>(items: readonly Item[], pick: (item: Item) => Value): SQL {
  return sql`${sql.param(items.map(pick))}`;
}

/**
 * `column` is one of `values`, on either database, as one parameter however many there are: an
 * array on PostgreSQL (`= any(…::int[])`), a JSON array read by json_each on SQLite.
 */
export function isOneOf(db: Db, column: SQLWrapper, values: readonly (number | string)[], pgType: 'int' | 'text'): SQL {
  return isPostgres(db)
    ? sql`${column} = any(${arrayOf(values, (v) => v)}::${sql.raw(pgType)}[])`
    : sql`${column} in (select value from json_each(${JSON.stringify(values)}))`;
}

/** The rows a raw statement written for both dialects returns, on either database. */
export async function rowsOnEither<T>(db: Db, query: SQL): Promise<T[]> {
  return isPostgres(db) ? pgRows<T>(db, query) : db.all<T>(query);
}

/**
 * A connection of its own to the handle's database, outside the pool (LISTEN holds it for as long
 * as it listens), with the pool's settings; the caller ends it.
 */
export async function pgListener(db: Db): Promise<Client> {
  const pool = db.$client as unknown as { options: ClientConfig };
  const client = new Client({ ...pool.options, application_name: `${pool.options.application_name ?? APPLICATION_NAME} listen` });
  client.on('error', () => undefined);
  await client.connect();
  return client;
}
