// Raw statements on a PostgreSQL handle, for the repositories' PostgreSQL branches: aggregates
// and bulk writes the shared query builder cannot say (jsonb functions, `insert … select from
// jsonb_to_recordset`). The `Db` type is SQLite's (dialect.ts), so node-postgres' `execute` is
// reached here, once, rather than cast in every repository.
import type { SQL } from 'drizzle-orm';
import type { Db } from '@/db/open-database';
import { isPostgres } from './dialect';

interface PostgresExecute {
  execute<T>(query: SQL): Promise<{ rows: T[]; rowCount: number | null }>;
}

/** The rows `query` returns on a PostgreSQL handle (its aliases as written: quote camelCase ones). */
export async function pgRows<T>(db: Db, query: SQL): Promise<T[]> {
  return (await (db as unknown as PostgresExecute).execute<T>(query)).rows;
}

/** Runs a writing `query` on a PostgreSQL handle; returns how many rows it touched. */
export async function pgRun(db: Db, query: SQL): Promise<number> {
  return (await (db as unknown as PostgresExecute).execute(query)).rowCount ?? 0;
}

/** The rows a raw statement written for both dialects returns, on either database. */
export async function rowsOnEither<T>(db: Db, query: SQL): Promise<T[]> {
  return isPostgres(db) ? pgRows<T>(db, query) : db.all<T>(query);
}
