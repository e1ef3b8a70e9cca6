/**
 * Renders the model back into the upgrade service's files: `$schema` and `name` first, then the
 * keys we do not model (as they came), then the policy keys.
 */
import { stringify } from 'yaml';
import { organizationSettingsToPlanOrganization, policySpecToDocument } from '@/lib/policy-spec';
import { CLUSTER_FILE_SCHEMA, ORGANIZATION_FILE_SCHEMA, type ClusterFile, type OrganizationFile } from './types';

type Obj = Record<string, unknown>;

function toYaml(doc: Obj): string {
  // lineWidth 0: never fold long regexes or cron strings
  return stringify(doc, { lineWidth: 0, indentSeq: false });
}

/** The organization file as plain data (what the YAML holds). */
export function organizationFileToDocument(file: OrganizationFile): Obj {
  const org = organizationSettingsToPlanOrganization(file);
  const doc: Obj = { $schema: ORGANIZATION_FILE_SCHEMA, name: file.name, ...(file.extra ?? {}) };
  // Empty lists are left out, as in hand-written files (absent and empty mean the same).
  if (file.blockedVersions.length > 0) doc.blockedVersions = org.blockedVersions;
  if (org.upgradePolicyAllowedWorkloads) doc.upgradePolicyAllowedWorkloads = org.upgradePolicyAllowedWorkloads;
  if (org.upgradePolicyAllowedMutexes) doc.upgradePolicyAllowedMutexes = org.upgradePolicyAllowedMutexes;
  if (org.targetVersion !== undefined) doc.targetVersion = org.targetVersion;
  if (org.maxVersion !== undefined) doc.maxVersion = org.maxVersion;
  if (file.sectors.length > 0) doc.sectors = org.sectors;
  if (file.upgradePolicyClusters.length > 0) {
    doc.upgradePolicyClusters = file.upgradePolicyClusters.map((c) => ({
      name: c.name,
      upgradePolicy: policySpecToDocument(c.upgradePolicy),
      ...(c.extra ?? {}),
    }));
  }
  return doc;
}

export function renderOrganizationFile(file: OrganizationFile): string {
  return toYaml(organizationFileToDocument(file));
}

export function clusterFileToDocument(file: ClusterFile): Obj {
  const doc: Obj = { $schema: CLUSTER_FILE_SCHEMA, name: file.name, ...(file.extra ?? {}) };
  if (file.upgradePolicy) doc.upgradePolicy = policySpecToDocument(file.upgradePolicy);
  return doc;
}

export function renderClusterFile(file: ClusterFile): string {
  return toYaml(clusterFileToDocument(file));
}
