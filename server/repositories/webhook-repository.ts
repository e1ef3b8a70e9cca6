// Webhooks and their delivery log.
import { and, desc, eq, lte, sql } from 'drizzle-orm';
import type { Db } from '@/db/open-database';
import { webhookDeliveries, webhooks } from '@/db/schema';

export type WebhookRow = typeof webhooks.$inferSelect;
export type DeliveryRow = typeof webhookDeliveries.$inferSelect;

export function listWebhooks(db: Db): WebhookRow[] {
  return db.select().from(webhooks).orderBy(webhooks.id).all();
}

export function findWebhook(db: Db, id: number): WebhookRow | undefined {
  return db.select().from(webhooks).where(eq(webhooks.id, id)).get();
}

export function insertWebhook(db: Db, v: Omit<WebhookRow, 'id'>): WebhookRow {
  return db.insert(webhooks).values(v).returning().get();
}

/** Webhooks whose secret is not yet in the encrypted form (`prefix` starts every encrypted one). */
export function listWebhookSecretsWithout(db: Db, prefix: string): { id: number; secret: string }[] {
  return db
    .select({ id: webhooks.id, secret: webhooks.secret })
    .from(webhooks)
    .where(sql`substr(${webhooks.secret}, 1, ${prefix.length}) <> ${prefix}`)
    .all();
}

/** Replaces a secret only if it still has the value read before (a concurrent writer wins). */
export function replaceWebhookSecret(db: Db, id: number, from: string, to: string): boolean {
  return (
    db
      .update(webhooks)
      .set({ secret: to })
      .where(and(eq(webhooks.id, id), eq(webhooks.secret, from)))
      .run().changes === 1
  );
}

export function deleteWebhook(db: Db, id: number): void {
  db.delete(webhooks).where(eq(webhooks.id, id)).run();
}

/** One pending delivery per enabled webhook subscribed to `event` (no events listed = all). */
export function enqueueDeliveries(db: Db, event: string, payload: unknown, at: Date): number {
  const hooks = db.select({ id: webhooks.id, events: webhooks.events }).from(webhooks).where(eq(webhooks.enabled, true)).all();
  let n = 0;
  for (const h of hooks) {
    if (h.events.length > 0 && !h.events.includes(event)) continue;
    db.insert(webhookDeliveries)
      .values({ webhookId: h.id, event, payload, status: 'pending', attempts: 0, nextAttemptAt: at, createdAt: at })
      .run();
    n++;
  }
  return n;
}

export function hasEnabledWebhooks(db: Db): boolean {
  return (
    db
      .select({ n: sql<number>`count(*)` })
      .from(webhooks)
      .where(eq(webhooks.enabled, true))
      .get()!.n > 0
  );
}

export function listDueDeliveries(db: Db, now: Date, limit: number): (DeliveryRow & { url: string; secret: string })[] {
  return db
    .select({ delivery: webhookDeliveries, url: webhooks.url, secret: webhooks.secret })
    .from(webhookDeliveries)
    .innerJoin(webhooks, eq(webhooks.id, webhookDeliveries.webhookId))
    .where(and(eq(webhookDeliveries.status, 'pending'), lte(webhookDeliveries.nextAttemptAt, now)))
    .orderBy(webhookDeliveries.id)
    .limit(limit)
    .all()
    .map((r) => ({ ...r.delivery, url: r.url, secret: r.secret }));
}

export function updateDelivery(
  db: Db,
  id: number,
  v: Partial<Pick<DeliveryRow, 'status' | 'attempts' | 'nextAttemptAt' | 'lastStatusCode' | 'lastError'>>,
): void {
  db.update(webhookDeliveries).set(v).where(eq(webhookDeliveries.id, id)).run();
}

export function listDeliveries(db: Db, opts: { webhookId?: number; offset: number; limit: number }) {
  const where = opts.webhookId !== undefined ? eq(webhookDeliveries.webhookId, opts.webhookId) : undefined;
  const rows = db
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
    .offset(opts.offset)
    .all();
  const total = db
    .select({ n: sql<number>`count(*)` })
    .from(webhookDeliveries)
    .where(where)
    .get()!.n;
  return { rows, total };
}
