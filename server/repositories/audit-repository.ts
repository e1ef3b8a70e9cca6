// The append-only audit log: who did what, when, to what, with the value before and after.
// Deliberately no update or delete: rows are written once and only read afterwards.
import type { Db } from '@/db/open-database';
import { and, count, desc, eq, gte, isNull, lt, lte, or, sql, type SQL } from 'drizzle-orm';
import type { auditLog } from '@/db/schema';
import { isPostgres, tablesOf } from './dialect';
import { connectionHeld, connectionReleased, readTogether } from './transaction';

export type AuditRow = typeof auditLog.$inferSelect;

export interface AuditEntry {
  at: Date;
  actor: string;
  /** e.g. `policy.organization.update`, `policy.freeze` */
  action: string;
  /** e.g. `organization:demo`, `cluster:hive-prod-01` */
  target: string;
  before?: unknown;
  after?: unknown;
  /**
   * the organization the change belongs to, or null for the instance's own (users, tokens,
   * graphs, the scheduler): required, so every writer decides whose row it is (who may read it)
   */
  organizationId: number | null;
}

export async function appendAudit(db: Db, entry: AuditEntry): Promise<number> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { auditLog } = tablesOf(db);
  return (
    await db
      .insert(auditLog)
      .values({
        at: entry.at,
        actor: entry.actor,
        action: entry.action,
        target: entry.target,
        before: entry.before ?? null,
        after: entry.after ?? null,
        organizationId: entry.organizationId,
      })
      .returning({ id: auditLog.id })
  )[0]!.id;
}

export interface AuditFilter {
  actor?: string;
  /** exact action, or a prefix ending in `.` / `*` (`policy.` matches every policy action) */
  action?: string;
  target?: string;
  /** a substring of the target (a cluster's name finds `cluster:NAME` and `exclusion:NAME`) */
  targetContains?: string;
  from?: Date;
  /** exclusive */
  to?: Date;
  /** inclusive, for filters that name the last instant they want */
  through?: Date;
  /**
   * leave out the audit row a policy revision was written with (same instant, actor and
   * `scope:subject`): the revision is the change's entry, with its number and summary
   */
  skipPolicyRevisions?: boolean;
  /** this organization's rows and the instance's own (organization_id null); undefined = every row */
  organizationOrInstance?: number;
}

/**
 * The actions that are the instance's own (users, sign-ins, tokens, graphs, the scheduler, instance-wide
 * blocked versions). Only these rows without an organization are shown beside an organization's: a
 * row written before rows named their organization, that the migration could not place (a deleted
 * webhook, a cluster name two organizations share), stays for the instance's admins.
 */
const INSTANCE_ACTION_PREFIXES = ['auth.', 'user.', 'token.', 'graph.', 'scheduler.', 'simulator.', 'instance.', 'database.'];

const likeEscaped = (text: string) => text.replace(/[%_\\]/g, (c) => `\\${c}`);

/**
 * The filter over the handle's own tables (their columns map the dates to each database's form).
 * SQLite's LIKE ignores the case of ASCII letters; PostgreSQL's does not, its ILIKE does.
 */
function whereOf(db: Db, f: AuditFilter): SQL | undefined {
  const { auditLog, policyRevisions } = tablesOf(db);
  const like = sql.raw(isPostgres(db) ? 'ilike' : 'like');
  const parts: SQL[] = [];
  if (f.actor) parts.push(eq(auditLog.actor, f.actor));
  if (f.organizationOrInstance !== undefined)
    parts.push(
      or(
        eq(auditLog.organizationId, f.organizationOrInstance),
        and(isNull(auditLog.organizationId), or(...INSTANCE_ACTION_PREFIXES.map((p) => sql`${auditLog.action} ${like} ${`${p}%`}`))),
      )!,
    );
  if (f.action) {
    const prefix = f.action.endsWith('*') ? f.action.slice(0, -1) : f.action.endsWith('.') ? f.action : null;
    if (prefix !== null) parts.push(sql`${auditLog.action} ${like} ${`${likeEscaped(prefix)}%`} escape '\\'`);
    else parts.push(eq(auditLog.action, f.action));
  }
  if (f.target) parts.push(eq(auditLog.target, f.target));
  if (f.targetContains) parts.push(sql`${auditLog.target} ${like} ${`%${likeEscaped(f.targetContains)}%`} escape '\\'`);
  if (f.from) parts.push(gte(auditLog.at, f.from));
  if (f.to) parts.push(lt(auditLog.at, f.to));
  if (f.through) parts.push(lte(auditLog.at, f.through));
  if (f.skipPolicyRevisions)
    parts.push(
      sql`not exists (select 1 from ${policyRevisions} r where r.at = ${auditLog.at} and r.actor = ${auditLog.actor} and (r.scope || ':' || r.subject) = ${auditLog.target})`,
    );
  return parts.length ? and(...parts) : undefined;
}

/** Newest first. */
export async function listAudit(
  db: Db,
  opts: { filter?: AuditFilter; offset?: number; limit?: number } = {},
): Promise<{ rows: AuditRow[]; total: number }> {
  return readTogether(db, async () => {
    const { auditLog } = tablesOf(db);
    const where = whereOf(db, opts.filter ?? {});
    const rows = await db
      .select()
      .from(auditLog)
      .where(where)
      .orderBy(desc(auditLog.at), desc(auditLog.id))
      .limit(opts.limit ?? 100)
      .offset(opts.offset ?? 0);
    const total = (await db.select({ n: count() }).from(auditLog).where(where).limit(1))[0]!.n;
    return { rows, total };
  });
}

export async function countAudit(db: Db, filter: AuditFilter = {}): Promise<number> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { auditLog } = tablesOf(db);
  return (await db.select({ n: count() }).from(auditLog).where(whereOf(db, filter)).limit(1))[0]!.n;
}
