// Webhooks and their delivery log.
import { and, count, desc, eq, inArray, isNull, lt, lte, or, sql } from 'drizzle-orm';
import type { Db } from '@/db/open-database';
import type { webhookDeliveries, webhooks, WebhookEventValue } from '@/db/schema';
import { selectorApplies } from '@/server/domain/labels/selector-scope';
import { findClusterLabels } from '@/server/repositories/cluster-repository';
import { arrayOf, pgExecute } from './postgres-statement';
import { affectedRows, isPostgres, tablesOf } from './dialect';
import { connectionHeld, connectionReleased, readTogether, withTransaction } from './transaction';

export type WebhookRow = typeof webhooks.$inferSelect;
export type DeliveryRow = typeof webhookDeliveries.$inferSelect;

/** The webhooks of one organization. */
export async function listWebhooks(db: Db, organizationId: number): Promise<WebhookRow[]> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { webhooks } = tablesOf(db);
  return await db.select().from(webhooks).where(eq(webhooks.organizationId, organizationId)).orderBy(webhooks.id);
}

/** A webhook of the organization (another organization's id is not found). */
export async function findWebhook(db: Db, organizationId: number, id: number): Promise<WebhookRow | undefined> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { webhooks } = tablesOf(db);
  return (
    await db
      .select()
      .from(webhooks)
      .where(and(eq(webhooks.id, id), eq(webhooks.organizationId, organizationId)))
      .limit(1)
  )[0];
}

export async function insertWebhook(
  db: Db,
  v: Omit<WebhookRow, 'id' | 'organizationId' | 'selector'> & { organizationId?: number | null; selector?: string | null },
): Promise<WebhookRow> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { webhooks } = tablesOf(db);
  return (await db.insert(webhooks).values(v).returning())[0]!;
}

/** Webhooks whose secret is not yet in the encrypted form (`prefix` starts every encrypted one). */
export async function listWebhookSecretsWithout(db: Db, prefix: string): Promise<{ id: number; secret: string }[]> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { webhooks } = tablesOf(db);
  return await db
    .select({ id: webhooks.id, secret: webhooks.secret })
    .from(webhooks)
    .where(sql`substr(${webhooks.secret}, 1, ${prefix.length}) <> ${prefix}`);
}

/** Replaces a secret only if it still has the value read before (a concurrent writer wins). */
export async function replaceWebhookSecret(db: Db, id: number, from: string, to: string): Promise<boolean> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { webhooks } = tablesOf(db);
  return (
    affectedRows(
      await db
        .update(webhooks)
        .set({ secret: to })
        .where(and(eq(webhooks.id, id), eq(webhooks.secret, from))),
    ) === 1
  );
}

export async function deleteWebhook(db: Db, id: number): Promise<void> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { webhooks } = tablesOf(db);
  await db.delete(webhooks).where(eq(webhooks.id, id));
}

/**
 * One pending delivery per enabled webhook subscribed to `event` (no events listed = all): of the
 * organization whose event it is (the scheduler always says which), else of every webhook.
 */
export async function enqueueDeliveries(
  db: Db,
  event: WebhookEventValue,
  payload: unknown,
  at: Date,
  organizationId?: number,
  /** the cluster the event is about: a webhook's label selector narrows to the clusters it matches */
  cluster?: string,
): Promise<number> {
  return enqueueDeliveriesForEvents(db, [{ event, payload, cluster }], at, organizationId);
}

/**
 * enqueueDeliveries for many events at once (a tick's scheduled upgrades): the webhooks read once,
 * each cluster's labels at most once, the deliveries inserted together, in the order one call per
 * event would insert them. How many deliveries were queued.
 */
export async function enqueueDeliveriesForEvents(
  db: Db,
  events: readonly { event: WebhookEventValue; payload: unknown; cluster?: string }[],
  at: Date,
  organizationId?: number,
): Promise<number> {
  if (events.length === 0) return 0;
  return withTransaction(db, async () => {
    const { webhookDeliveries, webhooks } = tablesOf(db);
    const enabled = eq(webhooks.enabled, true);
    const hooks = await db
      .select({ id: webhooks.id, events: webhooks.events, selector: webhooks.selector })
      .from(webhooks)
      .where(organizationId === undefined ? enabled : and(enabled, eq(webhooks.organizationId, organizationId)));
    if (hooks.length === 0) return 0;
    const labels = new Map<string, Record<string, string> | null>();
    const labelsOfCluster = async (cluster: string | undefined) => {
      if (cluster === undefined || organizationId === undefined) return null;
      if (!labels.has(cluster)) labels.set(cluster, await findClusterLabels(db, organizationId, cluster));
      return labels.get(cluster)!;
    };
    const deliveries: (typeof webhookDeliveries.$inferInsert)[] = [];
    for (const { event, payload, cluster } of events)
      for (const h of hooks) {
        if (h.events.length > 0 && !h.events.includes(event)) continue;
        if (h.selector && !selectorApplies(h.selector, await labelsOfCluster(cluster))) continue;
        deliveries.push({ webhookId: h.id, event, payload, status: 'pending', attempts: 0, nextAttemptAt: at, createdAt: at });
      }
    if (!isPostgres(db)) {
      for (const delivery of deliveries) await db.insert(webhookDeliveries).values(delivery);
      return deliveries.length;
    }
    // arrays unnested: drizzle takes longer to build a many-row insert than the server to run it
    if (deliveries.length > 0)
      await pgExecute(
        db,
        sql`insert into webhook_deliveries (webhook_id, event, payload, status, attempts, next_attempt_at, created_at)
            select d.webhook_id, d.event, d.payload, 'pending', 0, ${at.toISOString()}::timestamptz, ${at.toISOString()}::timestamptz
            from unnest(${arrayOf(deliveries, (d) => d.webhookId)}::int[], ${arrayOf(deliveries, (d) => d.event)}::text[],
                        ${arrayOf(deliveries, (d) => JSON.stringify(d.payload))}::jsonb[])
              with ordinality as d(webhook_id, event, payload, n)
            order by d.n`,
      );
    return deliveries.length;
  });
}

export async function hasEnabledWebhooks(db: Db, organizationId?: number): Promise<boolean> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { webhooks } = tablesOf(db);
  const enabled = eq(webhooks.enabled, true);
  return (
    (
      await db
        .select({ n: count() })
        .from(webhooks)
        .where(organizationId === undefined ? enabled : and(enabled, eq(webhooks.organizationId, organizationId)))
        .limit(1)
    )[0]!.n > 0
  );
}

export type ClaimedDelivery = DeliveryRow & { url: string; secret: string };

/** Whether some delivery is due and not claimed by a live claim: a read, so idle pollers take no write lock. */
export async function hasDueDelivery(db: Db, nowMs: number): Promise<boolean> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { webhookDeliveries } = tablesOf(db);
  const now = new Date(nowMs);
  return (
    (
      await db
        .select({ id: webhookDeliveries.id })
        .from(webhookDeliveries)
        .where(
          and(
            eq(webhookDeliveries.status, 'pending'),
            lte(webhookDeliveries.nextAttemptAt, now),
            or(isNull(webhookDeliveries.claimedUntil), lt(webhookDeliveries.claimedUntil, now)),
          ),
        )
        .limit(1)
    ).length > 0
  );
}

/**
 * Claims the oldest due delivery for `holder` until `claimUntilMs`, or returns undefined when
 * none is due. One UPDATE: SQLite takes the write lock before it reads, so two processes on one
 * database never claim the same delivery; on PostgreSQL the row is locked (SKIP LOCKED: a second
 * claimer at once takes the next one). A claim that lapsed (its process died) can be taken again.
 */
export async function claimNextDelivery(db: Db, holder: string, nowMs: number, claimUntilMs: number): Promise<ClaimedDelivery | undefined> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { webhookDeliveries, webhooks } = tablesOf(db);
  const claimed = isPostgres(db)
    ? await claimNextDeliveryOnPostgres(db, holder, nowMs, claimUntilMs)
    : (db.$client
        .prepare(
          `update webhook_deliveries set claimed_by = ?, claimed_until = ?
       where id = (select id from webhook_deliveries
                   where status = 'pending' and next_attempt_at <= ? and (claimed_until is null or claimed_until < ?)
                   order by id limit 1)
         and status = 'pending' and (claimed_until is null or claimed_until < ?)
       returning id`,
        )
        .get(holder, claimUntilMs, nowMs, nowMs, nowMs) as { id: number } | undefined);
  if (!claimed) return undefined;
  const row = (
    await db
      .select({ delivery: webhookDeliveries, url: webhooks.url, secret: webhooks.secret })
      .from(webhookDeliveries)
      .innerJoin(webhooks, eq(webhooks.id, webhookDeliveries.webhookId))
      .where(eq(webhookDeliveries.id, claimed.id))
      .limit(1)
  )[0];
  // the webhook was deleted between the claim and this read (its deliveries go with it)
  return row ? { ...row.delivery, url: row.url, secret: row.secret } : undefined;
}

async function claimNextDeliveryOnPostgres(
  db: Db,
  holder: string,
  nowMs: number,
  claimUntilMs: number,
): Promise<{ id: number } | undefined> {
  const now = new Date(nowMs);
  const { rows } = await pgExecute<{ id: number }>(
    db,
    sql`update webhook_deliveries set claimed_by = ${holder}, claimed_until = ${new Date(claimUntilMs)}
        where id = (select id from webhook_deliveries
                    where status = 'pending' and next_attempt_at <= ${now} and (claimed_until is null or claimed_until < ${now})
                    order by id limit 1 for update skip locked)
          and status = 'pending' and (claimed_until is null or claimed_until < ${now})
        returning id`,
  );
  return rows[0];
}

/**
 * Records the outcome of a claimed delivery and releases the claim. Returns false (and writes
 * nothing) when `holder` no longer holds it: its claim lapsed and another process took it over.
 */
export async function finishClaimedDelivery(
  db: Db,
  id: number,
  holder: string,
  v: Partial<Pick<DeliveryRow, 'status' | 'attempts' | 'nextAttemptAt' | 'lastStatusCode' | 'lastError'>>,
): Promise<boolean> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { webhookDeliveries } = tablesOf(db);
  return (
    affectedRows(
      await db
        .update(webhookDeliveries)
        .set({ ...v, claimedBy: null, claimedUntil: null })
        .where(and(eq(webhookDeliveries.id, id), eq(webhookDeliveries.claimedBy, holder))),
    ) === 1
  );
}

/** The deliveries of one organization's webhooks (every webhook's without one; of one of them, when `webhookId` is given), newest first. */
export async function listDeliveries(db: Db, opts: { organizationId?: number; webhookId?: number; offset: number; limit: number }) {
  return readTogether(db, async () => {
    const { webhookDeliveries, webhooks } = tablesOf(db);
    const ofOrganization =
      opts.organizationId === undefined
        ? undefined
        : inArray(
            webhookDeliveries.webhookId,
            db.select({ id: webhooks.id }).from(webhooks).where(eq(webhooks.organizationId, opts.organizationId)),
          );
    const where = opts.webhookId !== undefined ? and(ofOrganization, eq(webhookDeliveries.webhookId, opts.webhookId)) : ofOrganization;
    const rows = await db
      .select({
        id: webhookDeliveries.id,
        webhookId: webhookDeliveries.webhookId,
        webhookName: webhooks.name,
        event: webhookDeliveries.event,
        status: webhookDeliveries.status,
        attempts: webhookDeliveries.attempts,
        nextAttemptAt: webhookDeliveries.nextAttemptAt,
        lastStatusCode: webhookDeliveries.lastStatusCode,
        lastError: webhookDeliveries.lastError,
        createdAt: webhookDeliveries.createdAt,
        payload: webhookDeliveries.payload,
      })
      .from(webhookDeliveries)
      .innerJoin(webhooks, eq(webhooks.id, webhookDeliveries.webhookId))
      .where(where)
      .orderBy(desc(webhookDeliveries.id))
      .limit(opts.limit)
      .offset(opts.offset);
    const total = (await db.select({ n: count() }).from(webhookDeliveries).where(where).limit(1))[0]!.n;
    return { rows, total };
  });
}
