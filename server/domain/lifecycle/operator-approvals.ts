/**
 * The operator-approvals phase of the upgrade lifecycle (seed 003: "the operator upgrade must be
 * done after the cluster platform upgrade"): once the provider reports the platform upgrade
 * completed, the pending manual OLM InstallPlans of the operators the policy selects are approved,
 * and the phase waits until every plan it approved is Complete (or its timeout fails the attempt).
 *
 * Pure: the tick reads the cluster's InstallPlans (with the Subscriptions they belong to) and
 * passes them in; this module says which plans to approve (each an effect with its own idempotency
 * key), which are left pending and why, and when the phase is over.
 *
 * Exactly once: a plan is approved at most once per attempt. Its approval is recorded on the
 * attempt (`requestedAt`) in the same transaction as its intent, before the provider is called; a
 * later read that shows it `approved: true` confirms it and it is never patched again. Only a plan
 * whose approval was requested but is still read `approved: false` (the process died between the
 * intent and the call, or the call failed) is asked again, with the same key.
 */
import { formatDuration, type OperatorApprovalsConfig } from './options';

/** An OLM InstallPlan (operators.coreos.com/v1alpha1) as the lifecycle reads it. */
export interface InstallPlanReading {
  namespace: string;
  name: string;
  /** spec.approval: Manual | Automatic */
  approval: string;
  /** spec.approved */
  approved: boolean;
  /** status.phase: RequiresApproval | Installing | Complete | Failed | … ('' when not set yet) */
  phase: string;
  /** spec.clusterServiceVersionNames: what it installs */
  csvNames: string[];
  /** the Subscriptions it installs for (their status.installPlanRef, or the plan's owner references) */
  subscriptions: { namespace: string; name: string; package: string }[];
  /** the Installed=False condition's message of a failed plan */
  message?: string;
}

/** The tick's read of a cluster's InstallPlans for this step. */
export type InstallPlansReading =
  | { state: 'read'; plans: InstallPlanReading[] }
  /** the provider has no InstallPlans (OCM): the phase is skipped with this note */
  | { state: 'unsupported'; message: string }
  /** not read this step (the phase has not begun), or the read failed (message) */
  | { state: 'unread'; message?: string };

export interface ApprovedPlan {
  namespace: string;
  name: string;
  /** the operators (Subscription namespace/name) it belongs to */
  operators: string[];
  csvNames: string[];
  /** when the approval was requested (its intent written) */
  requestedAt: number;
  /** when a read showed it approved (the call returned, or observed after a crash) */
  confirmedAt: number | null;
  /** when a read showed it Complete */
  completedAt: number | null;
}

export interface LeftPlan {
  namespace: string;
  name: string;
  operators: string[];
  csvNames: string[];
  /** why the policy leaves it pending */
  why: string;
}

/** The phase's record on the attempt (shown on the cluster page). */
export interface OperatorApprovalsProgress {
  /** when the phase began: the platform upgrade was seen completed */
  since: number;
  approved: ApprovedPlan[];
  /** pending manual plans the policy leaves alone, as last read */
  left: LeftPlan[];
  /** when the phase ended (every approved plan Complete, or nothing to approve) */
  doneAt: number | null;
}

export const approvalKey = (attemptId: number, plan: { namespace: string; name: string }) =>
  `${attemptId}:approve:${plan.namespace}/${plan.name}`;

export const planId = (p: { namespace: string; name: string }) => `${p.namespace}/${p.name}`;

/** A plan waits for an operator's approval: manual, not approved, and OLM says it needs approval. */
export const isPendingManual = (p: InstallPlanReading) => p.approval === 'Manual' && !p.approved && p.phase === 'RequiresApproval';

/** `namespace/name` of each Subscription of the plan (what the UI and messages name). */
const operatorsOf = (p: InstallPlanReading) => p.subscriptions.map((s) => `${s.namespace}/${s.name}`);

/** Does a name of the policy (`name`, `namespace/name` or `*`) match one of the plan's Subscriptions? */
function matches(pattern: string, p: InstallPlanReading): boolean {
  if (pattern === '*') return true;
  const slash = pattern.indexOf('/');
  return p.subscriptions.some((s) =>
    slash >= 0
      ? s.namespace === pattern.slice(0, slash) && (s.name === pattern.slice(slash + 1) || s.package === pattern.slice(slash + 1))
      : s.name === pattern || s.package === pattern,
  );
}

/** The policy's verdict on one plan: approve it, or leave it pending with the reason. */
export function selectPlan(config: OperatorApprovalsConfig, p: InstallPlanReading): { approve: true } | { approve: false; why: string } {
  const excludedBy = config.exclude.find((x) => matches(x, p));
  if (excludedBy !== undefined) return { approve: false, why: `excluded (operatorApprovals.exclude: ${excludedBy})` };
  if (p.subscriptions.length === 0 && !config.include.includes('*'))
    return { approve: false, why: 'no Subscription names it (only include: [*] approves it)' };
  if (!config.include.some((x) => matches(x, p))) return { approve: false, why: 'not in operatorApprovals.include' };
  return { approve: true };
}

export type ApprovalEffect = { kind: 'approve-installplan'; idempotencyKey: string; namespace: string; name: string };

export type PhaseOutcome =
  | { kind: 'wait'; progress: OperatorApprovalsProgress; effects: ApprovalEffect[]; notes: string[] }
  | { kind: 'done'; progress: OperatorApprovalsProgress; effects: []; notes: string[]; summary: string }
  | {
      kind: 'failed';
      reason: 'OPERATOR_APPROVAL_TIMEOUT' | 'OPERATOR_INSTALL_FAILED';
      message: string;
      progress: OperatorApprovalsProgress;
      notes: string[];
    };

const list = (names: string[]) => (names.length ? names.join(', ') : 'none');
const describePlan = (p: { namespace: string; name: string; operators: string[]; csvNames: string[] }) =>
  `${planId(p)} (${p.operators.length ? p.operators.join(', ') : 'no Subscription'} → ${list(p.csvNames)})`;

/** What the phase has done so far, one sentence (the transition that leaves it says it). */
export function summarizeApprovals(progress: OperatorApprovalsProgress): string {
  const approved = progress.approved.map((a) => describePlan(a));
  const left = progress.left.map((l) => `${describePlan(l)}: ${l.why}`);
  return `approved ${approved.length ? approved.join('; ') : 'no InstallPlan'}${left.length ? `; left pending: ${left.join('; ')}` : ''}`;
}

/**
 * One step of the phase on a fresh read of the plans. `elapsed` counts from `progress.since`;
 * past `timeoutMs` with approved plans not Complete (or nothing read) the phase fails.
 */
export function stepOperatorApprovals(
  attemptId: number,
  config: OperatorApprovalsConfig,
  progress: OperatorApprovalsProgress,
  reading: InstallPlansReading,
  now: number,
): PhaseOutcome {
  const timedOut = now > progress.since + config.timeoutMs;
  if (reading.state !== 'read') {
    if (timedOut)
      return {
        kind: 'failed',
        reason: 'OPERATOR_APPROVAL_TIMEOUT',
        message: `InstallPlans not read for the operator approvals within ${formatDuration(config.timeoutMs)}${reading.state === 'unread' && reading.message ? `: ${reading.message}` : ''}`,
        progress,
        notes: [],
      };
    return { kind: 'wait', progress, effects: [], notes: [] };
  }
  const byId = new Map(reading.plans.map((p) => [planId(p), p]));
  const notes: string[] = [];
  const effects: ApprovalEffect[] = [];
  // what the read says of the plans already approved: confirmed (approved: true) and Complete
  const approved = progress.approved.map((a): ApprovedPlan => {
    const p = byId.get(planId(a));
    if (!p) return a;
    return {
      ...a,
      confirmedAt: a.confirmedAt ?? (p.approved ? now : null),
      completedAt: a.completedAt ?? (p.phase === 'Complete' ? now : null),
    };
  });
  const failedPlan = reading.plans.find((p) => p.phase === 'Failed' && approved.some((a) => planId(a) === planId(p)));
  const left: LeftPlan[] = [];
  /** selected plans not approved because the phase is over its time */
  const unapproved: InstallPlanReading[] = [];
  for (const p of reading.plans) {
    if (!isPendingManual(p)) continue;
    const verdict = selectPlan(config, p);
    if (!verdict.approve) {
      // the policy may have changed since a request: an excluded plan is never (re-)approved
      left.push({ namespace: p.namespace, name: p.name, operators: operatorsOf(p), csvNames: p.csvNames, why: verdict.why });
      continue;
    }
    if (timedOut) {
      unapproved.push(p);
      continue;
    }
    if (approved.some((a) => planId(a) === planId(p))) {
      // requested before and still read unapproved: the call never reached the cluster (or failed); same key again
      effects.push({ kind: 'approve-installplan', idempotencyKey: approvalKey(attemptId, p), namespace: p.namespace, name: p.name });
      continue;
    }
    approved.push({
      namespace: p.namespace,
      name: p.name,
      operators: operatorsOf(p),
      csvNames: p.csvNames,
      requestedAt: now,
      confirmedAt: null,
      completedAt: null,
    });
    notes.push(`approving InstallPlan ${describePlan({ ...p, operators: operatorsOf(p) })}`);
    effects.push({ kind: 'approve-installplan', idempotencyKey: approvalKey(attemptId, p), namespace: p.namespace, name: p.name });
  }
  for (const l of left)
    if (!progress.left.some((x) => planId(x) === planId(l))) notes.push(`leaving InstallPlan ${describePlan(l)} pending: ${l.why}`);
  const next: OperatorApprovalsProgress = { ...progress, approved, left };
  if (failedPlan) {
    const message = `InstallPlan ${planId(failedPlan)} failed after its approval${failedPlan.message ? `: ${failedPlan.message}` : ''}`;
    return { kind: 'failed', reason: 'OPERATOR_INSTALL_FAILED', message, progress: { ...next, doneAt: now }, notes };
  }
  // a plan OLM garbage-collected after its approval is no longer waited for
  const waiting = approved.filter((a) => a.completedAt === null && byId.has(planId(a)));
  if (effects.length === 0 && waiting.length === 0 && unapproved.length === 0) {
    const done = { ...next, doneAt: now };
    return { kind: 'done', progress: done, effects: [], notes, summary: summarizeApprovals(done) };
  }
  if (timedOut)
    return {
      kind: 'failed',
      reason: 'OPERATOR_APPROVAL_TIMEOUT',
      message: `not done ${formatDuration(config.timeoutMs)} after the platform upgrade: ${[
        ...waiting.map((a) => `${planId(a)} ${byId.get(planId(a))?.phase || 'without a phase'}`),
        ...unapproved.map((p) => `${planId(p)} not approved yet`),
      ].join(', ')}; ${summarizeApprovals(next)}`,
      progress: { ...next, doneAt: now },
      notes,
    };
  return { kind: 'wait', progress: next, effects, notes };
}
