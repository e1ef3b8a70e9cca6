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
