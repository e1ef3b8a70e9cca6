/**
 * Blocking hooks (issue 11, point 5): HTTP endpoints that gate an upgrade. At `pre-upgrade`
 * fleetplan POSTs the signed event (the webhooks' envelope and X-Fleetplan-Signature, signed with
 * the hook's own secret) and needs a 2xx answer with `{"allow": true}`; at `post-upgrade`,
 * `{"healthy": true}`. Anything else (another status, another body, no answer within the hook's
 * timeout, a refused target) is a refusal whose reason is the hook's answer.
 *
 * The lifecycle calls requestHook once it reaches a hook stage and reads hookVerdict on later
 * ticks: the tick never waits for a hook. The calls are made by the delivery loop
 * (outbound-delivery.ts), each claimed by one process, with the same SSRF rules as webhooks.
 */
import { parseLabelSelector } from '@/server/domain/labels/label-selector';
import { selectorApplies } from '@/server/domain/labels/selector-scope';
import { findClusterLabels } from '@/server/repositories/cluster-repository';
import crypto from 'node:crypto';
import type { Db } from '@/db/open-database';
import type { Actor } from '@/server/auth/actor';
import { openSecret, sealSecret, type SecretKey } from '@/server/crypto/secret-box';
import { secretKeyForDb } from '@/server/crypto/server-secret-key';
import type { FleetplanEnv } from '@/server/env';
import type { SendOutcome } from '@/server/integrations/webhooks/send-webhook';
import { appendAudit } from '@/server/repositories/audit-repository';
import {
  claimNextHookCall,
  countPendingHookCalls,
  deleteHook,
  findHook,
  finishClaimedHookCall,
  hasDueHookCall,
  insertHook,
  insertHookCalls,
  lastAnsweredCalls,
  listApplicableHooks,
  listHookCallsFor,
  listHooks,
  setHookEnabled,
  type ClaimedHookCall,
  type HookRow,
} from '@/server/repositories/hook-repository';
import { requireScopedOrganization, type OrganizationScope } from '../organization-scope';
import { listSectorNames } from '@/server/repositories/scheduler-repository';
import { withTransaction } from '@/server/repositories/transaction';
import { AppError } from '../app-error';
import { CLAIM_MARGIN_MS, sendSignedEvent, validateWebhookUrl, type WebhookSender } from '../webhook-service';

export const HOOK_STAGES = ['pre-upgrade', 'post-upgrade'] as const;
export type HookStage = (typeof HOOK_STAGES)[number];
export const DEFAULT_HOOK_TIMEOUT_SECONDS = 300;
export const MAX_HOOK_TIMEOUT_SECONDS = 3_600;
/** an answer longer than this is a refusal (a verdict is a few bytes of JSON) */
const MAX_ANSWER_BYTES = 16 * 1024;
/** the part of an answer kept as the reason */
const MAX_REASON_CHARS = 500;
/** authenticated with each encrypted hook secret: it opens for nothing else */
const SECRET_PURPOSE = 'fleetplan hook secret';
/** the field a hook must answer `true` in, per stage */
const VERDICT_FIELD: Record<HookStage, 'allow' | 'healthy'> = { 'pre-upgrade': 'allow', 'post-upgrade': 'healthy' };

export type HookVerdict = { state: 'none' } | { state: 'pending' } | { state: 'allowed' } | { state: 'refused'; reason: string };

export interface HookRequest {
  lifecycleId: number | string;
  stage: HookStage;
  /** the cluster's organization (its hooks are asked) */
  organizationId: number;
  /** cluster name */
  cluster: string;
  sector: string | null;
  version: string;
  fromVersion: string | null;
}

/**
 * Queues one call to every enabled hook of the stage for the cluster's organization and sector.
 * Idempotent per (lifecycleId, stage): calling again queues nothing new, so a tick that runs the
 * stage twice never calls a hook twice. No hook configured → nothing queued (verdict `none`).
 */
export async function requestHook(db: Db, req: HookRequest, realNow: Date): Promise<void> {
  const organizationId = req.organizationId;
  const lifecycleId = String(req.lifecycleId);
  // a hook narrowed by a label selector is asked only for the clusters it matches (selector-scope.ts)
  const candidates = await listApplicableHooks(db, organizationId, req.sector, req.stage);
  const labels = candidates.some((h) => h.selector) ? await findClusterLabels(db, organizationId, req.cluster) : null;
  const hooks = candidates.filter((h) => selectorApplies(h.selector, labels));
  const data = {
    lifecycleId: req.lifecycleId,
    stage: req.stage,
    cluster: req.cluster,
    sector: req.sector,
    version: req.version,
    fromVersion: req.fromVersion,
  };
  await insertHookCalls(
    db,
    hooks.map((h) => ({ hookId: h.id, lifecycleId, stage: req.stage, payload: data, requestedAt: realNow })),
  );
}

/**
 * The stage's verdict: `none` without calls (no hook applies), `refused` as soon as one hook
 * refused (every refusal's reason, joined), `pending` while a call waits, else `allowed`.
 */
export async function hookVerdict(db: Db, lifecycleId: number | string, stage: HookStage): Promise<HookVerdict> {
  const calls = await listHookCallsFor(db, String(lifecycleId), stage);
  if (calls.length === 0) return { state: 'none' };
  const refused = calls.filter((c) => c.status === 'refused');
  if (refused.length > 0) return { state: 'refused', reason: refused.map((c) => c.reason ?? `hook '${c.hookName}' refused`).join('; ') };
  if (calls.some((c) => c.status === 'pending')) return { state: 'pending' };
  return { state: 'allowed' };
}

function clip(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > MAX_REASON_CHARS ? `${flat.slice(0, MAX_REASON_CHARS)}…` : flat;
}

/** What the hook's answer means: allowed, or refused with the answer (its `reason`/`message` when it gives one) as the reason. */
export function judgeAnswer(
  stage: HookStage,
  hookName: string,
  outcome: SendOutcome,
): { allowed: true } | { allowed: false; reason: string } {
  const field = VERDICT_FIELD[stage];
  let body: unknown;
  try {
    body = outcome.answer ? JSON.parse(outcome.answer) : undefined;
  } catch {
    body = undefined;
  }
  const said =
    body && typeof body === 'object'
      ? ['reason', 'message']
          .map((k) => (body as Record<string, unknown>)[k])
          .find((v): v is string => typeof v === 'string' && v.trim() !== '')
      : undefined;
  if (!outcome.ok) {
    const answer = said ?? (outcome.answer && body === undefined ? outcome.answer : undefined);
    return { allowed: false, reason: clip(`hook '${hookName}' ${outcome.error}${answer ? `: ${answer}` : ''}`) };
  }
  if (body && typeof body === 'object' && (body as Record<string, unknown>)[field] === true) return { allowed: true };
  if (said) return { allowed: false, reason: clip(`hook '${hookName}' refused: ${said}`) };
  if (body && typeof body === 'object' && field in body)
    return { allowed: false, reason: `hook '${hookName}' answered "${field}": ${String((body as Record<string, unknown>)[field])}` };
  if (body === undefined && outcome.answer?.trim())
    return { allowed: false, reason: clip(`hook '${hookName}' answered HTTP ${outcome.status} without JSON: ${outcome.answer}`) };
  return { allowed: false, reason: `hook '${hookName}' answered HTTP ${outcome.status} without "${field}": true` };
}

async function callHook(call: ClaimedHookCall, key: SecretKey, sender: WebhookSender, now: Date): Promise<SendOutcome> {
  const secret = openSecret(key, call.secret, SECRET_PURPOSE);
  return sendSignedEvent(
    call.url,
    secret,
    { id: `hook-call-${call.id}`, event: call.stage, attempt: 1, data: call.payload, userAgent: 'fleetplan-hooks/1' },
    now,
    { ...sender.policy, timeoutMs: call.timeoutSeconds * 1000, answerLimitBytes: MAX_ANSWER_BYTES },
  );
}

/**
 * Claims the oldest pending hook call, makes it (waiting up to the hook's timeout) and stores the
 * verdict. False when none was waiting. One attempt: a hook that cannot be reached refuses.
 */
export async function deliverNextHookCall(db: Db, sender: WebhookSender, realNow: () => Date): Promise<boolean> {
  const now = realNow();
  if (!(await hasDueHookCall(db, now.getTime()))) return false;
  const call = await claimNextHookCall(db, sender.holder, now.getTime(), CLAIM_MARGIN_MS);
  if (!call) return false;
  let verdict: { allowed: true } | { allowed: false; reason: string };
  let outcome: SendOutcome | undefined;
  try {
    outcome = await callHook(call, sender.key, sender, now);
    verdict = judgeAnswer(call.stage, call.hookName, outcome);
  } catch (err) {
    verdict = {
      allowed: false,
      reason: `hook '${call.hookName}' could not be called: ${err instanceof Error ? err.message : String(err)}`,
    };
  }
  await finishClaimedHookCall(db, call.id, sender.holder, {
    status: verdict.allowed ? 'allowed' : 'refused',
    reason: verdict.allowed ? null : verdict.reason,
    answerStatusCode: outcome?.status ?? null,
    answer: outcome?.answer?.slice(0, MAX_ANSWER_BYTES) ?? null,
    answeredAt: realNow(),
  });
  return true;
}

export interface CreateHookInput {
  name: string;
  url: string;
  stage: HookStage;
  /** null/absent: every sector of the organization */
  sector?: string | null;
  /** a label selector: only clusters it matches (null/absent/blank: every cluster) */
  selector?: string | null;
  timeoutSeconds?: number;
  secret?: string;
  actor: Actor;
}

/** The URL without its query and fragment, which may carry a token. */
function withoutQuery(raw: string): string {
  const url = new URL(raw);
  return `${url.origin}${url.pathname}`;
}

/** What the audit log and the browser see of a hook (never its secret). */
function publicFields(h: HookRow) {
  return {
    name: h.name,
    url: withoutQuery(h.url),
    stage: h.stage,
    sector: h.sector,
    selector: h.selector,
    timeoutSeconds: h.timeoutSeconds,
    enabled: h.enabled,
  };
}

/** `now` is the wall clock (audit rows) */
export function createHookService(
  db: Db,
  now: () => Date,
  env: Pick<FleetplanEnv, 'webhookAllowPrivate' | 'secretKey'>,
  scope: OrganizationScope,
) {
  return {
    /** every hook of the organization with its last answer and how many calls wait */
    async list() {
      const org = await scope();
      if (!org) return [];
      const rows = await listHooks(db, org.id);
      const ids = rows.map((h) => h.id);
      const last = await lastAnsweredCalls(db, ids);
      const pending = await countPendingHookCalls(db, ids);
      return rows.map((h) => {
        const l = last.get(h.id);
        return {
          id: h.id,
          ...publicFields(h),
          createdBy: h.createdBy,
          createdAt: h.createdAt,
          pendingCalls: pending.get(h.id) ?? 0,
          lastAnswer: l
            ? {
                status: l.status,
                reason: l.reason,
                statusCode: l.answerStatusCode,
                answeredAt: l.answeredAt,
                lifecycleId: l.lifecycleId,
                cluster: (l.payload as { cluster?: unknown } | null)?.cluster ?? null,
              }
            : null,
        };
      });
    },
    async create(input: CreateHookInput) {
      const org = await scope();
      if (!org) throw new AppError('PRECONDITION_FAILED', 'No organization exists yet');
      const problems: { path: string; message: string }[] = [];
      const sector = input.sector?.trim() || null;
      if (sector && !(await listSectorNames(db, org.id)).includes(sector))
        problems.push({ path: 'sector', message: `sector '${sector}' does not exist` });
      let selector: string | null = null;
      if (input.selector?.trim()) {
        const parsed = parseLabelSelector(input.selector);
        if (!parsed.ok) problems.push({ path: 'selector', message: parsed.message });
        else selector = parsed.selector.text;
      }
      const timeoutSeconds = input.timeoutSeconds ?? DEFAULT_HOOK_TIMEOUT_SECONDS;
      if (!Number.isInteger(timeoutSeconds) || timeoutSeconds < 1 || timeoutSeconds > MAX_HOOK_TIMEOUT_SECONDS)
        problems.push({ path: 'timeoutSeconds', message: `a whole number of seconds from 1 to ${MAX_HOOK_TIMEOUT_SECONDS}` });
      if (problems.length) throw new AppError('INVALID_INPUT', problems.map((p) => `${p.path}: ${p.message}`).join('; '), problems);
      // the same SSRF rules as webhooks: checked now, and again at every call
      const url = await validateWebhookUrl(input.url, env);
      const secret = input.secret ?? crypto.randomBytes(24).toString('base64url');
      const row = await withTransaction(db, async (tx) => {
        const inserted = await insertHook(tx, {
          organizationId: org.id,
          sector,
          selector,
          stage: input.stage,
          name: input.name,
          url: url.toString(),
          secret: sealSecret(secretKeyForDb(db, env), secret, SECRET_PURPOSE),
          timeoutSeconds,
          enabled: true,
          createdBy: input.actor.name,
          createdAt: now(),
        });
        await appendAudit(tx, {
          at: now(),
          actor: input.actor.name,
          action: 'hook.create',
          organizationId: org.id,
          target: `hook:${inserted.id}`,
          after: publicFields(inserted),
        });
        return inserted;
      });
      // the secret is shown once, at creation, so the hook can verify signatures
      return { id: row.id, ...publicFields(row), secret };
    },
    async setEnabled(input: { id: number; enabled: boolean; actor: Actor }) {
      const org = await requireScopedOrganization(scope);
      return await withTransaction(db, async (tx) => {
        const row = await findHook(tx, org.id, input.id);
        if (!row) throw new AppError('NOT_FOUND', `Hook ${input.id} does not exist`);
        await setHookEnabled(tx, input.id, input.enabled);
        await appendAudit(tx, {
          at: now(),
          actor: input.actor.name,
          action: input.enabled ? 'hook.enable' : 'hook.disable',
          organizationId: org.id,
          target: `hook:${row.id}`,
          before: publicFields(row),
          after: { ...publicFields(row), enabled: input.enabled },
        });
        return { id: row.id, enabled: input.enabled };
      });
    },
    async delete(input: { id: number; actor: Actor }) {
      const org = await requireScopedOrganization(scope);
      return await withTransaction(db, async (tx) => {
        const row = await findHook(tx, org.id, input.id);
        if (!row) throw new AppError('NOT_FOUND', `Hook ${input.id} does not exist`);
        await deleteHook(tx, input.id);
        await appendAudit(tx, {
          at: now(),
          actor: input.actor.name,
          action: 'hook.delete',
          organizationId: org.id,
          target: `hook:${row.id}`,
          before: publicFields(row),
        });
        return { id: input.id };
      });
    },
  };
}
