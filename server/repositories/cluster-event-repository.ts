// Recent engine decisions and provider actions recorded for one cluster (its "events").
import { desc, eq } from 'drizzle-orm';
import type { Db } from '@/db/open-database';
import { actionIntents, decisions } from '@/db/schema';

export function listRecentDecisions(db: Db, clusterName: string, limit = 25) {
  return db
    .select()
    .from(decisions)
    .where(eq(decisions.clusterName, clusterName))
    .orderBy(desc(decisions.at), desc(decisions.id))
    .limit(limit)
    .all();
}

export function listRecentActions(db: Db, clusterName: string, limit = 25) {
  return db
    .select()
    .from(actionIntents)
    .where(eq(actionIntents.clusterName, clusterName))
    .orderBy(desc(actionIntents.createdAt), desc(actionIntents.id))
    .limit(limit)
    .all();
}
