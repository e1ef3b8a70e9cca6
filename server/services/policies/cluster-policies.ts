import { policySpecFromDocument } from '@/lib/policy-spec';
import * as repo from '@/server/repositories/policy-repository';
import { AppError } from '../app-error';
import { requireOrganization, type PolicyContext } from './policy-store';

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

/** One cluster's policy (null when unmanaged) and its revision. */
export async function getClusterPolicy(ctx: PolicyContext, name: string) {
  const org = await requireOrganization(ctx);
  const p = await repo.findClusterPolicy(ctx.db, org.id, name);
  if (!p) throw new AppError('NOT_FOUND', `No cluster named ${name}`);
  return clusterPolicyView(p);
}

/** Every cluster's policy, managed or not. */
export async function listClusterPolicies(ctx: PolicyContext) {
  const org = await requireOrganization(ctx);
  return (await repo.listClusterPolicies(ctx.db, org.id)).map(clusterPolicyView);
}
