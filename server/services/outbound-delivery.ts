/**
 * What the scheduler's delivery loop runs in each slot: one due outbound delivery (webhook event;
 * blocking-hook calls join in hook-service), claimed so that no other process sends it too.
 * instrumentation.ts hands this to the scheduler, which does not import services.
 */
import type { Db } from '@/db/open-database';
import { deliverNextWebhook, webhookSender, type DeliverOptions, type WebhookSender } from './webhook-service';

/** Sends one due delivery as `holder`; false when nothing was due. */
export function createOutboundDeliverer(
  opts: Omit<DeliverOptions, 'holder' | 'realNow'> = {},
): (db: Db, holder: string) => Promise<boolean> {
  const senders = new WeakMap<Db, Map<string, WebhookSender>>();
  const senderFor = (db: Db, holder: string): WebhookSender => {
    let byHolder = senders.get(db);
    if (!byHolder) senders.set(db, (byHolder = new Map<string, WebhookSender>()));
    let sender = byHolder.get(holder);
    if (!sender) byHolder.set(holder, (sender = webhookSender(db, { ...opts, holder })));
    return sender;
  };
  return async (db, holder) => (await deliverNextWebhook(db, senderFor(db, holder), new Date())) !== undefined;
}
