// How much a database holds, in the terms an operator cares about before replacing it
// (`npm run db:seed -- --reset` says what it would delete).
import { count } from 'drizzle-orm';
import type { SQLiteTable } from 'drizzle-orm/sqlite-core';
import type { Db } from '@/db/open-database';
import { tablesOf } from './dialect';
import { connectionHeld, connectionReleased, readTogether } from './transaction';

export interface DatabaseContents {
  organizations: number;
  clusters: number;
  policyRevisions: number;
  users: number;
  apiTokens: number;
  webhooks: number;
}

export async function countDatabaseContents(db: Db): Promise<DatabaseContents> {
  while (connectionHeld(db)) await connectionReleased(db);
  const t = tablesOf(db);
  const rowsOf = async (table: SQLiteTable) => (await db.select({ n: count() }).from(table))[0]!.n;
  return readTogether(db, async () => ({
    organizations: await rowsOf(t.organizations),
    clusters: await rowsOf(t.clusters),
    policyRevisions: await rowsOf(t.policyRevisions),
    users: await rowsOf(t.users),
    apiTokens: await rowsOf(t.apiTokens),
    webhooks: await rowsOf(t.webhooks),
  }));
}
