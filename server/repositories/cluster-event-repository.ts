// Recent engine decisions and provider actions recorded for one cluster (its "events").
import { and, desc, eq } from 'drizzle-orm';
import type { Db } from '@/db/open-database';
import { tablesOf } from './dialect';
import { connectionHeld, connectionReleased } from './transaction';

/** The cluster's recent decisions (the organization's cluster of that name). */
export async function listRecentDecisions(db: Db, organizationId: number, clusterName: string, limit = 25) {
  while (connectionHeld(db)) await connectionReleased(db);
  const { decisions } = tablesOf(db);
  return await db
    .select()
    .from(decisions)
    .where(and(eq(decisions.organizationId, organizationId), eq(decisions.clusterName, clusterName)))
    .orderBy(desc(decisions.at), desc(decisions.id))
    .limit(limit);
}

/** The cluster's recent provider actions (the organization's cluster of that name). */
export async function listRecentActions(db: Db, organizationId: number, clusterName: string, limit = 25) {
  while (connectionHeld(db)) await connectionReleased(db);
  const { actionIntents } = tablesOf(db);
  return await db
    .select()
    .from(actionIntents)
    .where(and(eq(actionIntents.organizationId, organizationId), eq(actionIntents.clusterName, clusterName)))
    .orderBy(desc(actionIntents.createdAt), desc(actionIntents.id))
    .limit(limit);
}
