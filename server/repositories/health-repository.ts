// Readiness probe: the cheapest statement that proves the database answers.
import { sql } from 'drizzle-orm';
import type { Db } from '@/db/open-database';
import { isPostgres } from './dialect';
import { connectionHeld, connectionReleased } from './transaction';

/** Throws when the database cannot answer a trivial query. */
const probe = sql`select 1`;

export async function pingDatabase(db: Db): Promise<void> {
  while (connectionHeld(db)) await connectionReleased(db);
  if (isPostgres(db)) await (db as unknown as { execute(q: typeof probe): Promise<unknown> }).execute(probe);
  else db.get(probe);
}
