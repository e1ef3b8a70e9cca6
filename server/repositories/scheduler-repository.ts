// Scheduler state: settings, the lease, tick rows, action intents, and the simulator's rows.
// Bulk paths use prepared statements on the raw handle on SQLite: a tick touches every cluster.
import { and, asc, count, desc, eq, gt, inArray, isNotNull, lt, lte, ne, or, sql } from 'drizzle-orm';
import type { Db } from '@/db/open-database';
import type { actionIntents, clusters, schedulerTicks } from '@/db/schema';
import { affectedRows, isPostgres, tablesOf, type Tables } from './dialect';
import { cachedStatement } from './decision-repository';
import { connectionHeld, connectionReleased, withTransaction } from './transaction';

// Settings and the lease are written once for both databases (dialect.ts): the query builder
// both drizzle dialects share, awaited, on the handle's own tables.

export async function readSetting<T>(db: Db, key: string): Promise<T | undefined> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { settings } = tablesOf(db);
  const [row] = await db.select().from(settings).where(eq(settings.key, key)).limit(1);
  return row ? (row.value as T) : undefined;
}

export async function hasSetting(db: Db, key: string): Promise<boolean> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { settings } = tablesOf(db);
  return (await db.select({ key: settings.key }).from(settings).where(eq(settings.key, key)).limit(1)).length > 0;
}

export async function writeSetting(db: Db, key: string, value: unknown, at: Date): Promise<void> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { settings } = tablesOf(db);
  await db
    .insert(settings)
    .values({ key, value, updatedAt: at })
    .onConflictDoUpdate({ target: settings.key, set: { value, updatedAt: at } });
}

// ---- names shared by the scheduler and the services that show and steer it ---------------

/** the lease only one scheduler process holds at a time */
export const SCHEDULER_LEASE_NAME = 'scheduler';
/** settings: the scheduler paused by an operator; the health gate on or off */
export const SCHEDULER_PAUSED_SETTING = 'scheduler.paused';
export const HEALTH_GATE_SETTING = 'scheduler.healthGate';

// ---- lease -------------------------------------------------------------------------------

/**
 * Takes or renews the named lease for `holder` unless another holder's lease is still valid. One
 * statement, atomic on either database: the upsert writes only when the row is ours or expired,
 * and returns the row only when it wrote.
 */
export async function acquireLease(
  db: Db,
  name: string,
  holder: string,
  nowMs: number,
  ttlMs: number,
): Promise<{ acquired: boolean; holder: string; expiresAt: number }> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { schedulerLeases } = tablesOf(db);
  const expiresAt = new Date(nowMs + ttlMs);
  const [taken] = await db
    .insert(schedulerLeases)
    .values({ name, holder, expiresAt })
    .onConflictDoUpdate({
      target: schedulerLeases.name,
      set: { holder, expiresAt },
      setWhere: or(eq(schedulerLeases.holder, holder), lte(schedulerLeases.expiresAt, new Date(nowMs))),
    })
    .returning({ holder: schedulerLeases.holder });
  if (taken) return { acquired: true, holder, expiresAt: expiresAt.getTime() };
  const [current] = await db.select().from(schedulerLeases).where(eq(schedulerLeases.name, name)).limit(1);
  // (a row that is gone again by now: someone released it; the next attempt takes it)
  return { acquired: false, holder: current?.holder ?? '', expiresAt: current?.expiresAt.getTime() ?? nowMs };
}

/**
 * Extends `holder`'s lease to `nowMs + ttlMs` only while it still holds a valid one: a renewal
 * never takes a lease over (acquireLease does, at the start of a tick). Returns whether it renewed.
 */
export async function renewLease(db: Db, name: string, holder: string, nowMs: number, ttlMs: number): Promise<boolean> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { schedulerLeases } = tablesOf(db);
  const renewed = await db
    .update(schedulerLeases)
    .set({ expiresAt: new Date(nowMs + ttlMs) })
    .where(and(eq(schedulerLeases.name, name), eq(schedulerLeases.holder, holder), gt(schedulerLeases.expiresAt, new Date(nowMs))))
    .returning({ name: schedulerLeases.name });
  return renewed.length === 1;
}

/** Whether `holder` holds a lease that is valid at `nowMs` (read only: a fence before acting). */
export async function holdsLease(db: Db, name: string, holder: string, nowMs: number): Promise<boolean> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { schedulerLeases } = tablesOf(db);
  const [row] = await db.select().from(schedulerLeases).where(eq(schedulerLeases.name, name)).limit(1);
  return row !== undefined && row.holder === holder && row.expiresAt.getTime() > nowMs;
}

/** Gives the lease up at shutdown, so a standby takes over at its next tick instead of after the TTL. */
export async function releaseLease(db: Db, name: string, holder: string): Promise<boolean> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { schedulerLeases } = tablesOf(db);
  const released = await db
    .delete(schedulerLeases)
    .where(and(eq(schedulerLeases.name, name), eq(schedulerLeases.holder, holder)))
    .returning({ name: schedulerLeases.name });
  return released.length === 1;
}

export async function getLease(db: Db, name: string) {
  while (connectionHeld(db)) await connectionReleased(db);
  const { schedulerLeases } = tablesOf(db);
  const [row] = await db.select().from(schedulerLeases).where(eq(schedulerLeases.name, name)).limit(1);
  return row;
}

// ---- ticks -------------------------------------------------------------------------------

export type TickRow = typeof schedulerTicks.$inferSelect;

export async function insertTick(db: Db, v: { startedAt: Date; dryRun: boolean; holder: string }): Promise<number> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { schedulerTicks } = tablesOf(db);
  return (
    await db
      .insert(schedulerTicks)
      .values({ startedAt: v.startedAt, dryRun: v.dryRun, holder: v.holder, status: 'running' })
      .returning({ id: schedulerTicks.id })
  )[0]!.id;
}

export async function finishTick(
  db: Db,
  id: number,
  v: { finishedAt: Date; status: 'succeeded' | 'failed'; summary?: Record<string, number>; error?: string },
): Promise<void> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { schedulerTicks } = tablesOf(db);
  await db
    .update(schedulerTicks)
    .set({ finishedAt: v.finishedAt, status: v.status, summary: v.summary ?? null, error: v.error ?? null })
    .where(eq(schedulerTicks.id, id));
}

/** Ticks left `running` by a process that died: only called by the lease holder. */
export async function failInterruptedTicks(db: Db, at: Date): Promise<number> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { schedulerTicks } = tablesOf(db);
  return affectedRows(
    await db
      .update(schedulerTicks)
      .set({
        status: 'failed',
        finishedAt: at,
        error: 'interrupted: the process stopped during the tick; its intents are reconciled by the next tick',
      })
      .where(eq(schedulerTicks.status, 'running')),
  );
}

export async function countTicks(db: Db): Promise<number> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { schedulerTicks } = tablesOf(db);
  return (await db.select({ n: count() }).from(schedulerTicks).limit(1))[0]!.n;
}

/** The newest tick that has finished (the pages' "new data" signal), or null before the first. */
export async function latestFinishedTick(db: Db): Promise<{ id: number; finishedAt: Date } | null> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { schedulerTicks } = tablesOf(db);
  const [row] = await db
    .select({ id: schedulerTicks.id, finishedAt: schedulerTicks.finishedAt })
    .from(schedulerTicks)
    .where(isNotNull(schedulerTicks.finishedAt))
    .orderBy(desc(schedulerTicks.id))
    .limit(1);
  return row?.finishedAt ? { id: row.id, finishedAt: row.finishedAt } : null;
}

export async function listRecentTicks(db: Db, limit: number): Promise<TickRow[]> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { schedulerTicks } = tablesOf(db);
  return await db.select().from(schedulerTicks).orderBy(desc(schedulerTicks.id)).limit(limit);
}

/**
 * Deletes the ticks started before `before` that no decision or action intent refers to (the
 * Activity feed shows those with their tick); returns how many. Each call reads the tick ids of
 * the decisions and intents once, so callers run it now and then, not every tick.
 */
export async function pruneOldTicks(db: Db, before: Date): Promise<number> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { schedulerTicks } = tablesOf(db);
  return affectedRows(
    await db
      .delete(schedulerTicks)
      .where(
        and(
          lt(schedulerTicks.startedAt, before),
          sql`${schedulerTicks.id} not in (select tick_id from decisions where tick_id is not null)`,
          sql`${schedulerTicks.id} not in (select tick_id from action_intents where tick_id is not null)`,
        ),
      ),
  );
}

// ---- intents -----------------------------------------------------------------------------

export type IntentRow = typeof actionIntents.$inferSelect;
export const MAX_INTENT_ATTEMPTS = 3;

export async function listPendingIntents(db: Db): Promise<IntentRow[]> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { actionIntents } = tablesOf(db);
  return await db.select().from(actionIntents).where(eq(actionIntents.status, 'pending')).orderBy(actionIntents.id);
}

export async function getIntents(db: Db, ids: number[]): Promise<IntentRow[]> {
  while (connectionHeld(db)) await connectionReleased(db);
  if (ids.length === 0) return [];
  const { actionIntents } = tablesOf(db);
  return await db.select().from(actionIntents).where(inArray(actionIntents.id, ids)).orderBy(actionIntents.id);
}

/** The id of the intent with this idempotency key, or null. */
export async function findIntentId(db: Db, key: string): Promise<number | null> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { actionIntents } = tablesOf(db);
  const [row] = await db.select({ id: actionIntents.id }).from(actionIntents).where(eq(actionIntents.idempotencyKey, key)).limit(1);
  return row?.id ?? null;
}

/** The intent with this key while it is still pending (neither done nor failed), else null. */
export async function findPendingIntentId(db: Db, key: string): Promise<number | null> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { actionIntents } = tablesOf(db);
  const [row] = await db
    .select({ id: actionIntents.id })
    .from(actionIntents)
    .where(and(eq(actionIntents.idempotencyKey, key), eq(actionIntents.status, 'pending')))
    .limit(1);
  return row?.id ?? null;
}

export async function markIntentDone(db: Db, id: number, at: Date, note?: string): Promise<void> {
  while (connectionHeld(db)) await connectionReleased(db);
  if (isPostgres(db)) {
    const { actionIntents } = tablesOf(db);
    await db
      .update(actionIntents)
      .set({ status: 'done', doneAt: at, error: note ?? null, attempts: sql`${actionIntents.attempts} + 1` })
      .where(eq(actionIntents.id, id));
    return;
  }
  // SQLite: a cached statement, a tick marks up to one intent per cluster
  (
    await cachedStatement(db, `update action_intents set status = 'done', done_at = ?, error = ?, attempts = attempts + 1 where id = ?`)
  ).run(at.getTime(), note ?? null, id);
}

/** A failed attempt: stays pending (retried by the next tick) until MAX_INTENT_ATTEMPTS. */
export async function markIntentAttemptFailed(db: Db, id: number, at: Date, error: string, final = false): Promise<'pending' | 'failed'> {
  // read, then write: one unit of work, so two failures reported at once both count
  return withTransaction(db, async () => {
    const { actionIntents } = tablesOf(db);
    const [row] = await db.select({ attempts: actionIntents.attempts }).from(actionIntents).where(eq(actionIntents.id, id)).limit(1);
    const attempts = (row?.attempts ?? 0) + 1;
    const status = final || attempts >= MAX_INTENT_ATTEMPTS ? 'failed' : 'pending';
    await db
      .update(actionIntents)
      .set({ status, attempts, error, ...(status === 'failed' ? { doneAt: at } : {}) })
      .where(eq(actionIntents.id, id));
    return status;
  });
}

// ---- simulator ---------------------------------------------------------------------------

export interface SimulatedClusterRow {
  externalId: string;
  name: string;
  version: string;
  channel: string;
  availableUpgrades: string[];
  healthIssues: string[];
  currentUpgrade: (typeof clusters.$inferSelect)['currentUpgrade'];
  /** where the simulated cluster "runs" (the demo seed's region and node count) and its sector */
  region: string;
  nodeCount: number;
  sector: string | null;
}

/** The columns of a simulated cluster, of the handle's own table (their values map per dialect). */
const simulatedColumns = ({ clusters }: Tables) => ({
  externalId: clusters.externalId,
  name: clusters.name,
  version: clusters.version,
  channel: clusters.channel,
  availableUpgrades: clusters.availableUpgrades,
  healthIssues: clusters.healthIssues,
  currentUpgrade: clusters.currentUpgrade,
  region: clusters.region,
  nodeCount: clusters.nodeCount,
  sector: clusters.sector,
});

/** The simulated clusters (of one organization, when given). */
export async function listSimulatedClusters(db: Db, organizationId?: number): Promise<SimulatedClusterRow[]> {
  while (connectionHeld(db)) await connectionReleased(db);
  const tables = tablesOf(db);
  const { clusters } = tables;
  return await db
    .select(simulatedColumns(tables))
    .from(clusters)
    .where(
      organizationId === undefined
        ? eq(clusters.provider, 'simulator')
        : and(eq(clusters.provider, 'simulator'), eq(clusters.organizationId, organizationId)),
    )
    .orderBy(clusters.position, clusters.id);
}

/** One simulated cluster by its provider id (of `organizationId` when given): a tick asks for thousands. */
export async function findSimulatedCluster(db: Db, externalId: string, organizationId?: number): Promise<SimulatedClusterRow | undefined> {
  while (connectionHeld(db)) await connectionReleased(db);
  const tables = tablesOf(db);
  const { clusters } = tables;
  return (
    await db
      .select(simulatedColumns(tables))
      .from(clusters)
      .where(
        organizationId === undefined
          ? and(eq(clusters.provider, 'simulator'), eq(clusters.externalId, externalId))
          : and(eq(clusters.provider, 'simulator'), eq(clusters.externalId, externalId), eq(clusters.organizationId, organizationId)),
      )
      .orderBy(clusters.position, clusters.id)
      .limit(1)
  )[0];
}

/** Switches a simulated cluster's channel (the simulator's only state is the cluster row); false when it was on it already. */
export async function setSimulatedChannel(db: Db, externalId: string, channel: string): Promise<boolean> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { clusters } = tablesOf(db);
  const res = await db
    .update(clusters)
    .set({ channel })
    .where(and(eq(clusters.externalId, externalId), eq(clusters.provider, 'simulator'), ne(clusters.channel, channel)));
  return affectedRows(res) > 0;
}

/**
 * The simulator's "API": set an upgrade when the cluster has none (or the same one), or clear
 * the scheduled upgrade to `clearVersion`. Idempotent, as the real APIs are for our purposes.
 */
export async function setSimulatedUpgrade(
  db: Db,
  externalId: string,
  upgrade: { version: string; nextRun: string; state: 'scheduled' } | null,
  clearVersion: string | null,
): Promise<void> {
  // read, then write: one unit of work, so two callers cannot both set different upgrades
  return withTransaction(db, async () => {
    const { clusters } = tablesOf(db);
    const [row] = await db
      .select({ id: clusters.id, currentUpgrade: clusters.currentUpgrade })
      .from(clusters)
      .where(and(eq(clusters.externalId, externalId), eq(clusters.provider, 'simulator')))
      .limit(1);
    if (!row) return;
    if (upgrade) {
      if (row.currentUpgrade && row.currentUpgrade.version !== upgrade.version)
        throw new Error(`cluster ${externalId} already has an upgrade to ${row.currentUpgrade.version}`);
      if (row.currentUpgrade) return;
      await db.update(clusters).set({ currentUpgrade: upgrade, upgradeState: 'scheduled' }).where(eq(clusters.id, row.id));
    } else if (row.currentUpgrade && row.currentUpgrade.version === clearVersion && row.currentUpgrade.state === 'scheduled') {
      await db.update(clusters).set({ currentUpgrade: null, upgradeState: 'idle' }).where(eq(clusters.id, row.id));
    }
  });
}

export async function listSectorNames(db: Db, organizationId: number): Promise<string[]> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { sectors } = tablesOf(db);
  return (
    await db
      .select({ name: sectors.name })
      .from(sectors)
      .where(eq(sectors.organizationId, organizationId))
      .orderBy(asc(sectors.position), asc(sectors.id))
  ).map((r) => r.name);
}
