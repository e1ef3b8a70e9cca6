// Upgrade attempts and their transitions (server/domain/lifecycle/machine.ts). An attempt is one
// row per (cluster, target version, slot); every state change writes one transition row in the
// same call, so the history never misses a step nor holds one twice.
import { and, count, desc, eq, gte, inArray, isNull, lte, notInArray, sql } from 'drizzle-orm';
import type { Db } from '@/db/open-database';
import type { upgradeLifecycles, upgradeLifecycleTransitions } from '@/db/schema';
import {
  FAILURE_STATES,
  FINAL_STATES,
  type LifecycleState,
  type LifecycleTransition,
  type UpgradeAttempt,
} from '@/server/domain/lifecycle/machine';
import type { EusProcedureProgress } from '@/server/domain/lifecycle/eus-procedure';
import type { LifecycleReason } from '@/server/domain/lifecycle/reasons';
import type { UpgradeResult } from '@/server/domain/plan/canaries';
import { affectedRows, tablesOf } from './dialect';
import { connectionHeld, connectionReleased, readTogether, withTransaction } from './transaction';

export type LifecycleRow = typeof upgradeLifecycles.$inferSelect;
export type LifecycleTransitionRow = typeof upgradeLifecycleTransitions.$inferSelect;

/** A stored attempt in the domain's form, with what the repository adds (cluster id, sector, ...). */
export interface StoredAttempt extends UpgradeAttempt {
  clusterId: number;
  sector: string | null;
  haltsOnFailure: boolean;
  acknowledgedBy: string | null;
  acknowledgedAt: number | null;
  acknowledgeComment: string | null;
}

const ms = (d: Date | null) => (d ? d.getTime() : null);
const date = (n: number | null) => (n === null ? null : new Date(n));

export function toStoredAttempt(r: LifecycleRow): StoredAttempt {
  return {
    id: r.id,
    clusterId: r.clusterId,
    cluster: r.clusterName,
    sector: r.sector,
    fromVersion: r.fromVersion,
    toVersion: r.toVersion,
    slot: r.slot.getTime(),
    channel: r.channel,
    state: r.state,
    reason: r.reason as LifecycleReason | null,
    message: r.message,
    haltsOnFailure: r.haltsOnFailure,
    noticeAt: ms(r.noticeAt),
    startRequestedAt: ms(r.startRequestedAt),
    startConfirmedAt: ms(r.startConfirmedAt),
    runningAt: ms(r.runningAt),
    providerDoneAt: ms(r.providerDoneAt),
    finishedAt: ms(r.finishedAt),
    operatorApprovals: r.operatorApprovals ?? null,
    eusProcedure: r.eusProcedure ?? null,
    acknowledgedBy: r.acknowledgedBy,
    acknowledgedAt: ms(r.acknowledgedAt),
    acknowledgeComment: r.acknowledgeComment,
  };
}

export interface NewAttempt {
  clusterId: number;
  clusterName: string;
  sector: string | null;
  fromVersion: string;
  toVersion: string;
  slot: number;
  /** the channel the start switches the cluster to first (the engine's decision for a route's hop), if any */
  channel?: string | null;
  /** an EUS-to-EUS control-plane-only run's record (its route); toVersion is the route's end */
  eusProcedure?: EusProcedureProgress | null;
  haltsOnFailure: boolean;
  at: number;
  actor: string;
  tickId: number | null;
  message: string;
}

/**
 * Creates an attempt in `scheduled` with its first transition row. Null when the cluster already
 * has an attempt for this version and slot (whatever its state): a slot is tried once.
 */
export async function insertAttempt(db: Db, v: NewAttempt): Promise<StoredAttempt | null> {
  return withTransaction(db, async () => {
    const { upgradeLifecycles, upgradeLifecycleTransitions } = tablesOf(db);
    const [row] = await db
      .insert(upgradeLifecycles)
      .values({
        clusterId: v.clusterId,
        clusterName: v.clusterName,
        sector: v.sector,
        fromVersion: v.fromVersion,
        toVersion: v.toVersion,
        slot: new Date(v.slot),
        channel: v.channel ?? null,
        eusProcedure: v.eusProcedure ?? null,
        state: 'scheduled',
        message: v.message,
        haltsOnFailure: v.haltsOnFailure,
        createdAt: new Date(v.at),
        updatedAt: new Date(v.at),
      })
      .onConflictDoNothing()
      .returning();
    if (!row) return null;
    await db.insert(upgradeLifecycleTransitions).values({
      lifecycleId: row.id,
      at: new Date(v.at),
      fromState: null,
      toState: 'scheduled',
      message: v.message,
      actor: v.actor,
      tickId: v.tickId,
    });
    return toStoredAttempt(row);
  });
}

/** rows per statement of a batch insert: well under either driver's limit on parameters (13 a row) */
const INSERT_CHUNK = 1000;

/**
 * insertAttempt for many attempts at once (a tick's new attempts): one insert of the attempts and
 * one of their first transitions, per chunk, on either database. The result is in the order of
 * `attempts`: null where the cluster already has an attempt for that version and slot (a slot is
 * tried once), also for the later of two equal ones in the batch.
 */
export async function insertAttempts(db: Db, attempts: readonly NewAttempt[]): Promise<(StoredAttempt | null)[]> {
  if (attempts.length === 0) return [];
  return withTransaction(db, async () => {
    const { upgradeLifecycles, upgradeLifecycleTransitions } = tablesOf(db);
    const created: (StoredAttempt | null)[] = [];
    for (let from = 0; from < attempts.length; from += INSERT_CHUNK) {
      const chunk = attempts.slice(from, from + INSERT_CHUNK);
      const rows = await db
        .insert(upgradeLifecycles)
        .values(
          chunk.map((v) => ({
            clusterId: v.clusterId,
            clusterName: v.clusterName,
            sector: v.sector,
            fromVersion: v.fromVersion,
            toVersion: v.toVersion,
            slot: new Date(v.slot),
            channel: v.channel ?? null,
            eusProcedure: v.eusProcedure ?? null,
            state: 'scheduled' as const,
            message: v.message,
            haltsOnFailure: v.haltsOnFailure,
            createdAt: new Date(v.at),
            updatedAt: new Date(v.at),
          })),
        )
        .onConflictDoNothing()
        .returning();
      // the rows come back without their input's position: matched by the slot's unique key
      // (cluster, version, slot), the first of equal inputs taking the row
      const slotKey = (clusterId: number, toVersion: string, slot: number) => JSON.stringify([clusterId, toVersion, slot]);
      const inserted = new Map(rows.map((r) => [slotKey(r.clusterId, r.toVersion, r.slot.getTime()), r]));
      const matched = chunk.map((v) => {
        const key = slotKey(v.clusterId, v.toVersion, v.slot);
        const row = inserted.get(key);
        inserted.delete(key);
        return row ?? null;
      });
      const firstTransitions = chunk.flatMap((v, i) => {
        const row = matched[i];
        return row
          ? [
              {
                lifecycleId: row.id,
                at: new Date(v.at),
                fromState: null,
                toState: 'scheduled' as const,
                message: v.message,
                actor: v.actor,
                tickId: v.tickId,
              },
            ]
          : [];
      });
      if (firstTransitions.length > 0) await db.insert(upgradeLifecycleTransitions).values(firstTransitions);
      created.push(...matched.map((row) => (row ? toStoredAttempt(row) : null)));
    }
    return created;
  });
}

const FINAL = [...FINAL_STATES];
const FAILURES = [...FAILURE_STATES];

/** The attempts of one organization's clusters (every attempt when `organizationId` is undefined). */
function ofOrganization(db: Db, organizationId: number | undefined) {
  const { clusters, upgradeLifecycles } = tablesOf(db);
  return organizationId === undefined
    ? undefined
    : inArray(
        upgradeLifecycles.clusterId,
        db.select({ id: clusters.id }).from(clusters).where(eq(clusters.organizationId, organizationId)),
      );
}

/** Attempts not in a final state, oldest first (of one organization's clusters, when given). */
export async function listActiveAttempts(db: Db, organizationId?: number): Promise<StoredAttempt[]> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { upgradeLifecycles } = tablesOf(db);
  return (
    await db
      .select()
      .from(upgradeLifecycles)
      .where(and(notInArray(upgradeLifecycles.state, FINAL), ofOrganization(db, organizationId)))
      .orderBy(upgradeLifecycles.id)
  ).map(toStoredAttempt);
}

/** Failed or timed-out attempts nobody acknowledged yet (of one organization's clusters, when given). */
export async function listUnacknowledgedFailures(db: Db, organizationId?: number): Promise<StoredAttempt[]> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { upgradeLifecycles } = tablesOf(db);
  return (
    await db
      .select()
      .from(upgradeLifecycles)
      .where(and(inArray(upgradeLifecycles.state, FAILURES), isNull(upgradeLifecycles.acknowledgedAt), ofOrganization(db, organizationId)))
      .orderBy(upgradeLifecycles.id)
  ).map(toStoredAttempt);
}

/**
 * The canary rule's input (server/domain/plan/canaries.ts) for the clusters of `sectors`: every
 * completed attempt (when it finished) and every failure nobody acknowledged yet, oldest first.
 * By the attempt's sector: a cluster moved into a canary sector brings no earlier record, and a
 * canary without one counts as having soaked what it runs.
 */
export async function listUpgradeResults(db: Db, organizationId: number, sectors: readonly string[]): Promise<UpgradeResult[]> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { upgradeLifecycles } = tablesOf(db);
  if (sectors.length === 0) return [];
  return (
    await db
      .select({
        id: upgradeLifecycles.id,
        cluster: upgradeLifecycles.clusterName,
        version: upgradeLifecycles.toVersion,
        state: upgradeLifecycles.state,
        finishedAt: upgradeLifecycles.finishedAt,
        updatedAt: upgradeLifecycles.updatedAt,
      })
      .from(upgradeLifecycles)
      .where(
        and(
          inArray(upgradeLifecycles.sector, [...sectors]),
          ofOrganization(db, organizationId),
          sql`(${upgradeLifecycles.state} = 'completed' or (${inArray(upgradeLifecycles.state, FAILURES)} and ${isNull(upgradeLifecycles.acknowledgedAt)}))`,
        ),
      )
      .orderBy(upgradeLifecycles.id)
  ).map((r) => ({
    cluster: r.cluster,
    version: r.version,
    outcome: r.state === 'completed' ? ('completed' as const) : ('failed' as const),
    at: (r.finishedAt ?? r.updatedAt).getTime(),
    attempt: r.id,
  }));
}

export async function getAttempt(db: Db, id: number): Promise<StoredAttempt | null> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { upgradeLifecycles } = tablesOf(db);
  const [row] = await db.select().from(upgradeLifecycles).where(eq(upgradeLifecycles.id, id)).limit(1);
  return row ? toStoredAttempt(row) : null;
}

/** The cluster's most recent attempts, newest first. */
export async function listClusterAttempts(db: Db, clusterId: number, limit: number): Promise<StoredAttempt[]> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { upgradeLifecycles } = tablesOf(db);
  return (
    await db
      .select()
      .from(upgradeLifecycles)
      .where(eq(upgradeLifecycles.clusterId, clusterId))
      .orderBy(desc(upgradeLifecycles.slot), desc(upgradeLifecycles.id))
      .limit(limit)
  ).map(toStoredAttempt);
}

export async function listAttemptTransitions(db: Db, lifecycleIds: number[]): Promise<LifecycleTransitionRow[]> {
  while (connectionHeld(db)) await connectionReleased(db);
  if (lifecycleIds.length === 0) return [];
  const { upgradeLifecycleTransitions } = tablesOf(db);
  return await db
    .select()
    .from(upgradeLifecycleTransitions)
    .where(inArray(upgradeLifecycleTransitions.lifecycleId, lifecycleIds))
    .orderBy(upgradeLifecycleTransitions.at, upgradeLifecycleTransitions.id);
}

/**
 * Writes the attempt after a lifecycle step and one row per transition. Guarded by the state the
 * step started from: false (nothing written) when another process moved the attempt meanwhile.
 */
export async function saveAttemptStep(
  db: Db,
  fromState: LifecycleState,
  a: UpgradeAttempt,
  transitions: readonly LifecycleTransition[],
  meta: { at: number; actor: string; tickId: number | null },
): Promise<boolean> {
  return withTransaction(db, async () => {
    const { upgradeLifecycles, upgradeLifecycleTransitions } = tablesOf(db);
    const res = await db
      .update(upgradeLifecycles)
      .set({
        state: a.state,
        reason: a.reason,
        message: a.message,
        updatedAt: new Date(meta.at),
        noticeAt: date(a.noticeAt),
        startRequestedAt: date(a.startRequestedAt),
        startConfirmedAt: date(a.startConfirmedAt),
        runningAt: date(a.runningAt),
        providerDoneAt: date(a.providerDoneAt),
        finishedAt: date(a.finishedAt),
        operatorApprovals: a.operatorApprovals,
        eusProcedure: a.eusProcedure,
      })
      .where(and(eq(upgradeLifecycles.id, a.id), eq(upgradeLifecycles.state, fromState)));
    if (affectedRows(res) !== 1) return false;
    if (transitions.length > 0)
      await db.insert(upgradeLifecycleTransitions).values(
        transitions.map((t) => ({
          lifecycleId: a.id,
          at: new Date(t.at),
          fromState: t.from,
          toState: t.to,
          reason: t.reason,
          message: t.message,
          actor: meta.actor,
          tickId: meta.tickId,
        })),
      );
    return true;
  });
}

/**
 * Records an operator's acknowledgement of a failed or timed-out attempt (and a transition row
 * naming them). False when the attempt is not an unacknowledged failure.
 */
export async function acknowledgeAttemptFailure(db: Db, id: number, v: { by: string; comment: string; at: number }): Promise<boolean> {
  return withTransaction(db, async () => {
    const { upgradeLifecycles, upgradeLifecycleTransitions } = tablesOf(db);
    const [acknowledged] = await db
      .update(upgradeLifecycles)
      .set({ acknowledgedBy: v.by, acknowledgedAt: new Date(v.at), acknowledgeComment: v.comment, updatedAt: new Date(v.at) })
      .where(and(eq(upgradeLifecycles.id, id), inArray(upgradeLifecycles.state, FAILURES), isNull(upgradeLifecycles.acknowledgedAt)))
      .returning({ state: upgradeLifecycles.state });
    if (!acknowledged) return false;
    await db.insert(upgradeLifecycleTransitions).values({
      lifecycleId: id,
      at: new Date(v.at),
      fromState: acknowledged.state,
      toState: acknowledged.state,
      reason: null,
      message: `failure acknowledged: ${v.comment}`,
      actor: v.by,
      tickId: null,
    });
    return true;
  });
}

export interface TransitionFilter {
  /** only the attempts of this organization's clusters */
  organizationId?: number;
  /** exact cluster name */
  cluster?: string;
  /** the state moved to */
  toState?: string;
  reason?: string;
  from?: Date;
  /** inclusive */
  to?: Date;
}

/** Lifecycle transitions of every attempt, newest first, with the attempt's cluster and versions (Activity). */
export async function listTransitionsPage(db: Db, f: TransitionFilter, offset: number, limit: number) {
  return readTogether(db, async () => {
    const { upgradeLifecycles, upgradeLifecycleTransitions } = tablesOf(db);
    const parts = [
      ofOrganization(db, f.organizationId),
      f.cluster ? eq(upgradeLifecycles.clusterName, f.cluster) : undefined,
      f.toState ? eq(upgradeLifecycleTransitions.toState, f.toState as LifecycleState) : undefined,
      f.reason ? eq(upgradeLifecycleTransitions.reason, f.reason as LifecycleReason) : undefined,
      f.from ? gte(upgradeLifecycleTransitions.at, f.from) : undefined,
      f.to ? lte(upgradeLifecycleTransitions.at, f.to) : undefined,
    ].filter((p) => p !== undefined);
    const where = parts.length ? and(...parts) : undefined;
    const rows = await db
      .select({
        id: upgradeLifecycleTransitions.id,
        lifecycleId: upgradeLifecycleTransitions.lifecycleId,
        at: upgradeLifecycleTransitions.at,
        fromState: upgradeLifecycleTransitions.fromState,
        toState: upgradeLifecycleTransitions.toState,
        reason: upgradeLifecycleTransitions.reason,
        message: upgradeLifecycleTransitions.message,
        actor: upgradeLifecycleTransitions.actor,
        cluster: upgradeLifecycles.clusterName,
        fromVersion: upgradeLifecycles.fromVersion,
        toVersion: upgradeLifecycles.toVersion,
      })
      .from(upgradeLifecycleTransitions)
      .innerJoin(upgradeLifecycles, eq(upgradeLifecycles.id, upgradeLifecycleTransitions.lifecycleId))
      .where(where)
      .orderBy(desc(upgradeLifecycleTransitions.at), desc(upgradeLifecycleTransitions.id))
      .limit(limit)
      .offset(offset);
    const total = (
      await db
        .select({ n: count() })
        .from(upgradeLifecycleTransitions)
        .innerJoin(upgradeLifecycles, eq(upgradeLifecycles.id, upgradeLifecycleTransitions.lifecycleId))
        .where(where)
        .limit(1)
    )[0]!.n;
    return { rows, total };
  });
}
