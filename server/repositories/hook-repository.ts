// Blocking hooks (pre-upgrade / post-upgrade) and their calls, one per (lifecycle, stage, hook).
import { and, count, desc, eq, inArray, isNull, lt, max, ne, or, sql } from 'drizzle-orm';
import type { Db } from '@/db/open-database';
import type { hookCalls, hooks, HookStageValue } from '@/db/schema';
import { pgExecute } from './decision-repository';
import { affectedRows, isPostgres, tablesOf } from './dialect';
import { connectionHeld, connectionReleased } from './transaction';

export type HookRow = typeof hooks.$inferSelect;
export type HookCallRow = typeof hookCalls.$inferSelect;

/** The hooks of one organization. */
export async function listHooks(db: Db, organizationId: number): Promise<HookRow[]> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { hooks } = tablesOf(db);
  return await db.select().from(hooks).where(eq(hooks.organizationId, organizationId)).orderBy(hooks.id);
}

/** A hook of the organization (another organization's id is not found). */
export async function findHook(db: Db, organizationId: number, id: number): Promise<HookRow | undefined> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { hooks } = tablesOf(db);
  return (
    await db
      .select()
      .from(hooks)
      .where(and(eq(hooks.id, id), eq(hooks.organizationId, organizationId)))
      .limit(1)
  )[0];
}

export async function insertHook(db: Db, v: Omit<HookRow, 'id' | 'selector'> & { selector?: string | null }): Promise<HookRow> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { hooks } = tablesOf(db);
  return (await db.insert(hooks).values(v).returning())[0]!;
}

export async function deleteHook(db: Db, id: number): Promise<void> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { hooks } = tablesOf(db);
  await db.delete(hooks).where(eq(hooks.id, id));
}

export async function setHookEnabled(db: Db, id: number, enabled: boolean): Promise<void> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { hooks } = tablesOf(db);
  await db.update(hooks).set({ enabled }).where(eq(hooks.id, id));
}

/** Enabled hooks of `stage` that apply to a cluster of `sector` (organization-wide ones and that sector's). */
export async function listApplicableHooks(
  db: Db,
  organizationId: number,
  sector: string | null,
  stage: HookStageValue,
): Promise<HookRow[]> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { hooks } = tablesOf(db);
  const sectorMatch = sector === null ? isNull(hooks.sector) : or(isNull(hooks.sector), eq(hooks.sector, sector));
  return await db
    .select()
    .from(hooks)
    .where(and(eq(hooks.organizationId, organizationId), eq(hooks.stage, stage), eq(hooks.enabled, true), sectorMatch))
    .orderBy(hooks.id);
}

/** Queues one call per hook; a call that exists for (lifecycle, stage, hook) is left as it is. */
export async function insertHookCalls(
  db: Db,
  calls: { hookId: number; lifecycleId: string; stage: HookStageValue; payload: unknown; requestedAt: Date }[],
): Promise<void> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { hookCalls } = tablesOf(db);
  if (calls.length === 0) return;
  await db
    .insert(hookCalls)
    .values(calls.map((c) => ({ ...c, status: 'pending' as const })))
    .onConflictDoNothing();
}

export async function hasHookCalls(db: Db, lifecycleId: string, stage: HookStageValue): Promise<boolean> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { hookCalls } = tablesOf(db);
  return (
    (
      await db
        .select({ id: hookCalls.id })
        .from(hookCalls)
        .where(and(eq(hookCalls.lifecycleId, lifecycleId), eq(hookCalls.stage, stage)))
        .limit(1)
    ).length > 0
  );
}

export async function listHookCallsFor(
  db: Db,
  lifecycleId: string,
  stage: HookStageValue,
): Promise<(HookCallRow & { hookName: string; timeoutSeconds: number })[]> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { hookCalls, hooks } = tablesOf(db);
  return (
    await db
      .select({ call: hookCalls, hookName: hooks.name, timeoutSeconds: hooks.timeoutSeconds })
      .from(hookCalls)
      .innerJoin(hooks, eq(hooks.id, hookCalls.hookId))
      .where(and(eq(hookCalls.lifecycleId, lifecycleId), eq(hookCalls.stage, stage)))
      .orderBy(hookCalls.id)
  ).map((r) => ({ ...r.call, hookName: r.hookName, timeoutSeconds: r.timeoutSeconds }));
}

export type ClaimedHookCall = HookCallRow & { url: string; secret: string; hookName: string; timeoutSeconds: number };

/** Whether a call waits to be made and nobody holds a live claim on it (a read: idle pollers take no write lock). */
export async function hasDueHookCall(db: Db, nowMs: number): Promise<boolean> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { hookCalls } = tablesOf(db);
  const at = new Date(nowMs);
  return (
    (
      await db
        .select({ id: hookCalls.id })
        .from(hookCalls)
        .where(and(eq(hookCalls.status, 'pending'), or(isNull(hookCalls.claimedUntil), lt(hookCalls.claimedUntil, at))))
        .limit(1)
    ).length > 0
  );
}

/**
 * Claims the oldest pending call for `holder` (one UPDATE, so one process makes each call) until
 * its hook's timeout plus `marginMs` has passed.
 */
export async function claimNextHookCall(db: Db, holder: string, nowMs: number, marginMs: number): Promise<ClaimedHookCall | undefined> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { hookCalls, hooks } = tablesOf(db);
  const claimed = isPostgres(db)
    ? await claimNextHookCallOnPostgres(db, holder, nowMs, marginMs)
    : (db.$client
        .prepare(
          `update hook_calls set claimed_by = ?,
         claimed_until = ? + ? + 1000 * (select timeout_seconds from hooks where hooks.id = hook_calls.hook_id)
       where id = (select id from hook_calls where status = 'pending' and (claimed_until is null or claimed_until < ?) order by id limit 1)
         and status = 'pending' and (claimed_until is null or claimed_until < ?)
       returning id`,
        )
        .get(holder, nowMs, marginMs, nowMs, nowMs) as { id: number } | undefined);
  if (!claimed) return undefined;
  const [row] = await db
    .select({ call: hookCalls, url: hooks.url, secret: hooks.secret, hookName: hooks.name, timeoutSeconds: hooks.timeoutSeconds })
    .from(hookCalls)
    .innerJoin(hooks, eq(hooks.id, hookCalls.hookId))
    .where(eq(hookCalls.id, claimed.id))
    .limit(1);
  return row ? { ...row.call, url: row.url, secret: row.secret, hookName: row.hookName, timeoutSeconds: row.timeoutSeconds } : undefined;
}

/**
 * claimNextHookCall's UPDATE on PostgreSQL: the oldest due call locked with SKIP LOCKED, so two
 * claimers at once take two different calls (or one takes it and the other none), never the same.
 */
async function claimNextHookCallOnPostgres(db: Db, holder: string, nowMs: number, marginMs: number): Promise<{ id: number } | undefined> {
  const now = new Date(nowMs);
  const { rows } = await pgExecute<{ id: number }>(
    db,
    sql`update hook_calls set claimed_by = ${holder},
          claimed_until = ${now}::timestamptz + make_interval(secs => (${marginMs}::float8 / 1000) + (select timeout_seconds from hooks where hooks.id = hook_calls.hook_id))
        where id = (select id from hook_calls where status = 'pending' and (claimed_until is null or claimed_until < ${now})
                    order by id limit 1 for update skip locked)
          and status = 'pending' and (claimed_until is null or claimed_until < ${now})
        returning id`,
  );
  return rows[0];
}

/** Stores the verdict of a claimed call and releases the claim; false when `holder` lost the claim. */
export async function finishClaimedHookCall(
  db: Db,
  id: number,
  holder: string,
  v: Pick<HookCallRow, 'status' | 'reason' | 'answerStatusCode' | 'answer' | 'answeredAt'>,
): Promise<boolean> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { hookCalls } = tablesOf(db);
  return (
    affectedRows(
      await db
        .update(hookCalls)
        .set({ ...v, claimedBy: null, claimedUntil: null })
        .where(and(eq(hookCalls.id, id), eq(hookCalls.claimedBy, holder), eq(hookCalls.status, 'pending'))),
    ) === 1
  );
}

/** Each hook's most recent answered call (for the Scheduler page). */
export async function lastAnsweredCalls(db: Db, hookIds: number[]): Promise<Map<number, HookCallRow>> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { hookCalls } = tablesOf(db);
  if (hookIds.length === 0) return new Map();
  const latest = (
    await db
      .select({ id: max(hookCalls.id) })
      .from(hookCalls)
      .where(and(inArray(hookCalls.hookId, hookIds), ne(hookCalls.status, 'pending')))
      .groupBy(hookCalls.hookId)
  ).flatMap((r) => (r.id === null ? [] : [r.id]));
  if (latest.length === 0) return new Map();
  const rows = await db.select().from(hookCalls).where(inArray(hookCalls.id, latest)).orderBy(desc(hookCalls.id));
  return new Map(rows.map((r) => [r.hookId, r]));
}

export async function countPendingHookCalls(db: Db, hookIds: number[]): Promise<Map<number, number>> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { hookCalls } = tablesOf(db);
  if (hookIds.length === 0) return new Map();
  const rows = await db
    .select({ hookId: hookCalls.hookId, n: count() })
    .from(hookCalls)
    .where(and(inArray(hookCalls.hookId, hookIds), eq(hookCalls.status, 'pending')))
    .groupBy(hookCalls.hookId);
  return new Map(rows.map((r) => [r.hookId, r.n]));
}
