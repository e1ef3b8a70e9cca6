// Readiness probe: the cheapest statement that proves the database answers.
import { sql } from 'drizzle-orm';
import type { Db } from '@/db/open-database';

/** Throws when the database cannot answer a trivial query. */
export function pingDatabase(db: Db): void {
  db.get(sql`select 1`);
}
