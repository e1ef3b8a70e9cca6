import { sectorSettingsOf } from '@/server/domain/policy-files/organization-snapshot';
import { policySpecFromDocument } from '@/lib/policy-spec';
import * as repo from '@/server/repositories/policy-repository';
import { requireOrganization, type PolicyContext } from './policy-store';

/** The organization's policy settings for the editor, with what the cluster policies use. */
export async function getOrganization(ctx: PolicyContext) {
  const { db } = ctx;
  const org = await requireOrganization(ctx);
  const policies = await repo.listClusterPolicies(db, org.id);
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
    sectors: (await repo.listSectors(db, org.id)).map((s) => ({ ...sectorSettingsOf(s), clusterCount: bySector.get(s.name) ?? 0 })),
    blockedVersions: (await repo.listBlockedVersions(db, org.id)).map((b) => ({
      pattern: b.pattern,
      reason: b.reason,
      createdBy: b.createdBy,
      createdAt: b.createdAt.toISOString(),
    })),
    upgradePolicyAllowedWorkloads: org.allowedWorkloads ?? null,
    upgradePolicyAllowedMutexes: org.allowedMutexes ?? null,
    targetVersion: org.targetVersion,
    maxVersion: org.maxVersion,
    /** what the policies use, sorted: the editor offers these */
    workloadsInUse: [...workloads].sort(),
    mutexesInUse: [...mutexes].sort(),
    clusterCount: policies.length,
    managedClusterCount: managed.length,
  };
}
