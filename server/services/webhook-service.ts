/**
 * Webhooks: lifecycle events as signed JSON POSTs, retried with exponential backoff, with a
 * delivery log. Signature header: `X-Fleetplan-Signature: sha256=<hex HMAC-SHA256 of the body>`.
 */
import crypto from 'node:crypto';
import dns from 'node:dns/promises';
import net from 'node:net';
import type { Db } from '@/db/open-database';
import type { Actor } from '@/server/auth/actor';
import type { FleetplanEnv } from '@/server/env';
import { getMetrics } from '@/server/metrics/registry';
import {
  deleteWebhook,
  findWebhook,
  insertWebhook,
  listDeliveries,
  listDueDeliveries,
  listWebhooks,
  updateDelivery,
} from '@/server/repositories/webhook-repository';
import { appendAudit } from '@/server/repositories/audit-repository';
import { AppError } from './app-error';

export const MAX_DELIVERY_ATTEMPTS = 6;
export const DEFAULT_BACKOFF_BASE_MS = 30_000;
const DELIVERY_TIMEOUT_MS = 10_000;

export function signBody(secret: string, body: string): string {
  return `sha256=${crypto.createHmac('sha256', secret).update(body).digest('hex')}`;
}

/** Delay before attempt n+1 after n failed attempts: base × 2^(n-1), capped at 1 h. */
export function backoffMs(attempts: number, baseMs = DEFAULT_BACKOFF_BASE_MS): number {
  return Math.min(baseMs * 2 ** Math.max(0, attempts - 1), 3_600_000);
}

/** Loopback, private, link-local, unique-local, CGNAT and unspecified addresses. */
export function isPrivateAddress(address: string): boolean {
  const a = address.replace(/^\[|\]$/g, '').toLowerCase();
  if (net.isIPv4(a)) {
    const [p, q] = a.split('.').map(Number) as [number, number];
    return (
      p === 10 ||
      p === 127 ||
      p === 0 ||
      (p === 169 && q === 254) ||
      (p === 172 && q >= 16 && q <= 31) ||
      (p === 192 && q === 168) ||
      (p === 100 && q >= 64 && q <= 127)
    );
  }
  if (net.isIPv6(a)) {
    if (a === '::1' || a === '::') return true;
    if (a.startsWith('::ffff:')) return isPrivateAddress(a.slice(7));
    return /^f[cd]/.test(a) || /^fe[89ab]/.test(a);
  }
  return false;
}

/** http(s) only; private targets refused unless FLEETPLAN_WEBHOOK_ALLOW_PRIVATE=1 (SSRF guard). */
export async function validateWebhookUrl(raw: string, env: Pick<FleetplanEnv, 'webhookAllowPrivate'>): Promise<URL> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new AppError('INVALID_INPUT', `'${raw}' is not a URL`, [{ path: 'url', message: 'not a URL' }]);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new AppError('INVALID_INPUT', 'Webhook URLs must use http or https', [{ path: 'url', message: 'only http and https' }]);
  if (url.username || url.password)
    throw new AppError('INVALID_INPUT', 'Webhook URLs must not carry credentials', [{ path: 'url', message: 'no user:password@' }]);
  if (env.webhookAllowPrivate) return url;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (host === 'localhost' || host.endsWith('.localhost'))
    throw new AppError('INVALID_INPUT', 'Webhook URL points at a loopback address', [
      { path: 'url', message: 'loopback addresses are not allowed' },
    ]);
  const addresses = net.isIP(host)
    ? [host]
    : await dns
        .lookup(host, { all: true })
        .then((r) => r.map((x) => x.address))
        .catch(() => [] as string[]);
  if (addresses.some(isPrivateAddress))
    throw new AppError('INVALID_INPUT', `Webhook URL resolves to a private address (${addresses.join(', ')})`, [
      { path: 'url', message: 'private, loopback and link-local addresses are not allowed' },
    ]);
  return url;
}

export interface DeliverOptions {
  realNow?: Date;
  fetch?: typeof fetch;
  backoffBaseMs?: number;
  limit?: number;
}

/** Sends every due delivery once; failures are rescheduled with backoff, then given up. */
export async function deliverDueWebhooks(
  db: Db,
  opts: DeliverOptions = {},
): Promise<{ delivered: number; failed: number; retrying: number }> {
  const now = opts.realNow ?? new Date();
  const doFetch = opts.fetch ?? fetch;
  const metrics = getMetrics();
  const out = { delivered: 0, failed: 0, retrying: 0 };
  for (const d of listDueDeliveries(db, now, opts.limit ?? 100)) {
    const body = JSON.stringify({ id: d.id, event: d.event, deliveredAt: now.toISOString(), attempt: d.attempts + 1, data: d.payload });
    let status: number | null = null;
    let error: string | null = null;
    try {
      const res = await doFetch(d.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': 'fleetplan-webhooks/1',
          'x-fleetplan-event': d.event,
          'x-fleetplan-delivery': String(d.id),
          'x-fleetplan-signature': signBody(d.secret, body),
        },
        body,
        redirect: 'manual',
        signal: AbortSignal.timeout(DELIVERY_TIMEOUT_MS),
      });
      status = res.status;
      await res.body?.cancel().catch(() => undefined);
      if (res.status < 200 || res.status >= 300) error = `HTTP ${res.status}`;
    } catch (err) {
      error = err instanceof Error ? (err.cause instanceof Error ? `${err.message}: ${err.cause.message}` : err.message) : String(err);
    }
    const attempts = d.attempts + 1;
    if (!error) {
      updateDelivery(db, d.id, { status: 'delivered', attempts, lastStatusCode: status, lastError: null, nextAttemptAt: null });
      out.delivered++;
      metrics.webhookDeliveries.inc({ outcome: 'delivered' });
    } else if (attempts >= MAX_DELIVERY_ATTEMPTS) {
      updateDelivery(db, d.id, { status: 'failed', attempts, lastStatusCode: status, lastError: error, nextAttemptAt: null });
      out.failed++;
      metrics.webhookDeliveries.inc({ outcome: 'failed' });
    } else {
      updateDelivery(db, d.id, {
        attempts,
        lastStatusCode: status,
        lastError: error,
        nextAttemptAt: new Date(now.getTime() + backoffMs(attempts, opts.backoffBaseMs)),
      });
      out.retrying++;
      metrics.webhookDeliveries.inc({ outcome: 'retry' });
    }
  }
  return out;
}

export const WEBHOOK_EVENTS = ['scheduled', 'started', 'completed', 'failed', 'cancelled', 'skipped-unhealthy', 'blocked'] as const;

export function createWebhookService(db: Db, now: () => Date, env: Pick<FleetplanEnv, 'webhookAllowPrivate'>) {
  return {
    list() {
      return listWebhooks(db).map(({ secret: _secret, ...w }) => ({ ...w, secretSet: true }));
    },
    async create(input: { name: string; url: string; secret?: string; events: string[]; actor: Actor }) {
      const url = await validateWebhookUrl(input.url, env);
      const secret = input.secret ?? crypto.randomBytes(24).toString('base64url');
      const row = insertWebhook(db, {
        name: input.name,
        url: url.toString(),
        secret,
        events: input.events,
        enabled: true,
        createdAt: new Date(),
      });
      appendAudit(db, {
        at: now(),
        actor: input.actor.name,
        action: 'webhook.create',
        target: `webhook:${row.id}`,
        before: null,
        after: { name: row.name, url: row.url, events: row.events },
      });
      // the secret is shown once, at creation, so the receiver can verify signatures
      return { id: row.id, name: row.name, url: row.url, events: row.events, secret };
    },
    delete(input: { id: number; actor: Actor }) {
      const row = findWebhook(db, input.id);
      if (!row) throw new AppError('NOT_FOUND', `Webhook ${input.id} does not exist`);
      deleteWebhook(db, input.id);
      appendAudit(db, {
        at: now(),
        actor: input.actor.name,
        action: 'webhook.delete',
        target: `webhook:${row.id}`,
        before: { name: row.name, url: row.url, events: row.events },
        after: null,
      });
      return { id: input.id };
    },
    deliveries(input: { webhookId?: number; offset: number; limit: number }) {
      return listDeliveries(db, input);
    },
  };
}
