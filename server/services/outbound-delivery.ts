/**
 * What the scheduler's delivery loop runs in each slot: one due outbound delivery, a blocking-hook
 * call first (an upgrade waits for it), else a webhook event; claimed so that no other process
 * sends it too. instrumentation.ts hands this to the scheduler, which does not import services.
 */
import type { Db } from '@/db/open-database';
import { deliverNextHookCall } from './hooks/hook-service';
import { deliverNextWebhook, webhookSender, type DeliverOptions, type WebhookSender } from './webhook-service';

/** Sends one due delivery as `holder`; false when nothing was due. */
export function createOutboundDeliverer(
  opts: Omit<DeliverOptions, 'holder' | 'realNow'> & { realNow?: () => Date } = {},
): (db: Db, holder: string) => Promise<boolean> {
  const realNow = opts.realNow ?? (() => new Date());
  const senders = new WeakMap<Db, Map<string, WebhookSender>>();
  const senderFor = (db: Db, holder: string): WebhookSender => {
    let byHolder = senders.get(db);
    if (!byHolder) senders.set(db, (byHolder = new Map<string, WebhookSender>()));
    let sender = byHolder.get(holder);
    if (!sender) byHolder.set(holder, (sender = webhookSender(db, { ...opts, realNow: undefined, holder })));
    return sender;
  };
  return async (db, holder) => {
    const sender = senderFor(db, holder);
    if (await deliverNextHookCall(db, sender, realNow)) return true;
    return (await deliverNextWebhook(db, sender, realNow())) !== undefined;
  };
}
