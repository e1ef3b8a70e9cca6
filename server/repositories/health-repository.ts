// Readiness probe: the cheapest statement that proves the database answers.
import { sql } from 'drizzle-orm';
import type { Db } from '@/db/open-database';
import { isPostgres } from './dialect';
import { pgRows } from './postgres-statement';
import { connectionHeld, connectionReleased } from './transaction';

/** Throws when the database cannot answer a trivial query. */
export async function pingDatabase(db: Db): Promise<void> {
  while (connectionHeld(db)) await connectionReleased(db);
  if (isPostgres(db)) await pgRows(db, sql`select 1`);
  else db.get(sql`select 1`);
}

/**
 * PostgreSQL: how many other connections to this database name themselves `applicationName` (a
 * running fleetplan replica or command). `fleetplan restore` refuses while any is open.
 */
export async function countOtherConnections(db: Db, applicationName: string): Promise<number> {
  const [row] = await pgRows<{ n: number }>(
    db,
    sql`select count(*)::int as n from pg_stat_activity where datname = current_database() and application_name = ${applicationName} and pid <> pg_backend_pid()`,
  );
  return row?.n ?? 0;
}
