// The table objects of a handle's dialect. Repository code written against the query builder both
// drizzle dialects share takes its tables from here, so one function runs on SQLite and on
// PostgreSQL (db/postgres-handle.ts). The two schemas have equal row types
// (db/schema-dialects.test.ts), so the PostgreSQL tables are typed as SQLite's.
import type { Db } from '@/db/open-database';
import * as pgSchema from '@/db/pg-schema';
import { isPostgresHandle } from '@/db/postgres-handle';
import * as sqliteSchema from '@/db/schema';

export type Tables = typeof sqliteSchema;

const pgTables = pgSchema as unknown as Tables;

export function tablesOf(db: Db): Tables {
  return isPostgresHandle(db) ? pgTables : sqliteSchema;
}

export { isPostgresHandle as isPostgres };

/** rows an awaited insert/update/delete touched: SQLite's `changes`, PostgreSQL's `rowCount` */
export function affectedRows(result: unknown): number {
  const r = result as { changes?: number; rowCount?: number | null };
  return r.changes ?? r.rowCount ?? 0;
}
