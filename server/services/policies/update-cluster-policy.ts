import { jsonEqual } from '@/lib/json-diff';
import { describeClusterChange } from '@/server/domain/policy-files/organization-snapshot';
import { policySpecToDocument, unknownPolicyKeys } from '@/lib/policy-spec';
import type { UpgradePolicySpec } from '@/server/domain/policy-files/types';
import * as repo from '@/server/repositories/policy-repository';
import { withTransaction } from '@/server/repositories/transaction';
import { AppError } from '../app-error';
import { getClusterPolicy } from './cluster-policies';
import {
  checkDocument,
  documentWith,
  invalid,
  requireOrganization,
  requireRevision,
  withReason,
  writeClusterPolicy,
  type PolicyContext,
} from './policy-store';

/** Saves one cluster's policy (null = no longer managed) as its next revision, validated against the whole fleet. */
export async function updateClusterPolicy(
  ctx: PolicyContext,
  actor: string,
  input: { name: string; expectedRevision: number; policy: UpgradePolicySpec | null; reason?: string },
) {
  const result = await withTransaction(ctx.db, async (tx) => {
    const at = ctx.now();
    const org = await requireOrganization(ctx);
    const cluster = await repo.findClusterPolicy(tx, org.id, input.name);
    if (!cluster) throw new AppError('NOT_FOUND', `No cluster named ${input.name}`);
    requireRevision(cluster.policyRevision, input.expectedRevision, `The policy of ${input.name}`);
    const keyProblems = input.policy ? unknownPolicyKeys(input.policy).map((p) => ({ path: `policy.${p.path}`, message: p.message })) : [];
    if (keyProblems.length > 0) throw invalid(`The policy of ${input.name} is not valid`, keyProblems);
    const after = input.policy ? policySpecToDocument(input.policy) : null;
    const { doc } = await documentWith(ctx, org, { clusters: [{ name: input.name, policy: after }] }, at);
    const checked = checkDocument(doc, { clusterPolicyPath: (name) => (name === input.name ? 'policy' : undefined) });
    if (!checked.ok) throw invalid(`The policy of ${input.name} is not valid`, checked.problems);
    if (jsonEqual(cluster.upgradePolicy, after)) return { changed: false, revision: cluster.policyRevision, revisionId: null };
    const summary = withReason(
      after === null ? `removed the policy of ${input.name} (no longer managed)` : describeClusterChange(cluster.upgradePolicy, after),
      input.reason,
    );
    return {
      changed: true,
      ...(await writeClusterPolicy(tx, org, cluster, after, { actor, action: 'policy.cluster.update', summary, at: ctx.realNow() })),
    };
  });
  return { ...result, cluster: await getClusterPolicy(ctx, input.name) };
}
