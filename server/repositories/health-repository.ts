// Readiness probe: the cheapest statement that proves the database answers.
import { sql } from 'drizzle-orm';
import type { Db } from '@/db/open-database';
import { connectionHeld, connectionReleased } from './transaction';

/** Throws when the database cannot answer a trivial query. */
export async function pingDatabase(db: Db): Promise<void> {
  while (connectionHeld(db)) await connectionReleased(db);
  db.get(sql`select 1`);
}
