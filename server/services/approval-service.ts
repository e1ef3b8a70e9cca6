// Approvals of sectors' gates (issue 14): an operator, or an automation with an
// `approvals:write` token, approves the rollout of a version into a sector (kind before) or past
// it (kind after); an operator revokes one. Validated before writing; each change is one
// transaction with its audit row (who, when, why). Idempotent: approving an approved gate, or
// revoking a revoked one, changes nothing and writes nothing.
import type { Db } from '@/db/open-database';
import type { Actor } from '@/server/auth/actor';
import { APPROVAL_KINDS, type ApprovalKind } from '@/server/domain/plan/sector-gates';
import { isSemver } from '@/server/domain/version/version';
import * as repo from '@/server/repositories/approval-repository';
import { appendAudit } from '@/server/repositories/audit-repository';
import type { OrganizationScope } from './organization-scope';
import { listSectors } from '@/server/repositories/policy-repository';
import { withTransaction } from '@/server/repositories/transaction';
import { AppError } from './app-error';

export interface GateInput {
  sector: string;
  version: string;
  kind?: ApprovalKind;
}

export interface ApprovalSummary {
  id: number;
  sector: string;
  version: string;
  kind: ApprovalKind;
  approvedBy: string;
  approvedAt: string;
  reason: string;
  revokedAt: string | null;
  revokedBy: string | null;
}

export const MAX_APPROVAL_REASON = 500;

function summaryOf(row: repo.ApprovalRow): ApprovalSummary {
  return {
    id: row.id,
    sector: row.sector,
    version: row.version,
    kind: row.kind,
    approvedBy: row.approvedBy,
    approvedAt: row.approvedAt.toISOString(),
    reason: row.reason,
    revokedAt: row.revokedAt?.toISOString() ?? null,
    revokedBy: row.revokedBy ?? null,
  };
}

/**
 * `organization:app-sre sector:prod version:4.14.5 before`: the audit row's target (the audit log
 * is the instance's: the organization says whose sector it is)
 */
function gateTarget(organization: string, g: { sector: string; version: string; kind: ApprovalKind }): string {
  return `organization:${organization} sector:${g.sector} version:${g.version} ${g.kind}`;
}

/** `realNow` stamps approvals and audit rows (never the fleet's simulated clock). */
export function createApprovalService(db: Db, realNow: () => Date, scope: OrganizationScope) {
  const organization = async () => {
    const o = await scope();
    if (!o) throw new AppError('PRECONDITION_FAILED', 'No organization exists yet');
    return o;
  };

  /** The gate, checked: a sector that declares that gate, a release, a known kind. */
  async function checkedGate(organizationId: number, input: GateInput): Promise<repo.GateKey> {
    const kind = input.kind ?? 'before';
    const problems: { path: string; message: string }[] = [];
    const sector = (await listSectors(db, organizationId)).find((s) => s.name === input.sector);
    if (!sector) problems.push({ path: 'sector', message: `sector '${input.sector}' does not exist` });
    if (!isSemver(input.version)) problems.push({ path: 'version', message: `not a release: '${input.version}'` });
    if (!(APPROVAL_KINDS as readonly string[]).includes(kind)) problems.push({ path: 'kind', message: `must be before or after` });
    else if (sector && !(kind === 'before' ? sector.approvalBefore : sector.approvalAfter)) {
      problems.push({ path: 'kind', message: `sector '${sector.name}' has no approval.${kind} gate` });
    }
    if (problems.length) throw new AppError('INVALID_INPUT', problems.map((p) => `${p.path}: ${p.message}`).join('; '), problems);
    return { organizationId, sector: input.sector, version: input.version, kind };
  }

  return {
    async list(input: { includeRevoked?: boolean } = {}): Promise<ApprovalSummary[]> {
      return (await repo.listApprovals(db, (await organization()).id, input)).map(summaryOf);
    },

    /** Approves the gate; `changed` is false when it was approved already (nothing written). */
    async approve(input: GateInput & { reason?: string; actor: Actor }): Promise<{ approval: ApprovalSummary; changed: boolean }> {
      const reason = (input.reason ?? '').trim();
      if (reason.length > MAX_APPROVAL_REASON) {
        throw new AppError('INVALID_INPUT', `reason: at most ${MAX_APPROVAL_REASON} characters`, [
          { path: 'reason', message: `at most ${MAX_APPROVAL_REASON} characters` },
        ]);
      }
      const o = await organization();
      const key = await checkedGate(o.id, input);
      return await withTransaction(db, async (tx) => {
        const existing = await repo.findApproval(tx, key);
        if (existing && !existing.revokedAt) return { approval: summaryOf(existing), changed: false };
        const at = realNow();
        const row = await repo.saveApproval(tx, key, { approvedBy: input.actor.name, approvedAt: at, reason });
        await appendAudit(tx, {
          at,
          actor: input.actor.name,
          action: 'approval.approve',
          organizationId: o.id,
          target: gateTarget(o.name, key),
          before: existing ? { approved: false } : null,
          after: { sector: key.sector, version: key.version, kind: key.kind, approved: true, reason },
        });
        return { approval: summaryOf(row), changed: true };
      });
    },

    /** Revokes the gate's approval; `changed` is false when it was revoked already. */
    async revoke(input: GateInput & { reason?: string; actor: Actor }): Promise<{ approval: ApprovalSummary; changed: boolean }> {
      const o = await organization();
      const kind = input.kind ?? 'before';
      const reason = (input.reason ?? '').trim().slice(0, MAX_APPROVAL_REASON);
      return await withTransaction(db, async (tx) => {
        const existing = await repo.findApproval(tx, { organizationId: o.id, sector: input.sector, version: input.version, kind });
        if (!existing) throw new AppError('NOT_FOUND', `No approval of ${input.version} ${kind} sector ${input.sector}`);
        if (existing.revokedAt) return { approval: summaryOf(existing), changed: false };
        const at = realNow();
        const row = await repo.revokeApproval(tx, existing.id, { revokedBy: input.actor.name, revokedAt: at });
        await appendAudit(tx, {
          at,
          actor: input.actor.name,
          action: 'approval.revoke',
          organizationId: o.id,
          target: gateTarget(o.name, existing),
          before: { sector: existing.sector, version: existing.version, kind: existing.kind, approved: true },
          after: { approved: false, reason },
        });
        return { approval: summaryOf(row), changed: true };
      });
    },
  };
}
