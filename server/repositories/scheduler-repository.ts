// Scheduler state: settings, the lease, tick rows, action intents, and the simulator's rows.
// Bulk paths use prepared statements on the raw handle on SQLite: a tick touches every cluster.
import { and, asc, count, desc, eq, gt, inArray, isNotNull, lt, lte, ne, or, sql } from 'drizzle-orm';
import type { Db } from '@/db/open-database';
import type { actionIntents, clusters, schedulerTicks } from '@/db/schema';
import { affectedRows, isPostgres, tablesOf, type Tables } from './dialect';
import { cachedStatement } from './decision-repository';
import { isOneOf, pgListener, pgRun } from './postgres-statement';
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

/** A lease as its holder knows it: the fencing token says which tenure it is. */
export type HeldLease = { name: string; holder: string; fencingToken: number };

/**
 * Takes or renews the named lease for `holder` unless another holder's lease is still valid. One
 * statement, atomic on either database: the upsert writes only when the row is ours or expired,
 * and returns the row only when it wrote. Renewing a valid lease keeps its fencing token; any other
 * taking (another holder's expired lease, a released one, ours after it lapsed) raises it: what was
 * begun under the old token must not act any more.
 */
export async function acquireLease(
  db: Db,
  name: string,
  holder: string,
  nowMs: number,
  ttlMs: number,
): Promise<{ acquired: boolean; holder: string; expiresAt: number; fencingToken: number }> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { schedulerLeases } = tablesOf(db);
  const expiresAt = new Date(nowMs + ttlMs);
  const now = new Date(nowMs);
  const stillOurs = and(eq(schedulerLeases.holder, holder), gt(schedulerLeases.expiresAt, now));
  const [taken] = await db
    .insert(schedulerLeases)
    .values({ name, holder, expiresAt, fencingToken: 1 })
    .onConflictDoUpdate({
      target: schedulerLeases.name,
      set: {
        holder,
        expiresAt,
        fencingToken: sql`case when ${stillOurs} then ${schedulerLeases.fencingToken} else ${schedulerLeases.fencingToken} + 1 end`,
      },
      setWhere: or(eq(schedulerLeases.holder, holder), lte(schedulerLeases.expiresAt, now)),
    })
    .returning({ fencingToken: schedulerLeases.fencingToken });
  if (taken) return { acquired: true, holder, expiresAt: expiresAt.getTime(), fencingToken: taken.fencingToken };
  const [current] = await db.select().from(schedulerLeases).where(eq(schedulerLeases.name, name)).limit(1);
  // (a row that is gone by now: the next attempt takes it)
  return {
    acquired: false,
    holder: current?.holder ?? '',
    expiresAt: current?.expiresAt.getTime() ?? nowMs,
    fencingToken: current?.fencingToken ?? 0,
  };
}

/** the lease row, if `lease` (holder and tenure) is still valid at `nowMs` */
function heldBy(lease: HeldLease, nowMs: number, tables: ReturnType<typeof tablesOf>) {
  const { schedulerLeases } = tables;
  return and(
    eq(schedulerLeases.name, lease.name),
    eq(schedulerLeases.holder, lease.holder),
    eq(schedulerLeases.fencingToken, lease.fencingToken),
    gt(schedulerLeases.expiresAt, new Date(nowMs)),
  );
}

/**
 * Extends `lease` to `nowMs + ttlMs` only while it is still valid and of the same tenure: a
 * renewal never takes a lease over (acquireLease does, at the start of a tick). Returns whether it
 * renewed.
 */
export async function renewLease(db: Db, lease: HeldLease, nowMs: number, ttlMs: number): Promise<boolean> {
  while (connectionHeld(db)) await connectionReleased(db);
  const tables = tablesOf(db);
  const { schedulerLeases } = tables;
  const renewed = await db
    .update(schedulerLeases)
    .set({ expiresAt: new Date(nowMs + ttlMs) })
    .where(heldBy(lease, nowMs, tables))
    .returning({ name: schedulerLeases.name });
  return renewed.length === 1;
}

/**
 * The lease's expiry when `lease` (holder and fencing token) is still valid at `nowMs`, else null:
 * a read, the fence before acting (also inside the transaction that records an action, so that it
 * commits only while the lease is ours).
 */
export async function leaseValidUntil(db: Db, lease: HeldLease, nowMs: number): Promise<number | null> {
  while (connectionHeld(db)) await connectionReleased(db);
  const tables = tablesOf(db);
  const [row] = await db
    .select({ expiresAt: tables.schedulerLeases.expiresAt })
    .from(tables.schedulerLeases)
    .where(heldBy(lease, nowMs, tables))
    .limit(1);
  return row ? row.expiresAt.getTime() : null;
}

/**
 * Gives the lease up at shutdown, so a standby takes over at its next tick instead of after the
 * TTL. The row stays, expired, so the next holder's fencing token is still a new one.
 */
export async function releaseLease(db: Db, name: string, holder: string): Promise<boolean> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { schedulerLeases } = tablesOf(db);
  const released = await db
    .update(schedulerLeases)
    .set({ expiresAt: new Date(0) })
    .where(and(eq(schedulerLeases.name, name), eq(schedulerLeases.holder, holder), gt(schedulerLeases.expiresAt, new Date(0))))
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
  // PostgreSQL: every replica's open pages hear of it when (and only if) this commits
  if (isPostgres(db))
    await pgRun(db, sql`select pg_notify(${TICKS_CHANNEL}, ${JSON.stringify({ id, finishedAt: v.finishedAt.toISOString() })})`);
}

/** the LISTEN/NOTIFY channel finished ticks are announced on (PostgreSQL) */
const TICKS_CHANNEL = 'fleetplan_ticks';

/**
 * PostgreSQL: calls `onTick` with each tick any replica finishes from now on (LISTEN on a
 * connection of its own, outside the pool) until the returned `stop` is called; `onLost` when the
 * connection breaks (the caller reads the latest tick itself meanwhile and listens again). SQLite
 * has no notifications: null.
 */
export async function listenForFinishedTicks(
  db: Db,
  onTick: (tick: { id: number; finishedAt: string }) => void,
  onLost: (err: Error) => void,
): Promise<{ stop(): Promise<void> } | null> {
  if (!isPostgres(db)) return null;
  const client = await pgListener(db);
  client.on('notification', (n: { channel: string; payload?: string }) => {
    if (n.channel !== TICKS_CHANNEL || !n.payload) return;
    try {
      onTick(JSON.parse(n.payload) as { id: number; finishedAt: string });
    } catch {
      // a payload of another writer of the channel: not ours to read
    }
  });
  // a broken connection can report more than one error: the caller hears of the loss once (it
  // listens again on a new connection; a second call would open another beside it)
  let lost = false;
  client.on('error', (err: Error) => {
    if (lost) return;
    lost = true;
    onLost(err);
  });
  await client.query(`LISTEN ${TICKS_CHANNEL}`);
  return { stop: () => client.end().catch(() => undefined) };
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

/** findIntentId for many keys at once: the id of each key that has an intent (one read). */
export async function findIntentIds(db: Db, keys: readonly string[]): Promise<Map<string, number>> {
  while (connectionHeld(db)) await connectionReleased(db);
  if (keys.length === 0) return new Map();
  const { actionIntents } = tablesOf(db);
  const rows = await db
    .select({ id: actionIntents.id, key: actionIntents.idempotencyKey })
    .from(actionIntents)
    .where(isOneOf(db, actionIntents.idempotencyKey, keys, 'text'));
  return new Map(rows.map((r) => [r.key, r.id]));
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
