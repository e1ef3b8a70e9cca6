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
import { affectedRows, isPostgres, tablesOf } from './dialect';
import { cachedStatement } from './decision-repository';
import { arrayOf, isOneOf, pgRows, pgRun } from './postgres-statement';
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

/**
 * insertAttempt for many attempts at once (a tick's new attempts). The result is in the order of
 * `attempts`: null where the cluster already has an attempt for that version and slot (a slot is
 * tried once), also for the later of two equal ones in the batch. On PostgreSQL one insert of the
 * attempts, one of their first transitions and one read of the rows (arrays unnested: drizzle
 * takes longer to build a many-row insert than the server to run it); on SQLite prepared
 * statements row by row.
 */
export async function insertAttempts(db: Db, attempts: readonly NewAttempt[]): Promise<(StoredAttempt | null)[]> {
  if (attempts.length === 0) return [];
  return withTransaction(db, async () => {
    if (!isPostgres(db)) return await insertAttemptsOnSqlite(db, attempts);
    const column = <T>(pick: (v: NewAttempt) => T) => arrayOf(attempts, pick);
    const inserted = await pgRows<{ id: number; clusterId: number; toVersion: string; slot: number }>(
      db,
      sql`insert into upgrade_lifecycles (cluster_id, cluster_name, sector, from_version, to_version, slot, channel, eus_procedure,
                                          state, message, halts_on_failure, created_at, updated_at)
          select v.cluster_id, v.cluster_name, v.sector, v.from_version, v.to_version, v.slot, v.channel, v.eus_procedure,
                 'scheduled', v.message, v.halts_on_failure, v.at, v.at
          from unnest(${column((v) => v.clusterId)}::int[], ${column((v) => v.clusterName)}::text[], ${column((v) => v.sector)}::text[],
                      ${column((v) => v.fromVersion)}::text[], ${column((v) => v.toVersion)}::text[],
                      ${column((v) => new Date(v.slot).toISOString())}::timestamptz[], ${column((v) => v.channel ?? null)}::text[],
                      ${column((v) => (v.eusProcedure ? JSON.stringify(v.eusProcedure) : null))}::jsonb[], ${column((v) => v.message)}::text[],
                      ${column((v) => v.haltsOnFailure)}::boolean[], ${column((v) => new Date(v.at).toISOString())}::timestamptz[])
            with ordinality as v(cluster_id, cluster_name, sector, from_version, to_version, slot, channel, eus_procedure, message,
                                 halts_on_failure, at, n)
          order by v.n
          on conflict do nothing
          returning id, cluster_id as "clusterId", to_version as "toVersion", (extract(epoch from slot) * 1000)::float8 as slot`,
    );
    // the rows come back without their input's position: matched by the slot's unique key
    // (cluster, version, slot), the first of equal inputs taking the row (it was inserted first)
    const slotKey = (clusterId: number, toVersion: string, slot: number) => JSON.stringify([clusterId, toVersion, slot]);
    const idOf = new Map(inserted.map((r) => [slotKey(r.clusterId, r.toVersion, r.slot), r.id]));
    const ids = attempts.map((v) => {
      const key = slotKey(v.clusterId, v.toVersion, v.slot);
      const id = idOf.get(key) ?? null;
      idOf.delete(key);
      return id;
    });
    await insertTransitionsOnPostgres(
      db,
      attempts.flatMap((v, i) => {
        const lifecycleId = ids[i];
        if (lifecycleId === null || lifecycleId === undefined) return [];
        return [
          {
            lifecycleId,
            at: v.at,
            fromState: null,
            toState: 'scheduled' as const,
            reason: null,
            message: v.message,
            actor: v.actor,
            tickId: v.tickId,
          },
        ];
      }),
    );
    return readBackAttempts(db, ids);
  });
}

/** insertAttempts on SQLite: prepared statements, one row at a time (what insertAttempt writes), then one read of the rows. */
async function insertAttemptsOnSqlite(db: Db, attempts: readonly NewAttempt[]): Promise<(StoredAttempt | null)[]> {
  const insertRow = await cachedStatement(
    db,
    `insert into upgrade_lifecycles (cluster_id, cluster_name, sector, from_version, to_version, slot, channel, eus_procedure, state, message,
                                     halts_on_failure, created_at, updated_at)
     values (?, ?, ?, ?, ?, ?, ?, ?, 'scheduled', ?, ?, ?, ?) on conflict do nothing returning id`,
  );
  const insertFirstTransition = await cachedStatement(
    db,
    `insert into upgrade_lifecycle_transitions (lifecycle_id, at, from_state, to_state, reason, message, actor, tick_id)
     values (?, ?, null, 'scheduled', null, ?, ?, ?)`,
  );
  const ids = attempts.map((v) => {
    const row = insertRow.get(
      v.clusterId,
      v.clusterName,
      v.sector,
      v.fromVersion,
      v.toVersion,
      v.slot,
      v.channel ?? null,
      v.eusProcedure ? JSON.stringify(v.eusProcedure) : null,
      v.message,
      v.haltsOnFailure ? 1 : 0,
      v.at,
      v.at,
    ) as { id: number } | undefined;
    if (row) insertFirstTransition.run(row.id, v.at, v.message, v.actor, v.tickId);
    return row?.id ?? null;
  });
  return readBackAttempts(db, ids);
}

/**
 * The attempts just inserted, read back as getAttempt reads them (so a batch returns what the
 * one-by-one path returns), in the order of `ids`; null stays null (a slot tried already).
 */
async function readBackAttempts(db: Db, ids: readonly (number | null)[]): Promise<(StoredAttempt | null)[]> {
  const { upgradeLifecycles } = tablesOf(db);
  const createdIds = ids.filter((id) => id !== null);
  const rows = createdIds.length
    ? await db
        .select()
        .from(upgradeLifecycles)
        .where(isOneOf(db, upgradeLifecycles.id, createdIds, 'int'))
    : [];
  const byId = new Map(rows.map((r) => [r.id, toStoredAttempt(r)]));
  return ids.map((id) => (id === null ? null : byId.get(id)!));
}

interface TransitionInsert {
  lifecycleId: number;
  at: number;
  fromState: LifecycleState | null;
  toState: LifecycleState;
  reason: LifecycleReason | null;
  message: string;
  actor: string;
  tickId: number | null;
}

/** The rows recording an attempt's transitions of one step, made by `meta.actor` in tick `meta.tickId`. */
function transitionRows(
  lifecycleId: number,
  transitions: readonly LifecycleTransition[],
  meta: { actor: string; tickId: number | null },
): TransitionInsert[] {
  return transitions.map((t) => ({
    lifecycleId,
    at: t.at,
    fromState: t.from,
    toState: t.to,
    reason: t.reason,
    message: t.message,
    actor: meta.actor,
    tickId: meta.tickId,
  }));
}

/** Many transition rows in one statement on PostgreSQL, in the order given. */
async function insertTransitionsOnPostgres(db: Db, rows: readonly TransitionInsert[]): Promise<void> {
  if (rows.length === 0) return;
  const column = <T>(pick: (t: TransitionInsert) => T) => arrayOf(rows, pick);
  await pgRun(
    db,
    sql`insert into upgrade_lifecycle_transitions (lifecycle_id, at, from_state, to_state, reason, message, actor, tick_id)
        select t.lifecycle_id, t.at, t.from_state, t.to_state, t.reason, t.message, t.actor, t.tick_id
        from unnest(${column((t) => t.lifecycleId)}::int[], ${column((t) => new Date(t.at).toISOString())}::timestamptz[],
                    ${column((t) => t.fromState)}::text[], ${column((t) => t.toState)}::text[], ${column((t) => t.reason)}::text[],
                    ${column((t) => t.message)}::text[], ${column((t) => t.actor)}::text[], ${column((t) => t.tickId)}::int[])
          with ordinality as t(lifecycle_id, at, from_state, to_state, reason, message, actor, tick_id, n)
        order by t.n`,
  );
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
      await db
        .insert(upgradeLifecycleTransitions)
        .values(transitionRows(a.id, transitions, meta).map((t) => ({ ...t, at: new Date(t.at) })));
    return true;
  });
}

export interface AttemptStep {
  /** the state the step started from: the save is guarded by it */
  fromState: LifecycleState;
  attempt: UpgradeAttempt;
  transitions: readonly LifecycleTransition[];
}

/**
 * saveAttemptStep for many attempts at once (a tick's steps that write nothing to the provider),
 * with the same guard each: the result says, in the order of `steps`, which were saved (false:
 * another process moved that attempt meanwhile). On PostgreSQL one update of the attempts and one
 * insert of their transitions (an attempt stepped twice in one batch goes one by one); on SQLite
 * prepared statements step by step.
 */
export async function saveAttemptSteps(
  db: Db,
  steps: readonly AttemptStep[],
  meta: { at: number; actor: string; tickId: number | null },
): Promise<boolean[]> {
  if (steps.length === 0) return [];
  return withTransaction(db, async () => {
    if (!isPostgres(db)) return await saveAttemptStepsOnSqlite(db, steps, meta);
    if (new Set(steps.map((s) => s.attempt.id)).size < steps.length) {
      const saved: boolean[] = [];
      for (const s of steps) saved.push(await saveAttemptStep(db, s.fromState, s.attempt, s.transitions, meta));
      return saved;
    }
    const column = <T>(pick: (s: AttemptStep) => T) => arrayOf(steps, pick);
    const iso = (n: number | null) => (n === null ? null : new Date(n).toISOString());
    const jsonOrNull = (v: unknown) => (v === null || v === undefined ? null : JSON.stringify(v));
    const updated = await pgRows<{ id: number }>(
      db,
      sql`update upgrade_lifecycles l
          set state = v.state, reason = v.reason, message = v.message, updated_at = ${new Date(meta.at).toISOString()}::timestamptz,
              notice_at = v.notice_at, start_requested_at = v.start_requested_at, start_confirmed_at = v.start_confirmed_at,
              running_at = v.running_at, provider_done_at = v.provider_done_at, finished_at = v.finished_at,
              operator_approvals = v.operator_approvals, eus_procedure = v.eus_procedure
          from unnest(${column((s) => s.attempt.id)}::int[], ${column((s) => s.fromState)}::text[], ${column((s) => s.attempt.state)}::text[],
                      ${column((s) => s.attempt.reason)}::text[], ${column((s) => s.attempt.message)}::text[],
                      ${column((s) => iso(s.attempt.noticeAt))}::timestamptz[], ${column((s) => iso(s.attempt.startRequestedAt))}::timestamptz[],
                      ${column((s) => iso(s.attempt.startConfirmedAt))}::timestamptz[], ${column((s) => iso(s.attempt.runningAt))}::timestamptz[],
                      ${column((s) => iso(s.attempt.providerDoneAt))}::timestamptz[], ${column((s) => iso(s.attempt.finishedAt))}::timestamptz[],
                      ${column((s) => jsonOrNull(s.attempt.operatorApprovals))}::jsonb[], ${column((s) => jsonOrNull(s.attempt.eusProcedure))}::jsonb[])
            as v(id, from_state, state, reason, message, notice_at, start_requested_at, start_confirmed_at, running_at, provider_done_at,
                 finished_at, operator_approvals, eus_procedure)
          where l.id = v.id and l.state = v.from_state
          returning l.id as id`,
    );
    const savedIds = new Set(updated.map((r) => r.id));
    const saved = steps.map((s) => savedIds.has(s.attempt.id));
    await insertTransitionsOnPostgres(
      db,
      steps.flatMap((s, i) => (saved[i] ? transitionRows(s.attempt.id, s.transitions, meta) : [])),
    );
    return saved;
  });
}

/** saveAttemptSteps on SQLite: prepared statements, one step at a time (what saveAttemptStep writes). */
async function saveAttemptStepsOnSqlite(
  db: Db,
  steps: readonly AttemptStep[],
  meta: { at: number; actor: string; tickId: number | null },
): Promise<boolean[]> {
  const update = await cachedStatement(
    db,
    `update upgrade_lifecycles set state = ?, reason = ?, message = ?, updated_at = ?, notice_at = ?, start_requested_at = ?,
       start_confirmed_at = ?, running_at = ?, provider_done_at = ?, finished_at = ?, operator_approvals = ?, eus_procedure = ?
     where id = ? and state = ?`,
  );
  const insertTransition = await cachedStatement(
    db,
    `insert into upgrade_lifecycle_transitions (lifecycle_id, at, from_state, to_state, reason, message, actor, tick_id)
     values (?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const json = (v: unknown) => (v === null || v === undefined ? null : JSON.stringify(v));
  return steps.map(({ fromState, attempt: a, transitions }) => {
    const { changes } = update.run(
      a.state,
      a.reason,
      a.message,
      meta.at,
      a.noticeAt,
      a.startRequestedAt,
      a.startConfirmedAt,
      a.runningAt,
      a.providerDoneAt,
      a.finishedAt,
      json(a.operatorApprovals),
      json(a.eusProcedure),
      a.id,
      fromState,
    );
    if (changes !== 1) return false;
    for (const t of transitions) insertTransition.run(a.id, t.at, t.from, t.to, t.reason, t.message, meta.actor, meta.tickId);
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
