// Reads for the Activity page: audit log and policy revisions (decisions and intents live in
// decision-repository.ts; audit writes go through audit-repository.ts).
import { and, count, desc, eq, gte, lte, type SQL } from 'drizzle-orm';
import type { Db } from '@/db/open-database';
import { listAudit as listAuditEntries } from './audit-repository';
import { tablesOf } from './dialect';
import { connectionHeld, connectionReleased, readTogether } from './transaction';

export interface ChangeFilter {
  /** policy revisions of this organization only, audit rows of it and of the instance; undefined = every organization's */
  organizationId?: number;
  cluster?: string;
  from?: Date;
  to?: Date;
}

export async function listPolicyRevisions(db: Db, f: ChangeFilter, offset: number, limit: number) {
  return readTogether(db, async () => {
    const { policyRevisions } = tablesOf(db);
    const parts: SQL[] = [];
    if (f.organizationId !== undefined) parts.push(eq(policyRevisions.organizationId, f.organizationId));
    if (f.cluster) parts.push(and(eq(policyRevisions.scope, 'cluster'), eq(policyRevisions.subject, f.cluster))!);
    if (f.from) parts.push(gte(policyRevisions.at, f.from));
    if (f.to) parts.push(lte(policyRevisions.at, f.to));
    const where = parts.length ? and(...parts) : undefined;
    const rows = await db
      .select()
      .from(policyRevisions)
      .where(where)
      .orderBy(desc(policyRevisions.at), desc(policyRevisions.id))
      .limit(limit)
      .offset(offset);
    const total = (await db.select({ n: count() }).from(policyRevisions).where(where).limit(1))[0]!.n;
    return { rows, total };
  });
}

/** Audit entries for the Activity page: its cluster filter matches within the target, its action is a prefix. */
export async function listAudit(db: Db, f: ChangeFilter & { action?: string }, offset: number, limit: number) {
  while (connectionHeld(db)) await connectionReleased(db);
  return await listAuditEntries(db, {
    filter: {
      targetContains: f.cluster,
      action: f.action ? `${f.action}*` : undefined,
      from: f.from,
      through: f.to,
      skipPolicyRevisions: true,
      organizationOrInstance: f.organizationId,
    },
    offset,
    limit,
  });
}
