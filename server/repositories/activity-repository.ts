// Reads for the Activity page: the audit log (policy revisions: policy-repository.ts; decisions and
// intents: decision-repository.ts; audit writes go through audit-repository.ts).
import type { Db } from '@/db/open-database';
import { listAudit as listAuditEntries } from './audit-repository';
import { connectionHeld, connectionReleased } from './transaction';

export interface ChangeFilter {
  /** policy revisions of this organization only, audit rows of it and of the instance; undefined = every organization's */
  organizationId?: number;
  cluster?: string;
  from?: Date;
  to?: Date;
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
