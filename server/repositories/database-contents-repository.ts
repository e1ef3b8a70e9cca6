// How much a database holds, in the terms an operator cares about before replacing it
// (`npm run db:seed -- --reset` says what it would delete).
import { sql } from 'drizzle-orm';
import type { SQLiteTable } from 'drizzle-orm/sqlite-core';
import type { Db } from '@/db/open-database';
import * as t from '@/db/schema';
import { connectionHeld, connectionReleased } from './transaction';

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
  const count = (table: SQLiteTable) =>
    db
      .select({ n: sql<number>`count(*)` })
      .from(table)
      .get()!.n;
  return {
    organizations: count(t.organizations),
    clusters: count(t.clusters),
    policyRevisions: count(t.policyRevisions),
    users: count(t.users),
    apiTokens: count(t.apiTokens),
    webhooks: count(t.webhooks),
  };
}
