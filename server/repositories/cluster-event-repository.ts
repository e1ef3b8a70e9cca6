// Recent engine decisions and provider actions recorded for one cluster (its "events").
import { and, desc, eq } from 'drizzle-orm';
import type { Db } from '@/db/open-database';
import { actionIntents, decisions } from '@/db/schema';

/** The cluster's recent decisions (the organization's cluster of that name). */
export function listRecentDecisions(db: Db, organizationId: number, clusterName: string, limit = 25) {
  return db
    .select()
    .from(decisions)
    .where(and(eq(decisions.organizationId, organizationId), eq(decisions.clusterName, clusterName)))
    .orderBy(desc(decisions.at), desc(decisions.id))
    .limit(limit)
    .all();
}

/** The cluster's recent provider actions (the organization's cluster of that name). */
export function listRecentActions(db: Db, organizationId: number, clusterName: string, limit = 25) {
  return db
    .select()
    .from(actionIntents)
    .where(and(eq(actionIntents.organizationId, organizationId), eq(actionIntents.clusterName, clusterName)))
    .orderBy(desc(actionIntents.createdAt), desc(actionIntents.id))
    .limit(limit)
    .all();
}
