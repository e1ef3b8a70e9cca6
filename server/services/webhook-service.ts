import { UPGRADE_EVENTS } from '@/lib/upgrade-events';
/**
 * Webhooks: lifecycle events as signed JSON POSTs, retried with exponential backoff, with a
 * delivery log. Signature header: `X-Fleetplan-Signature: sha256=<hex HMAC-SHA256 of the body>`.
 */
import crypto from 'node:crypto';
import { processHolder } from '@/server/process-holder';
import type { Db } from '@/db/open-database';
import type { Actor } from '@/server/auth/actor';
import { isSealed, openSecret, sealSecret, SEALED_PREFIX, SecretKeyMismatchError, type SecretKey } from '@/server/crypto/secret-box';
import { secretKeyForDb } from '@/server/crypto/server-secret-key';
import { getEnv, type FleetplanEnv } from '@/server/env';
import {
  checkWebhookTarget,
  sendWebhook,
  WebhookTargetError,
  type ResolveHost,
  type SendOutcome,
} from '@/server/integrations/webhooks/send-webhook';
import { countWebhookDelivery } from '@/server/metrics/counters';
import {
  deleteWebhook,
  findWebhook,
  insertWebhook,
  listDeliveries,
  claimNextDelivery,
  finishClaimedDelivery,
  hasDueDelivery,
  type ClaimedDelivery,
  listWebhooks,
  listWebhookSecretsWithout,
  replaceWebhookSecret,
} from '@/server/repositories/webhook-repository';
import { appendAudit } from '@/server/repositories/audit-repository';
import { withTransaction } from '@/server/repositories/transaction';
import { AppError } from './app-error';
import { requireSelector } from './label-service';
import { requireScopedOrganization, type OrganizationScope } from './organization-scope';

export const MAX_DELIVERY_ATTEMPTS = 6;
export const DEFAULT_BACKOFF_BASE_MS = 30_000;
const DELIVERY_TIMEOUT_MS = 10_000;
/** authenticated with each encrypted webhook secret: it opens for nothing else */
const SECRET_PURPOSE = 'fleetplan webhook secret';

export function signBody(secret: string, body: string): string {
  return `sha256=${crypto.createHmac('sha256', secret).update(body).digest('hex')}`;
}

/** Delay before attempt n+1 after n failed attempts: base × 2^(n-1), capped at 1 h. */
export function backoffMs(attempts: number, baseMs = DEFAULT_BACKOFF_BASE_MS): number {
  return Math.min(baseMs * 2 ** Math.max(0, attempts - 1), 3_600_000);
}

/**
 * http(s) only, no credentials; the host must be a public address or a name that resolves, now,
 * only to public addresses, unless FLEETPLAN_WEBHOOK_ALLOW_PRIVATE=1 (SSRF guard). Deliveries
 * check again (send-webhook.ts), so a name that later resolves elsewhere is refused then.
 */
export async function validateWebhookUrl(raw: string, env: Pick<FleetplanEnv, 'webhookAllowPrivate'>, resolve?: ResolveHost): Promise<URL> {
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
  try {
    await checkWebhookTarget(url, { allowPrivate: env.webhookAllowPrivate, resolve });
  } catch (err) {
    if (!(err instanceof WebhookTargetError)) throw err;
    const message =
      err.problem === 'unresolvable'
        ? `Webhook URL host '${url.hostname}' does not resolve`
        : `Webhook URL points at a non-public address (${err.detail})`;
    throw new AppError('INVALID_INPUT', message, [
      {
        path: 'url',
        message:
          err.problem === 'unresolvable'
            ? 'the host name does not resolve'
            : 'loopback, private, link-local and other non-public addresses are not allowed',
      },
    ]);
  }
  return url;
}

/**
 * Encrypts webhook secrets still stored in plain text (databases from before encryption at
 * rest). Idempotent: encrypted secrets are left alone. Returns how many were encrypted.
 */
export async function encryptPlaintextWebhookSecrets(db: Db, key: SecretKey): Promise<number> {
  return await withTransaction(db, async (tx) => {
    let n = 0;
    for (const row of await listWebhookSecretsWithout(tx, SEALED_PREFIX)) {
      if (await replaceWebhookSecret(tx, row.id, row.secret, sealSecret(key, row.secret, SECRET_PURPOSE))) n++;
    }
    return n;
  });
}

/** At start-up: loads (or creates) the secret key and encrypts plain-text webhook secrets. */
export async function prepareWebhookSecrets(
  db: Db,
  env: Pick<FleetplanEnv, 'secretKey'>,
  log: (message: string) => void = console.log,
): Promise<void> {
  const n = await encryptPlaintextWebhookSecrets(db, secretKeyForDb(db, env));
  if (n > 0) log(`fleetplan: encrypted ${n} webhook secret(s) that were stored in plain text`);
}

export interface DeliverOptions {
  realNow?: Date;
  backoffBaseMs?: number;
  limit?: number;
  /** how many deliveries are sent at the same time (default 4) */
  concurrency?: number;
  /** who claims the deliveries (default `host:pid`); two processes never send the same one */
  holder?: string;
  /** default: FLEETPLAN_WEBHOOK_ALLOW_PRIVATE=1 */
  allowPrivate?: boolean;
  /** default: FLEETPLAN_SECRET_KEY or the key file beside the database */
  secretKey?: SecretKey;
  /** default: the system resolver */
  resolve?: ResolveHost;
  timeoutMs?: number;
}

export const DEFAULT_DELIVERY_CONCURRENCY = 4;
/** a claim outlives the send's timeout by this much; a claim older than that belongs to a process that died */
export const CLAIM_MARGIN_MS = 60_000;

/** One POST of a delivery, signed with the webhook's decrypted secret. */
async function attemptDelivery(
  d: ClaimedDelivery,
  key: SecretKey,
  policy: Parameters<typeof sendWebhook>[2],
  now: Date,
): Promise<SendOutcome> {
  let secret: string;
  try {
    // a row read before start-up's encryption pass may still hold the plain text
    secret = isSealed(d.secret) ? openSecret(key, d.secret, SECRET_PURPOSE) : d.secret;
  } catch (err) {
    if (!(err instanceof SecretKeyMismatchError)) throw err;
    const error = `cannot decrypt the webhook secret: ${err.message}; start the server with the key it was created with (FLEETPLAN_SECRET_KEY or the key file beside the database)`;
    console.error(`fleetplan: webhook ${d.webhookId}: ${error}`);
    return { ok: false, status: null, error };
  }
  return sendSignedEvent(
    d.url,
    secret,
    { id: d.id, event: d.event, attempt: d.attempts + 1, data: d.payload, userAgent: 'fleetplan-webhooks/1' },
    now,
    policy,
  );
}

/**
 * POSTs the signed envelope that webhooks and blocking hooks share: `{id, event, deliveredAt,
 * attempt, data}` with X-Fleetplan-Event, X-Fleetplan-Delivery and X-Fleetplan-Signature (HMAC of
 * the body with `secret`), through sendWebhook's SSRF rules.
 */
export function sendSignedEvent(
  url: string,
  secret: string,
  e: { id: number | string; event: string; attempt: number; data: unknown; userAgent: string },
  now: Date,
  policy: Parameters<typeof sendWebhook>[2],
): Promise<SendOutcome> {
  const body = JSON.stringify({ id: e.id, event: e.event, deliveredAt: now.toISOString(), attempt: e.attempt, data: e.data });
  const headers = {
    'content-type': 'application/json',
    'user-agent': e.userAgent,
    'x-fleetplan-event': e.event,
    'x-fleetplan-delivery': String(e.id),
    'x-fleetplan-signature': signBody(secret, body),
  };
  return sendWebhook(url, { headers, body }, policy);
}

export type DeliveryOutcome = 'delivered' | 'failed' | 'retrying';

/** What one delivery attempt needs, resolved once (settings, key) and shared by every attempt. */
export interface WebhookSender {
  holder: string;
  key: SecretKey;
  policy: Parameters<typeof sendWebhook>[2];
  backoffBaseMs?: number;
}

export function webhookSender(db: Db, opts: DeliverOptions = {}): WebhookSender {
  return {
    holder: opts.holder ?? processHolder(),
    key: opts.secretKey ?? secretKeyForDb(db, getEnv()),
    policy: {
      allowPrivate: opts.allowPrivate ?? getEnv().webhookAllowPrivate,
      resolve: opts.resolve,
      timeoutMs: opts.timeoutMs ?? DELIVERY_TIMEOUT_MS,
    },
    backoffBaseMs: opts.backoffBaseMs,
  };
}

/**
 * Claims the oldest due delivery, sends it once and records the outcome (rescheduled with
 * backoff, then given up after MAX_DELIVERY_ATTEMPTS). Undefined when nothing was due.
 */
export async function deliverNextWebhook(db: Db, sender: WebhookSender, now: Date): Promise<DeliveryOutcome | undefined> {
  if (!(await hasDueDelivery(db, now.getTime()))) return undefined;
  const d = await claimNextDelivery(db, sender.holder, now.getTime(), now.getTime() + sender.policy.timeoutMs + CLAIM_MARGIN_MS);
  if (!d) return undefined;
  const attempt = await attemptDelivery(d, sender.key, sender.policy, now);
  const attempts = d.attempts + 1;
  const status = attempt.status;
  if (attempt.ok) {
    await finishClaimedDelivery(db, d.id, sender.holder, {
      status: 'delivered',
      attempts,
      lastStatusCode: status,
      lastError: null,
      nextAttemptAt: null,
    });
    await countWebhookDelivery(db, 'delivered');
    return 'delivered';
  }
  const error = attempt.error;
  if (attempts >= MAX_DELIVERY_ATTEMPTS) {
    await finishClaimedDelivery(db, d.id, sender.holder, {
      status: 'failed',
      attempts,
      lastStatusCode: status,
      lastError: error,
      nextAttemptAt: null,
    });
    await countWebhookDelivery(db, 'failed');
    return 'failed';
  }
  await finishClaimedDelivery(db, d.id, sender.holder, {
    attempts,
    lastStatusCode: status,
    lastError: error,
    nextAttemptAt: new Date(now.getTime() + backoffMs(attempts, sender.backoffBaseMs)),
  });
  await countWebhookDelivery(db, 'retry');
  return 'retrying';
}

/**
 * Sends every due delivery once, `concurrency` at a time; failures are rescheduled with backoff,
 * then given up. Each delivery is claimed first, so passes running at the same time (in this
 * process or another one on the same database) never send one twice.
 */
export async function deliverDueWebhooks(
  db: Db,
  opts: DeliverOptions = {},
): Promise<{ delivered: number; failed: number; retrying: number }> {
  const now = opts.realNow ?? new Date();
  const out = { delivered: 0, failed: 0, retrying: 0 };
  if (!(await hasDueDelivery(db, now.getTime()))) return out;
  const sender = webhookSender(db, opts);
  await encryptPlaintextWebhookSecrets(db, sender.key);
  const limit = opts.limit ?? 100;
  let taken = 0;
  const slot = async () => {
    while (taken < limit) {
      taken++;
      const outcome = await deliverNextWebhook(db, sender, now);
      if (!outcome) return;
      out[outcome]++;
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, opts.concurrency ?? DEFAULT_DELIVERY_CONCURRENCY) }, slot));
  return out;
}

/** what a webhook may subscribe to: every upgrade event */
export const WEBHOOK_EVENTS = UPGRADE_EVENTS;

/** `now` is the wall clock (audit rows) */
export function createWebhookService(
  db: Db,
  now: () => Date,
  env: Pick<FleetplanEnv, 'webhookAllowPrivate' | 'secretKey'>,
  scope: OrganizationScope,
) {
  return {
    /** the organization's webhooks (they receive its events only) */
    async list() {
      const org = await scope();
      if (!org) return [];
      return (await listWebhooks(db, org.id)).map(({ secret: _secret, ...w }) => ({ ...w, secretSet: true }));
    },
    async create(input: { name: string; url: string; secret?: string; events: string[]; selector?: string | null; actor: Actor }) {
      const org = await requireScopedOrganization(scope);
      // checked before the URL (which may resolve a name): a bad selector is refused without a lookup
      const selector = input.selector?.trim() ? requireSelector(input.selector).text : null;
      const url = await validateWebhookUrl(input.url, env);
      const secret = input.secret ?? crypto.randomBytes(24).toString('base64url');
      const sealed = sealSecret(secretKeyForDb(db, env), secret, SECRET_PURPOSE);
      // the webhook and its audit entry are one write: a failed audit leaves no unaudited webhook
      const row = await withTransaction(db, async (tx) => {
        const created = await insertWebhook(tx, {
          organizationId: org.id,
          name: input.name,
          url: url.toString(),
          secret: sealed,
          events: input.events,
          selector,
          enabled: true,
          createdAt: now(),
        });
        await appendAudit(tx, {
          at: now(),
          actor: input.actor.name,
          action: 'webhook.create',
          organizationId: org.id,
          target: `webhook:${created.id}`,
          before: null,
          after: {
            name: created.name,
            url: created.url,
            events: created.events,
            // only when set: a webhook for every cluster logs no selector
            ...(created.selector ? { selector: created.selector } : {}),
            organization: org.name,
          },
        });
        return created;
      });
      // the secret is shown once, at creation, so the receiver can verify signatures
      return { id: row.id, name: row.name, url: row.url, events: row.events, selector: row.selector, secret };
    },
    async delete(input: { id: number; actor: Actor }) {
      const row = await findWebhook(db, (await requireScopedOrganization(scope)).id, input.id);
      if (!row) throw new AppError('NOT_FOUND', `Webhook ${input.id} does not exist`);
      await withTransaction(db, async (tx) => {
        await deleteWebhook(tx, input.id);
        await appendAudit(tx, {
          at: now(),
          actor: input.actor.name,
          action: 'webhook.delete',
          organizationId: row.organizationId,
          target: `webhook:${row.id}`,
          before: { name: row.name, url: row.url, events: row.events, ...(row.selector ? { selector: row.selector } : {}) },
          after: null,
        });
      });
      return { id: input.id };
    },
    async deliveries(input: { webhookId?: number; offset: number; limit: number }) {
      const org = await scope();
      if (!org) return { rows: [], total: 0 };
      return await listDeliveries(db, { ...input, organizationId: org.id });
    },
  };
}
