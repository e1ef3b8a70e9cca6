import { policySpecFromDocument } from '@/lib/policy-spec';
import { renderClusterFile, renderOrganizationFile } from '@/server/domain/policy-files/render-policy-files';
import type { ClusterPolicyEntrySpec, OrganizationFile, SectorSpec } from '@/server/domain/policy-files/types';
import type { OrganizationRow } from '@/server/repositories/organization-repository';
import * as repo from '@/server/repositories/policy-repository';
import type { Db } from '@/db/open-database';
import { AppError } from '../app-error';
import { approvalSettingOf } from '@/server/domain/policy-files/organization-snapshot';
import { requireOrganization, type PolicyContext } from './policy-store';

/** The stored policies as an organization file, with the keys an imported file carried that we do not model. */
export async function organizationFileOf(tx: Db, org: OrganizationRow): Promise<OrganizationFile> {
  const extras = await repo.getOrganizationFileExtras(tx, org.id);
  const sectors: SectorSpec[] = (await repo.listSectors(tx, org.id)).map((s) => {
    const extra = extras.sectors?.[s.name];
    return {
      name: s.name,
      ...(s.maxParallelUpgrades !== null ? { maxParallelUpgrades: s.maxParallelUpgrades } : {}),
      ...(s.maxConcurrentUpgrades !== null ? { maxConcurrentUpgrades: s.maxConcurrentUpgrades } : {}),
      ...(s.targetVersion !== null ? { targetVersion: s.targetVersion } : {}),
      ...(s.maxVersion !== null ? { maxVersion: s.maxVersion } : {}),
      ...(s.approvalBefore || s.approvalAfter ? { approval: approvalSettingOf(s.approvalBefore, s.approvalAfter)! } : {}),
      ...(s.notBefore !== null ? { notBefore: s.notBefore } : {}),
      ...(s.canary ? { canary: s.canary } : {}),
      ...(s.selector !== null ? { selector: s.selector } : {}),
      dependencies: s.dependencies,
      ...(extra ? { extra } : {}),
    };
  });
  const upgradePolicyClusters: ClusterPolicyEntrySpec[] = (await repo.listClusterPolicies(tx, org.id))
    .filter((p) => p.upgradePolicy !== null)
    .map((p) => {
      const extra = extras.clusters?.[p.name];
      return { name: p.name, upgradePolicy: policySpecFromDocument(p.upgradePolicy), ...(extra ? { extra } : {}) };
    });
  return {
    name: org.name,
    blockedVersions: (await repo.listBlockedVersions(tx, org.id)).map((b) => b.pattern),
    ...(org.allowedWorkloads ? { upgradePolicyAllowedWorkloads: org.allowedWorkloads } : {}),
    ...(org.allowedMutexes ? { upgradePolicyAllowedMutexes: org.allowedMutexes } : {}),
    ...(org.targetVersion !== null ? { targetVersion: org.targetVersion } : {}),
    ...(org.maxVersion !== null ? { maxVersion: org.maxVersion } : {}),
    sectors,
    upgradePolicyClusters,
    ...(extras.file ? { extra: extras.file } : {}),
  };
}

/** The organization file (YAML) of the stored policies. */
export async function exportOrganizationYaml(ctx: PolicyContext) {
  const org = await requireOrganization(ctx);
  const file = await organizationFileOf(ctx.db, org);
  return { fileName: `${org.name}.yml`, revision: org.revision, yaml: renderOrganizationFile(file) };
}

/** One cluster's policy file (YAML). */
export async function exportClusterYaml(ctx: PolicyContext, name: string) {
  const org = await requireOrganization(ctx);
  const p = await repo.findClusterPolicy(ctx.db, org.id, name);
  if (!p) throw new AppError('NOT_FOUND', `No cluster named ${name}`);
  return {
    fileName: `${name}.yml`,
    revision: p.policyRevision,
    yaml: renderClusterFile({ name, upgradePolicy: p.upgradePolicy ? policySpecFromDocument(p.upgradePolicy) : null }),
  };
}
