// What the policy use cases share: finding the organization, the stored fleet with a change
// applied, whole-fleet validation, revision checks, and writing a revision with its history and
// audit rows. Every write goes through writeOrganization / writeClusterPolicy inside the caller's
// transaction, after validation, so a rejected write leaves nothing behind.
import type { Db } from '@/db/open-database';
import { jsonEqual } from '@/lib/json-diff';
import { lintPolicies, type GraphCoverage } from '@/server/domain/plan/lint-policies';
import type { PlanInput } from '@/server/domain/plan/types';
import { validatePlanInput } from '@/server/domain/plan/validate-plan-input';
import { nameProblems, type NamedProblem, type NamedWarning, type PathMapping } from '@/server/domain/policy-files/named-problems';
import { planOrganizationOf, sectorSettingsOf, type OrganizationSnapshot } from '@/server/domain/policy-files/organization-snapshot';
import { appendAudit } from '@/server/repositories/audit-repository';
import type { OrganizationRow } from '@/server/repositories/organization-repository';
import { requireScopedOrganization, type OrganizationScope } from '../organization-scope';
import { loadPlanDocument, type PlanDocument } from '@/server/repositories/plan-document-repository';
import * as repo from '@/server/repositories/policy-repository';
import { withTransaction } from '@/server/repositories/transaction';
import { AppError } from '../app-error';

/** What every policy use case runs against. */
export interface PolicyContext {
  db: Db;
  /** the fleet's clock: what the engine sees while validating a change */
  now: () => Date;
  /** the wall clock: stamps revisions and audit rows, so moving the simulated clock cannot re-date history */
  realNow: () => Date;
  /** the organization the use case works on */
  organization: OrganizationScope;
}

/** Who changes policies when no user does (the CLI). */
export const SYSTEM_ACTOR = 'system';

/** The use case's organization (read again: inside a transaction, its current row). */
export async function requireOrganization(ctx: PolicyContext): Promise<OrganizationRow> {
  return await requireScopedOrganization(ctx.organization);
}

export async function snapshotOf(tx: Db, org: OrganizationRow): Promise<OrganizationSnapshot> {
  return {
    name: org.name,
    sectors: (await repo.listSectors(tx, org.id)).map((s) => sectorSettingsOf(s)),
    blockedVersions: (await repo.listBlockedVersions(tx, org.id)).map((b) => ({ pattern: b.pattern, reason: b.reason })),
    upgradePolicyAllowedWorkloads: org.allowedWorkloads ?? null,
    upgradePolicyAllowedMutexes: org.allowedMutexes ?? null,
    targetVersion: org.targetVersion,
    maxVersion: org.maxVersion,
    frozen: org.frozen,
    frozenReason: org.frozenReason ?? null,
  };
}

export function invalid(message: string, problems: NamedProblem[]): AppError {
  return new AppError(
    'INVALID_INPUT',
    `${message}: ${problems.length} problem(s), first: ${problems[0]?.path}: ${problems[0]?.message}`,
    problems,
  );
}

/**
 * The stored fleet as the engine's input with a change applied. `db` (not the transaction
 * handle) is fine inside a transaction: better-sqlite3 has one connection, so these reads see
 * the transaction's state.
 */
export async function documentWith(
  ctx: PolicyContext,
  org: OrganizationRow,
  change: {
    organization?: Omit<OrganizationSnapshot, 'frozen' | 'frozenReason'>;
    clusters?: { name: string; policy: Record<string, unknown> | null }[];
  },
  at: Date,
): Promise<{ doc: PlanDocument; unknown: { index: number; name: string }[] }> {
  // gone clusters too: their policies must stay valid for the day the provider lists them again
  const doc = await loadPlanDocument(ctx.db, org.id, at, { includeGone: true });
  if (change.organization) {
    // the instance's blocked versions are not the organization's to change: kept as loaded
    doc.organization = { ...planOrganizationOf(change.organization), ...pick(doc.organization.instanceBlockedVersions) };
    // approvals of a sector the change removes or renames no longer count (they stay stored)
    const names = new Set(doc.organization.sectors.map((s) => s.name));
    const kept = doc.approvals?.filter((a) => names.has(a.sector));
    if (kept && kept.length > 0) doc.approvals = kept;
    else delete doc.approvals;
  }
  const unknown: { index: number; name: string }[] = [];
  (change.clusters ?? []).forEach((c, index) => {
    const target = doc.clusters.find((x) => x.name === c.name);
    if (!target) unknown.push({ index, name: c.name });
    else if (c.policy === null) delete target.upgradePolicy;
    else target.upgradePolicy = c.policy;
  });
  return { doc, unknown };
}

function pick(instanceBlockedVersions: string[] | undefined): { instanceBlockedVersions?: string[] } {
  return instanceBlockedVersions ? { instanceBlockedVersions } : {};
}

/** Validates the whole document; problems named for the caller's input. */
export function checkDocument(
  doc: PlanDocument,
  mapping: PathMapping,
): { ok: true; input: PlanInput } | { ok: false; problems: NamedProblem[] } {
  const result = validatePlanInput(doc);
  if (result.ok) return result;
  return {
    ok: false,
    problems: nameProblems(
      result.problems,
      doc.clusters.map((c) => c.name),
      mapping,
    ),
  };
}

/**
 * The policy lint, named for the caller; with the stored update graphs (when any) their minors are
 * checked too, and with the organization's provider kind the rules that depend on it.
 */
export function lintInput(
  input: PlanInput,
  mapping: PathMapping,
  context: { graphs?: GraphCoverage; provider?: string } = {},
): NamedWarning[] {
  return nameProblems(
    lintPolicies(input, context),
    input.clusters.map((c) => c.name),
    mapping,
  );
}

export function requireRevision(current: number, expected: number | undefined, what: string): void {
  if (expected !== undefined && current !== expected) {
    throw new AppError(
      'CONFLICT',
      `${what} changed meanwhile (revision ${current}, you edited revision ${expected}); reload and apply your edit again`,
    );
  }
}

export interface RevisionEntry {
  actor: string;
  action: string;
  summary: string;
  at: Date;
}

/** Writes new organization settings (and freeze) with their revision and audit rows. */
export async function writeOrganization(
  tx: Db,
  org: OrganizationRow,
  before: OrganizationSnapshot,
  after: OrganizationSnapshot,
  entry: RevisionEntry,
): Promise<{ revision: number; revisionId: number }> {
  if (!jsonEqual(before.sectors, after.sectors)) await repo.replaceSectors(tx, org.id, after.sectors);
  await repo.replaceBlockedVersions(tx, org.id, after.blockedVersions, entry.actor, entry.at);
  const ok = await repo.updateOrganizationRow(
    tx,
    org.id,
    org.revision,
    {
      name: after.name,
      allowedWorkloads: after.upgradePolicyAllowedWorkloads,
      allowedMutexes: after.upgradePolicyAllowedMutexes,
      targetVersion: after.targetVersion ?? null,
      maxVersion: after.maxVersion ?? null,
      frozen: after.frozen,
      frozenReason: after.frozenReason,
    },
    entry.at,
  );
  if (!ok) throw new AppError('CONFLICT', 'The organization changed meanwhile; reload and apply your edit again');
  return await recordRevision(tx, org, { scope: 'organization', subject: after.name, revision: org.revision + 1, before, after }, entry);
}

/** Writes a cluster's new policy (null = unmanaged) with its revision and audit rows. */
export async function writeClusterPolicy(
  tx: Db,
  org: OrganizationRow,
  cluster: repo.ClusterPolicyRow,
  after: Record<string, unknown> | null,
  entry: RevisionEntry,
): Promise<{ revision: number; revisionId: number }> {
  if (!(await repo.setClusterPolicy(tx, cluster.id, cluster.policyRevision, after))) {
    throw new AppError('CONFLICT', `The policy of ${cluster.name} changed meanwhile; reload and apply your edit again`);
  }
  return await recordRevision(
    tx,
    org,
    { scope: 'cluster', subject: cluster.name, revision: cluster.policyRevision + 1, before: cluster.upgradePolicy, after },
    entry,
  );
}

/** The revision row of a written change and its audit row (target `<scope>:<subject>`). */
async function recordRevision(
  tx: Db,
  org: OrganizationRow,
  change: Pick<repo.PolicyRevisionInput, 'scope' | 'subject' | 'revision' | 'before' | 'after'>,
  entry: RevisionEntry,
): Promise<{ revision: number; revisionId: number }> {
  const { actor, action, summary, at } = entry;
  const revisionId = await repo.insertPolicyRevision(tx, { organizationId: org.id, ...change, actor, at, summary });
  await appendAudit(tx, {
    at,
    actor,
    action,
    organizationId: org.id,
    target: `${change.scope}:${change.subject}`,
    before: change.before,
    after: change.after,
  });
  return { revision: change.revision, revisionId };
}

/** Validates `make(before)` against the whole fleet and writes it as the organization's next revision. */
export async function commitOrganization(
  ctx: PolicyContext,
  actor: string,
  expectedRevision: number | undefined,
  make: (before: OrganizationSnapshot) => OrganizationSnapshot,
  entry: { action: string; summary: (before: OrganizationSnapshot, after: OrganizationSnapshot) => string },
  mapping: PathMapping,
) {
  return await withTransaction(ctx.db, async (tx) => {
    const at = ctx.now();
    const org = await requireOrganization(ctx);
    requireRevision(org.revision, expectedRevision, 'The organization');
    const before = await snapshotOf(tx, org);
    const after = make(before);
    const { doc } = await documentWith(ctx, org, { organization: after }, at);
    const checked = checkDocument(doc, mapping);
    if (!checked.ok) throw invalid('The organization would not be valid', checked.problems);
    if (jsonEqual(before, after)) return { changed: false, revision: org.revision, revisionId: null };
    const written = await writeOrganization(tx, org, before, after, {
      actor,
      action: entry.action,
      summary: entry.summary(before, after),
      at: ctx.realNow(),
    });
    return { changed: true, ...written };
  });
}

/** A revision's summary with the operator's optional reason after it ("…: why"). */
export function withReason(summary: string, reason: string | undefined): string {
  const why = reason?.trim();
  return why ? `${summary}: ${why}` : summary;
}
