// Editing upgrade policies: the organization (sectors, blocked versions, allow-lists, freeze)
// and each cluster's policy, with history, revert, live validation, impact preview and the
// upgrade service's YAML files. Every write runs in one transaction that first validates the
// WHOLE resulting organization + fleet with the decision engine's validator, checks the
// caller's expected revision (optimistic concurrency), then writes the change, a
// policy_revisions row and an audit_log row. A rejected write leaves nothing behind.
import type { Db } from '@/db/open-database';
import { diffJson, jsonEqual, type JsonChange } from '@/server/domain/diff/json-diff';
import { decideUpgrades } from '@/server/domain/plan/decide-upgrades';
import { lintPolicies } from '@/server/domain/plan/lint-policies';
import type { Decision, PlanInput } from '@/server/domain/plan/types';
import { validatePlanInput } from '@/server/domain/plan/validate-plan-input';
import { nameProblems, type NamedProblem, type NamedWarning, type PathMapping } from '@/server/domain/policy-files/named-problems';
import { organizationFilePath, parseOrganizationFile } from '@/server/domain/policy-files/parse-policy-files';
import { policySpecFromDocument, policySpecToDocument } from '@/server/domain/policy-files/policy-spec';
import { renderClusterFile, renderOrganizationFile } from '@/server/domain/policy-files/render-policy-files';
import type { ClusterPolicyEntrySpec, OrganizationFile, SectorSpec, UpgradePolicySpec } from '@/server/domain/policy-files/types';
import { appendAudit } from '@/server/repositories/audit-repository';
import { loadPlanDocument, type PlanDocument } from '@/server/repositories/plan-document-repository';
import * as repo from '@/server/repositories/policy-repository';
import { findOrganization, type OrganizationRow } from '@/server/repositories/organization-repository';
import type { DbOrTx } from '@/server/repositories/policy-repository';
import { AppError } from './app-error';

// ---------------------------------------------------------------------------------------------
// Shapes exchanged with the API

export interface SectorInput {
  name: string;
  /** "N" or "P%"; null/absent = no limit */
  maxParallelUpgrades?: string | null;
  dependencies: string[];
}

export interface BlockedVersionInput {
  pattern: string;
  reason: string;
}

/** The organization's editable settings (everything but freeze and the cluster policies). */
export interface OrganizationSettingsInput {
  sectors: SectorInput[];
  blockedVersions: BlockedVersionInput[];
  /** null = no allow-list (any workload allowed) */
  upgradePolicyAllowedWorkloads: string[] | null;
  upgradePolicyAllowedMutexes: string[] | null;
}

/** What an organization revision stores as before/after (and revert restores). */
export interface OrganizationSnapshot {
  name: string;
  sectors: { name: string; maxParallelUpgrades: string | null; dependencies: string[] }[];
  blockedVersions: BlockedVersionInput[];
  upgradePolicyAllowedWorkloads: string[] | null;
  upgradePolicyAllowedMutexes: string[] | null;
  frozen: boolean;
  frozenReason: string | null;
}

/** Unsaved edits: new organization settings and/or new policies for some clusters (null = unmanage). */
export interface PolicyDraft {
  organization?: OrganizationSettingsInput;
  clusters?: { name: string; policy: UpgradePolicySpec | null }[];
}

export type PolicyScope = 'organization' | 'cluster';

export interface DecisionSummary {
  action: Decision['action'];
  version: string | null;
  reason: string | null;
  nextRun: string | null;
  message: string;
}

const SYSTEM_ACTOR = 'system';

// ---------------------------------------------------------------------------------------------
// Small pure helpers

function normalizeSettings(input: OrganizationSettingsInput): Omit<OrganizationSnapshot, 'name' | 'frozen' | 'frozenReason'> {
  return {
    sectors: input.sectors.map((s) => ({
      name: s.name,
      maxParallelUpgrades:
        s.maxParallelUpgrades === undefined || s.maxParallelUpgrades === null || String(s.maxParallelUpgrades).trim() === ''
          ? null
          : String(s.maxParallelUpgrades).trim(),
      dependencies: [...s.dependencies],
    })),
    blockedVersions: input.blockedVersions.map((b) => ({ pattern: b.pattern, reason: b.reason })),
    upgradePolicyAllowedWorkloads: input.upgradePolicyAllowedWorkloads ? [...input.upgradePolicyAllowedWorkloads] : null,
    upgradePolicyAllowedMutexes: input.upgradePolicyAllowedMutexes ? [...input.upgradePolicyAllowedMutexes] : null,
  };
}

/** The engine's `organization` for a snapshot. */
function planOrganizationOf(s: Omit<OrganizationSnapshot, 'frozen' | 'frozenReason'>): PlanDocument['organization'] {
  return {
    name: s.name,
    blockedVersions: s.blockedVersions.map((b) => b.pattern),
    ...(s.upgradePolicyAllowedWorkloads ? { upgradePolicyAllowedWorkloads: s.upgradePolicyAllowedWorkloads } : {}),
    ...(s.upgradePolicyAllowedMutexes ? { upgradePolicyAllowedMutexes: s.upgradePolicyAllowedMutexes } : {}),
    sectors: s.sectors.map((x) => ({
      name: x.name,
      ...(x.maxParallelUpgrades !== null ? { maxParallelUpgrades: x.maxParallelUpgrades } : {}),
      dependencies: x.dependencies.map((name) => ({ name })),
    })),
  };
}

function summarizeDecision(d: Decision | undefined): DecisionSummary | null {
  if (!d) return null;
  return { action: d.action, version: d.version ?? null, reason: d.reason ?? null, nextRun: d.nextRun ?? null, message: d.message };
}

function sameDecision(a: DecisionSummary | null, b: DecisionSummary | null): boolean {
  if (a === null || b === null) return a === b;
  return a.action === b.action && a.version === b.version && a.reason === b.reason && a.nextRun === b.nextRun;
}

function sameList(a: readonly string[] | null, b: readonly string[] | null): boolean {
  return jsonEqual(a, b);
}

function invalid(message: string, problems: NamedProblem[]): AppError {
  return new AppError(
    'INVALID_INPUT',
    `${message}: ${problems.length} problem(s), first: ${problems[0]?.path}: ${problems[0]?.message}`,
    problems,
  );
}

// ---------------------------------------------------------------------------------------------

export function createPolicyService(db: Db, now: () => Date) {
  function requireOrganization(tx: DbOrTx): OrganizationRow {
    const org = findOrganization(tx);
    if (!org) throw new AppError('NOT_FOUND', 'No organization yet: seed the demo fleet or import an organization file');
    return org;
  }

  function snapshotOf(tx: DbOrTx, org: OrganizationRow): OrganizationSnapshot {
    return {
      name: org.name,
      sectors: repo
        .listSectors(tx, org.id)
        .map((s) => ({ name: s.name, maxParallelUpgrades: s.maxParallelUpgrades, dependencies: s.dependencies })),
      blockedVersions: repo.listBlockedVersions(tx, org.id).map((b) => ({ pattern: b.pattern, reason: b.reason })),
      upgradePolicyAllowedWorkloads: org.allowedWorkloads ?? null,
      upgradePolicyAllowedMutexes: org.allowedMutexes ?? null,
      frozen: org.frozen,
      frozenReason: org.frozenReason ?? null,
    };
  }

  /**
   * The stored fleet as the engine's input with the draft applied. `db` (not the transaction
   * handle) is fine inside a transaction: better-sqlite3 has one connection, so these reads see
   * the transaction's state.
   */
  function documentWith(
    org: OrganizationRow,
    change: {
      organization?: Omit<OrganizationSnapshot, 'frozen' | 'frozenReason'>;
      clusters?: { name: string; policy: Record<string, unknown> | null }[];
    },
    at: Date,
  ): { doc: PlanDocument; unknown: { index: number; name: string }[] } {
    const doc = loadPlanDocument(db, org.id, at);
    if (change.organization) doc.organization = planOrganizationOf(change.organization);
    const unknown: { index: number; name: string }[] = [];
    (change.clusters ?? []).forEach((c, index) => {
      const target = doc.clusters.find((x) => x.name === c.name);
      if (!target) unknown.push({ index, name: c.name });
      else if (c.policy === null) delete target.upgradePolicy;
      else target.upgradePolicy = c.policy;
    });
    return { doc, unknown };
  }

  /** Validates the whole document; problems named for the caller's input. */
  function check(doc: PlanDocument, mapping: PathMapping): { ok: true; input: PlanInput } | { ok: false; problems: NamedProblem[] } {
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

  function lint(input: PlanInput, mapping: PathMapping): NamedWarning[] {
    return nameProblems(
      lintPolicies(input),
      input.clusters.map((c) => c.name),
      mapping,
    );
  }

  function requireRevision(current: number, expected: number | undefined, what: string): void {
    if (expected !== undefined && current !== expected) {
      throw new AppError(
        'CONFLICT',
        `${what} changed meanwhile (revision ${current}, you edited revision ${expected}); reload and apply your edit again`,
      );
    }
  }

  /** Writes new organization settings (and freeze) with their revision and audit rows. */
  function writeOrganization(
    tx: DbOrTx,
    org: OrganizationRow,
    before: OrganizationSnapshot,
    after: OrganizationSnapshot,
    entry: { actor: string; action: string; summary: string; at: Date },
  ): { revision: number; revisionId: number } {
    if (!jsonEqual(before.sectors, after.sectors)) repo.replaceSectors(tx, org.id, after.sectors);
    repo.replaceBlockedVersions(tx, org.id, after.blockedVersions, entry.actor, entry.at);
    const ok = repo.updateOrganizationRow(
      tx,
      org.id,
      org.revision,
      {
        name: after.name,
        allowedWorkloads: after.upgradePolicyAllowedWorkloads,
        allowedMutexes: after.upgradePolicyAllowedMutexes,
        frozen: after.frozen,
        frozenReason: after.frozenReason,
      },
      entry.at,
    );
    if (!ok) throw new AppError('CONFLICT', 'The organization changed meanwhile; reload and apply your edit again');
    const revision = org.revision + 1;
    const revisionId = repo.insertPolicyRevision(tx, {
      organizationId: org.id,
      scope: 'organization',
      subject: after.name,
      revision,
      actor: entry.actor,
      at: entry.at,
      summary: entry.summary,
      before,
      after,
    });
    appendAudit(tx, { at: entry.at, actor: entry.actor, action: entry.action, target: `organization:${after.name}`, before, after });
    return { revision, revisionId };
  }

  function writeClusterPolicy(
    tx: DbOrTx,
    org: OrganizationRow,
    cluster: repo.ClusterPolicyRow,
    after: Record<string, unknown> | null,
    entry: { actor: string; action: string; summary: string; at: Date },
  ): { revision: number; revisionId: number } {
    if (!repo.setClusterPolicy(tx, cluster.id, cluster.policyRevision, after)) {
      throw new AppError('CONFLICT', `The policy of ${cluster.name} changed meanwhile; reload and apply your edit again`);
    }
    const revision = cluster.policyRevision + 1;
    const before = cluster.upgradePolicy;
    const revisionId = repo.insertPolicyRevision(tx, {
      organizationId: org.id,
      scope: 'cluster',
      subject: cluster.name,
      revision,
      actor: entry.actor,
      at: entry.at,
      summary: entry.summary,
      before,
      after,
    });
    appendAudit(tx, { at: entry.at, actor: entry.actor, action: entry.action, target: `cluster:${cluster.name}`, before, after });
    return { revision, revisionId };
  }

  /** Validates `after` against the whole fleet and writes it as the organization's next revision. */
  function commitOrganization(
    actor: string,
    expectedRevision: number | undefined,
    make: (before: OrganizationSnapshot) => OrganizationSnapshot,
    entry: { action: string; summary: (before: OrganizationSnapshot, after: OrganizationSnapshot) => string },
    mapping: PathMapping,
  ) {
    return db.transaction((tx) => {
      const at = now();
      const org = requireOrganization(tx);
      requireRevision(org.revision, expectedRevision, 'The organization');
      const before = snapshotOf(tx, org);
      const after = make(before);
      const { doc } = documentWith(org, { organization: after }, at);
      const checked = check(doc, mapping);
      if (!checked.ok) throw invalid('The organization would not be valid', checked.problems);
      if (jsonEqual(before, after)) return { changed: false, revision: org.revision, revisionId: null };
      const written = writeOrganization(tx, org, before, after, { actor, action: entry.action, summary: entry.summary(before, after), at });
      return { changed: true, ...written };
    });
  }

  // -------------------------------------------------------------------------------------------
  // Queries

  function getOrganization() {
    const org = requireOrganization(db);
    const policies = repo.listClusterPolicies(db, org.id);
    const managed = policies.filter((p) => p.upgradePolicy !== null);
    const bySector = new Map<string, number>();
    for (const p of managed) if (p.sector) bySector.set(p.sector, (bySector.get(p.sector) ?? 0) + 1);
    const workloads = new Set<string>();
    const mutexes = new Set<string>();
    for (const p of managed) {
      const spec = policySpecFromDocument(p.upgradePolicy);
      spec.workloads.forEach((w) => workloads.add(w));
      (spec.conditions?.mutexes ?? []).forEach((m) => mutexes.add(m));
    }
    return {
      name: org.name,
      revision: org.revision,
      updatedAt: org.updatedAt.toISOString(),
      frozen: org.frozen,
      frozenReason: org.frozenReason ?? null,
      sectors: repo.listSectors(db, org.id).map((s) => ({
        name: s.name,
        maxParallelUpgrades: s.maxParallelUpgrades,
        dependencies: s.dependencies,
        clusterCount: bySector.get(s.name) ?? 0,
      })),
      blockedVersions: repo
        .listBlockedVersions(db, org.id)
        .map((b) => ({ pattern: b.pattern, reason: b.reason, createdBy: b.createdBy, createdAt: b.createdAt.toISOString() })),
      upgradePolicyAllowedWorkloads: org.allowedWorkloads ?? null,
      upgradePolicyAllowedMutexes: org.allowedMutexes ?? null,
      /** what the policies use, sorted: the editor offers these */
      workloadsInUse: [...workloads].sort(),
      mutexesInUse: [...mutexes].sort(),
      clusterCount: policies.length,
      managedClusterCount: managed.length,
    };
  }

  function clusterPolicyView(p: repo.ClusterPolicyRow) {
    return {
      name: p.name,
      version: p.version,
      managed: p.upgradePolicy !== null,
      sector: p.sector,
      revision: p.policyRevision,
      policy: p.upgradePolicy ? policySpecFromDocument(p.upgradePolicy) : null,
    };
  }

  function getClusterPolicy(name: string) {
    const org = requireOrganization(db);
    const p = repo.findClusterPolicy(db, org.id, name);
    if (!p) throw new AppError('NOT_FOUND', `No cluster named ${name}`);
    return clusterPolicyView(p);
  }

  function listClusterPolicies() {
    const org = requireOrganization(db);
    return repo.listClusterPolicies(db, org.id).map(clusterPolicyView);
  }

  // -------------------------------------------------------------------------------------------
  // Draft validation and impact

  function draftChange(draft: PolicyDraft, org: OrganizationRow) {
    return {
      ...(draft.organization ? { organization: { name: org.name, ...normalizeSettings(draft.organization) } } : {}),
      clusters: (draft.clusters ?? []).map((c) => ({ name: c.name, policy: c.policy ? policySpecToDocument(c.policy) : null })),
    };
  }

  function draftMapping(draft: PolicyDraft): PathMapping {
    const index = new Map((draft.clusters ?? []).map((c, i) => [c.name, i]));
    return {
      clusterPolicyPath: (name) => (index.has(name) ? `clusters[${index.get(name)}].policy` : undefined),
      blockedVersionPath: draft.organization ? (i) => `organization.blockedVersions[${i}].pattern` : undefined,
    };
  }

  /** The draft applied to the stored fleet, validated; also the lint warnings when valid. */
  function evaluateDraft(draft: PolicyDraft) {
    const org = requireOrganization(db);
    const at = now();
    const { doc, unknown } = documentWith(org, draftChange(draft, org), at);
    const mapping = draftMapping(draft);
    const unknownProblems: NamedProblem[] = unknown.map((u) => ({
      path: `clusters[${u.index}].name`,
      message: `no cluster named ${u.name} in the fleet`,
    }));
    const checked = check(doc, mapping);
    if (!checked.ok || unknownProblems.length > 0) {
      return { ok: false as const, problems: [...unknownProblems, ...(checked.ok ? [] : checked.problems)], org, at };
    }
    return { ok: true as const, input: checked.input, warnings: lint(checked.input, mapping), org, at };
  }

  function validateDraft(draft: PolicyDraft): { ok: boolean; problems: NamedProblem[]; warnings: NamedWarning[] } {
    const result = evaluateDraft(draft);
    if (!result.ok) return { ok: false, problems: result.problems, warnings: [] };
    return { ok: true, problems: [], warnings: result.warnings };
  }

  function previewImpact(draft: PolicyDraft) {
    const result = evaluateDraft(draft);
    const nowIso = result.at.toISOString().replace(/\.\d{3}Z$/, 'Z');
    if (!result.ok) return { ok: false as const, now: nowIso, problems: result.problems, changes: [], evaluated: 0, unchanged: 0 };
    const current = validatePlanInput(loadPlanDocument(db, result.org.id, result.at));
    const beforeDecisions = current.ok ? decideUpgrades(current.input).decisions : [];
    const afterDecisions = decideUpgrades(result.input).decisions;
    const before = new Map(beforeDecisions.map((d) => [d.cluster, summarizeDecision(d)]));
    const after = new Map(afterDecisions.map((d) => [d.cluster, summarizeDecision(d)]));
    const names = [...new Set([...afterDecisions.map((d) => d.cluster), ...beforeDecisions.map((d) => d.cluster)])];
    const changes = names
      .map((cluster) => ({ cluster, before: before.get(cluster) ?? null, after: after.get(cluster) ?? null }))
      .filter((c) => !sameDecision(c.before, c.after));
    return {
      ok: true as const,
      now: nowIso,
      problems: [] as NamedProblem[],
      /** clusters whose decision differs with the draft applied (in the draft's evaluation order) */
      changes,
      evaluated: names.length,
      unchanged: names.length - changes.length,
      /** false when the stored fleet itself does not validate (every decision then counts as new) */
      currentValid: current.ok,
    };
  }

  // -------------------------------------------------------------------------------------------
  // Writes

  function updateOrganization(actor: string, input: { expectedRevision: number; organization: OrganizationSettingsInput }) {
    const settings = normalizeSettings(input.organization);
    const result = commitOrganization(
      actor,
      input.expectedRevision,
      (before) => ({ ...before, ...settings }),
      { action: 'policy.organization.update', summary: describeOrganizationChange },
      { blockedVersionPath: (i) => `organization.blockedVersions[${i}].pattern` },
    );
    return { ...result, organization: getOrganization() };
  }

  function setFreeze(actor: string, input: { frozen: boolean; reason: string; expectedRevision?: number }) {
    const reason = input.reason.trim();
    if (input.frozen && reason === '')
      throw invalid('A freeze needs a reason', [{ path: 'reason', message: 'say why upgrades are frozen' }]);
    const result = commitOrganization(
      actor,
      input.expectedRevision,
      (before) => ({ ...before, frozen: input.frozen, frozenReason: input.frozen ? reason : null }),
      {
        action: input.frozen ? 'policy.freeze' : 'policy.unfreeze',
        summary: () => (input.frozen ? `froze upgrades: ${reason}` : `lifted the freeze${reason ? `: ${reason}` : ''}`),
      },
      {},
    );
    return { ...result, organization: getOrganization() };
  }

  function addBlockedVersion(actor: string, input: { pattern: string; reason: string; expectedRevision?: number }) {
    const pattern = input.pattern;
    const reason = input.reason.trim();
    if (reason === '') throw invalid('Blocking a version needs a reason', [{ path: 'reason', message: 'say why the version is blocked' }]);
    let index = -1;
    const result = commitOrganization(
      actor,
      input.expectedRevision,
      (before) => {
        if (before.blockedVersions.some((b) => b.pattern === pattern)) {
          throw new AppError('CONFLICT', `'${pattern}' is already blocked`, [{ path: 'pattern', message: 'already blocked' }]);
        }
        index = before.blockedVersions.length;
        return { ...before, blockedVersions: [...before.blockedVersions, { pattern, reason }] };
      },
      { action: 'policy.blocked-version.add', summary: () => `blocked '${pattern}': ${reason}` },
      { blockedVersionPath: (i) => (i === index ? 'pattern' : undefined) },
    );
    return { ...result, organization: getOrganization() };
  }

  function removeBlockedVersion(actor: string, input: { pattern: string; reason: string; expectedRevision?: number }) {
    const reason = input.reason.trim();
    const result = commitOrganization(
      actor,
      input.expectedRevision,
      (before) => {
        if (!before.blockedVersions.some((b) => b.pattern === input.pattern))
          throw new AppError('NOT_FOUND', `'${input.pattern}' is not blocked`);
        return { ...before, blockedVersions: before.blockedVersions.filter((b) => b.pattern !== input.pattern) };
      },
      { action: 'policy.blocked-version.remove', summary: () => `unblocked '${input.pattern}'${reason ? `: ${reason}` : ''}` },
      {},
    );
    return { ...result, organization: getOrganization() };
  }

  function updateClusterPolicy(actor: string, input: { name: string; expectedRevision: number; policy: UpgradePolicySpec | null }) {
    const result = db.transaction((tx) => {
      const at = now();
      const org = requireOrganization(tx);
      const cluster = repo.findClusterPolicy(tx, org.id, input.name);
      if (!cluster) throw new AppError('NOT_FOUND', `No cluster named ${input.name}`);
      requireRevision(cluster.policyRevision, input.expectedRevision, `The policy of ${input.name}`);
      const after = input.policy ? policySpecToDocument(input.policy) : null;
      const { doc } = documentWith(org, { clusters: [{ name: input.name, policy: after }] }, at);
      const checked = check(doc, { clusterPolicyPath: (name) => (name === input.name ? 'policy' : undefined) });
      if (!checked.ok) throw invalid(`The policy of ${input.name} is not valid`, checked.problems);
      if (jsonEqual(cluster.upgradePolicy, after)) return { changed: false, revision: cluster.policyRevision, revisionId: null };
      const summary =
        after === null ? `removed the policy of ${input.name} (no longer managed)` : describeClusterChange(cluster.upgradePolicy, after);
      return { changed: true, ...writeClusterPolicy(tx, org, cluster, after, { actor, action: 'policy.cluster.update', summary, at }) };
    });
    return { ...result, cluster: getClusterPolicy(input.name) };
  }

  function revert(actor: string, input: { revisionId: number; expectedRevision: number }) {
    return db.transaction((tx) => {
      const at = now();
      const org = requireOrganization(tx);
      const row = repo.findPolicyRevision(tx, org.id, input.revisionId);
      if (!row) throw new AppError('NOT_FOUND', `No policy revision #${input.revisionId}`);
      const summary = `reverted revision #${row.id} (${row.summary})`;
      if (row.scope === 'organization') {
        requireRevision(org.revision, input.expectedRevision, 'The organization');
        const before = snapshotOf(tx, org);
        const target = row.before as OrganizationSnapshot;
        // keep the current name: a revert restores policy, it does not rename
        const after: OrganizationSnapshot = { ...target, name: before.name };
        const { doc } = documentWith(org, { organization: after }, at);
        const checked = check(doc, {});
        if (!checked.ok) throw invalid('Reverting would leave the fleet invalid', checked.problems);
        return {
          scope: row.scope,
          subject: before.name,
          ...writeOrganization(tx, org, before, after, { actor, action: 'policy.revert', summary, at }),
        };
      }
      const cluster = repo.findClusterPolicy(tx, org.id, row.subject);
      if (!cluster) throw new AppError('NOT_FOUND', `Cluster ${row.subject} is no longer in the fleet`);
      requireRevision(cluster.policyRevision, input.expectedRevision, `The policy of ${row.subject}`);
      const after = (row.before as Record<string, unknown> | null) ?? null;
      const { doc } = documentWith(org, { clusters: [{ name: cluster.name, policy: after }] }, at);
      const checked = check(doc, {});
      if (!checked.ok) throw invalid('Reverting would leave the fleet invalid', checked.problems);
      return {
        scope: row.scope,
        subject: cluster.name,
        ...writeClusterPolicy(tx, org, cluster, after, { actor, action: 'policy.revert', summary, at }),
      };
    });
  }

  function history(input: { scope?: PolicyScope; subject?: string; offset?: number; limit?: number }) {
    const org = requireOrganization(db);
    const { rows, total } = repo.listPolicyRevisions(db, {
      organizationId: org.id,
      scope: input.scope,
      subject: input.subject,
      offset: input.offset ?? 0,
      limit: input.limit ?? 50,
    });
    return {
      total,
      revisions: rows.map((r) => ({
        id: r.id,
        scope: r.scope as PolicyScope,
        subject: r.subject,
        revision: r.revision,
        actor: r.actor,
        at: r.at.toISOString(),
        summary: r.summary,
        before: r.before,
        after: r.after,
        changes: diffJson(r.before, r.after) as JsonChange[],
      })),
    };
  }

  // -------------------------------------------------------------------------------------------
  // Organization file import / export

  function organizationFileOf(tx: DbOrTx, org: OrganizationRow): OrganizationFile {
    const extras = repo.getOrganizationFileExtras(tx, org.id);
    const sectors: SectorSpec[] = repo.listSectors(tx, org.id).map((s) => {
      const extra = extras.sectors?.[s.name];
      return {
        name: s.name,
        ...(s.maxParallelUpgrades !== null ? { maxParallelUpgrades: s.maxParallelUpgrades } : {}),
        dependencies: s.dependencies,
        ...(extra ? { extra } : {}),
      };
    });
    const upgradePolicyClusters: ClusterPolicyEntrySpec[] = repo
      .listClusterPolicies(tx, org.id)
      .filter((p) => p.upgradePolicy !== null)
      .map((p) => {
        const extra = extras.clusters?.[p.name];
        return { name: p.name, upgradePolicy: policySpecFromDocument(p.upgradePolicy), ...(extra ? { extra } : {}) };
      });
    return {
      name: org.name,
      blockedVersions: repo.listBlockedVersions(tx, org.id).map((b) => b.pattern),
      ...(org.allowedWorkloads ? { upgradePolicyAllowedWorkloads: org.allowedWorkloads } : {}),
      ...(org.allowedMutexes ? { upgradePolicyAllowedMutexes: org.allowedMutexes } : {}),
      sectors,
      upgradePolicyClusters,
      ...(extras.file ? { extra: extras.file } : {}),
    };
  }

  function exportOrganizationYaml() {
    const org = requireOrganization(db);
    const file = organizationFileOf(db, org);
    return { fileName: `${org.name}.yml`, revision: org.revision, yaml: renderOrganizationFile(file) };
  }

  function exportClusterYaml(name: string) {
    const org = requireOrganization(db);
    const p = repo.findClusterPolicy(db, org.id, name);
    if (!p) throw new AppError('NOT_FOUND', `No cluster named ${name}`);
    return {
      fileName: `${name}.yml`,
      revision: p.policyRevision,
      yaml: renderClusterFile({ name, upgradePolicy: p.upgradePolicy ? policySpecFromDocument(p.upgradePolicy) : null }),
    };
  }

  /**
   * Replaces the organization's policies with an organization file: settings, sectors, blocked
   * versions, and every cluster's policy (clusters the file does not list become unmanaged).
   * Validated as a whole first; `dryRun` reports what would change and writes nothing.
   */
  function importOrganizationYaml(actor: string, input: { yaml: string; dryRun?: boolean; expectedRevision?: number }) {
    const parsed = parseOrganizationFile(input.yaml);
    if (!parsed.ok) throw invalid('The organization file is not valid', parsed.problems);
    const file = parsed.value;
    return db.transaction((tx) => {
      const at = now();
      const org = requireOrganization(tx);
      requireRevision(org.revision, input.expectedRevision, 'The organization');
      const before = snapshotOf(tx, org);
      const reasons = new Map(before.blockedVersions.map((b) => [b.pattern, b.reason]));
      const after: OrganizationSnapshot = {
        ...before,
        name: file.name,
        ...normalizeSettings({
          sectors: file.sectors.map((s) => ({
            name: s.name,
            maxParallelUpgrades: s.maxParallelUpgrades === undefined ? null : String(s.maxParallelUpgrades),
            dependencies: s.dependencies,
          })),
          blockedVersions: file.blockedVersions.map((pattern) => ({
            pattern,
            reason: reasons.get(pattern) ?? 'imported from an organization file',
          })),
          upgradePolicyAllowedWorkloads: file.upgradePolicyAllowedWorkloads ?? null,
          upgradePolicyAllowedMutexes: file.upgradePolicyAllowedMutexes ?? null,
        }),
      };
      const stored = repo.listClusterPolicies(tx, org.id);
      const listed = new Map(
        file.upgradePolicyClusters.map((c, i) => [c.name, { index: i, document: policySpecToDocument(c.upgradePolicy) }]),
      );
      const known = new Set(stored.map((c) => c.name));
      const problems: NamedProblem[] = file.upgradePolicyClusters.flatMap((c, i) =>
        known.has(c.name) ? [] : [{ path: `upgradePolicyClusters[${i}].name`, message: `no cluster named ${c.name} in the fleet` }],
      );
      const clusterChanges = stored.map((c) => ({ row: c, after: listed.get(c.name)?.document ?? null }));
      const { doc } = documentWith(
        org,
        { organization: after, clusters: clusterChanges.map((c) => ({ name: c.row.name, policy: c.after })) },
        at,
      );
      const result = validatePlanInput(doc);
      if (!result.ok) {
        // engine paths → the file's own paths
        const names = doc.clusters.map((c) => c.name);
        for (const p of result.problems) {
          const m = /^clusters\[(\d+)\](.*)$/.exec(p.path);
          const entry = m ? listed.get(names[Number(m[1])] ?? '') : undefined;
          problems.push({
            path: m && entry ? `upgradePolicyClusters[${entry.index}]${m[2] ?? ''}` : organizationFilePath(p.path),
            message: p.message,
            ...(m ? { cluster: names[Number(m[1])] } : {}),
          });
        }
      }
      if (problems.length > 0) throw invalid('The organization file does not fit the fleet', problems);

      const organizationChanged = !jsonEqual(before, after);
      const changed = clusterChanges.filter((c) => !jsonEqual(c.row.upgradePolicy, c.after));
      const summary = {
        dryRun: input.dryRun === true,
        organization: after.name,
        organizationChanged,
        changedClusters: changed.map((c) => c.row.name),
        managedClusters: clusterChanges.filter((c) => c.after !== null).length,
        unmanagedClusters: clusterChanges.filter((c) => c.after === null).length,
        notices: parsed.notices,
        revision: org.revision,
      };
      const sectorExtras = Object.fromEntries(file.sectors.filter((s) => s.extra).map((s) => [s.name, s.extra!]));
      const clusterExtras = Object.fromEntries(file.upgradePolicyClusters.filter((c) => c.extra).map((c) => [c.name, c.extra!]));
      const extras: repo.OrganizationFileExtras = {
        ...(file.extra ? { file: file.extra } : {}),
        sectors: sectorExtras,
        clusters: clusterExtras,
      };
      const storedExtras = repo.getOrganizationFileExtras(tx, org.id);
      const extrasChanged = !jsonEqual(
        { file: storedExtras.file, sectors: storedExtras.sectors ?? {}, clusters: storedExtras.clusters ?? {} },
        { file: extras.file, sectors: sectorExtras, clusters: clusterExtras },
      );
      // the same file again: nothing to record
      if (input.dryRun || (!organizationChanged && changed.length === 0 && !extrasChanged)) return summary;

      const entry = { actor, action: 'policy.import', at };
      if (organizationChanged) {
        summary.revision = writeOrganization(tx, org, before, after, {
          ...entry,
          summary: `imported organization file: ${describeOrganizationChange(before, after)}`,
        }).revision;
      }
      for (const c of changed) {
        const what = c.after === null ? 'not listed: no longer managed' : describeClusterChange(c.row.upgradePolicy, c.after);
        writeClusterPolicy(tx, org, c.row, c.after, { ...entry, summary: `imported organization file: ${what}` });
      }
      if (extrasChanged) repo.setOrganizationFileExtras(tx, org.id, extras, at);
      appendAudit(tx, {
        at,
        actor,
        action: 'policy.import.file',
        target: `organization:${after.name}`,
        before: { revision: org.revision, organization: before },
        after: { revision: summary.revision, organization: after, changedClusters: summary.changedClusters },
      });
      return summary;
    });
  }

  return {
    getOrganization,
    getClusterPolicy,
    listClusterPolicies,
    validateDraft,
    previewImpact,
    updateOrganization,
    updateClusterPolicy,
    setFreeze,
    addBlockedVersion,
    removeBlockedVersion,
    history,
    revert,
    importOrganizationYaml,
    exportOrganizationYaml,
    exportClusterYaml,
    /** the system actor, for callers without a user (CLI) */
    systemActor: SYSTEM_ACTOR,
  };
}

/** One line for the history list: which settings moved. */
function describeOrganizationChange(before: OrganizationSnapshot, after: OrganizationSnapshot): string {
  const parts: string[] = [];
  const names = (s: OrganizationSnapshot) => s.sectors.map((x) => x.name);
  const added = names(after).filter((n) => !names(before).includes(n));
  const removed = names(before).filter((n) => !names(after).includes(n));
  if (added.length) parts.push(`added sector ${added.join(', ')}`);
  if (removed.length) parts.push(`removed sector ${removed.join(', ')}`);
  if (!added.length && !removed.length && !jsonEqual(before.sectors, after.sectors)) parts.push('changed sectors');
  const patterns = (s: OrganizationSnapshot) => s.blockedVersions.map((b) => b.pattern);
  const blocked = patterns(after).filter((p) => !patterns(before).includes(p));
  const unblocked = patterns(before).filter((p) => !patterns(after).includes(p));
  if (blocked.length) parts.push(`blocked ${blocked.join(', ')}`);
  if (unblocked.length) parts.push(`unblocked ${unblocked.join(', ')}`);
  if (!sameList(before.upgradePolicyAllowedWorkloads, after.upgradePolicyAllowedWorkloads)) parts.push('changed allowed workloads');
  if (!sameList(before.upgradePolicyAllowedMutexes, after.upgradePolicyAllowedMutexes)) parts.push('changed allowed mutexes');
  if (before.frozen !== after.frozen) parts.push(after.frozen ? 'froze upgrades' : 'lifted the freeze');
  if (before.name !== after.name) parts.push(`renamed to ${after.name}`);
  return parts.length ? parts.join('; ') : 'no change';
}

function describeClusterChange(before: Record<string, unknown> | null, after: Record<string, unknown>): string {
  if (before === null) return 'added a policy (now managed)';
  const paths = diffJson(before, after).map((c) => c.path);
  return paths.length ? `changed ${paths.slice(0, 4).join(', ')}${paths.length > 4 ? ` and ${paths.length - 4} more` : ''}` : 'no change';
}

export type PolicyService = ReturnType<typeof createPolicyService>;
