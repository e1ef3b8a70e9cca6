import type { NamedProblem, PathMapping } from '@/server/domain/policy-files/named-problems';
import { normalizeSettings, type OrganizationSettingsInput } from '@/server/domain/policy-files/organization-snapshot';
import { policySpecToDocument, unknownPolicyKeys } from '@/lib/policy-spec';
import type { UpgradePolicySpec } from '@/server/domain/policy-files/types';
import { listGoneClusterNames } from '@/server/repositories/cluster-repository';
import { lintContextFor } from '@/server/services/graph-coverage';
import type { OrganizationRow } from '@/server/repositories/organization-repository';
import { checkDocument, documentWith, lintInput, requireOrganization, snapshotOf, type PolicyContext } from './policy-store';

/** Unsaved edits: new organization settings and/or new policies for some clusters (null = unmanage). */
export interface PolicyDraft {
  organization?: OrganizationSettingsInput;
  clusters?: { name: string; policy: UpgradePolicySpec | null }[];
}

async function draftChange(ctx: PolicyContext, draft: PolicyDraft, org: OrganizationRow) {
  return {
    ...(draft.organization
      ? { organization: { name: org.name, ...normalizeSettings(draft.organization, await snapshotOf(ctx.db, org)) } }
      : {}),
    clusters: (draft.clusters ?? []).map((c) => ({ name: c.name, policy: c.policy ? policySpecToDocument(c.policy) : null })),
  };
}

/** Problem paths of the engine's document → paths of the draft. */
function draftMapping(draft: PolicyDraft): PathMapping {
  const index = new Map((draft.clusters ?? []).map((c, i) => [c.name, i]));
  return {
    clusterPolicyPath: (name) => (index.has(name) ? `clusters[${index.get(name)}].policy` : undefined),
    blockedVersionPath: draft.organization ? (i) => `organization.blockedVersions[${i}].pattern` : undefined,
  };
}

/** The draft applied to the stored fleet, validated; also the lint warnings when valid. */
export async function evaluateDraft(ctx: PolicyContext, draft: PolicyDraft) {
  const org = await requireOrganization(ctx);
  const at = ctx.now();
  const { doc, unknown } = await documentWith(ctx, org, await draftChange(ctx, draft, org), at);
  const mapping = draftMapping(draft);
  const unknownProblems: NamedProblem[] = unknown.map((u) => ({
    path: `clusters[${u.index}].name`,
    message: `no cluster named ${u.name} in the fleet`,
  }));
  // a misspelt key would be stored and ignored by the engine (`soakdays: 2` = no soak check at all)
  const keyProblems: NamedProblem[] = (draft.clusters ?? []).flatMap((c, i) =>
    c.policy ? unknownPolicyKeys(c.policy).map((p) => ({ path: `clusters[${i}].policy.${p.path}`, message: p.message })) : [],
  );
  const checked = checkDocument(doc, mapping);
  if (!checked.ok || unknownProblems.length > 0 || keyProblems.length > 0) {
    return { ok: false as const, problems: [...unknownProblems, ...keyProblems, ...(checked.ok ? [] : checked.problems)], org, at };
  }
  // validated with the gone clusters (their policies must stay valid), previewed without them, as the scheduler plans
  const gone = new Set(await listGoneClusterNames(ctx.db, org.id));
  const input = gone.size === 0 ? checked.input : { ...checked.input, clusters: checked.input.clusters.filter((c) => !gone.has(c.name)) };
  return { ok: true as const, input, warnings: lintInput(checked.input, mapping, await lintContextFor(ctx.db, org)), org, at };
}
