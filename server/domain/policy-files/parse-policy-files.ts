/**
 * Parses the upgrade service's organization and cluster files into the as-written model,
 * validating the policies with the decision engine's own validator (the same checks the server
 * applies before any write), with problems at the file's own paths
 * (`upgradePolicyClusters[3].upgradePolicy.conditions.soakDays`, `sectors[1].dependencies[0]`).
 */
import { parseYamlText } from '../bounded-parse-yaml';
import { identifierProblem } from '../identifiers';
import { validatePlanInput } from '../plan/validate-plan-input';
import { extraKeys, isPlainObject, policySpecFromDocument, SECTOR_KEYS } from '@/lib/policy-spec';
import {
  CLUSTER_FILE_SCHEMA,
  ORGANIZATION_FILE_SCHEMA,
  type ClusterFile,
  type ClusterPolicyEntrySpec,
  type FileParseResult,
  type FileProblem,
  type OrganizationFile,
  type OrganizationSettingsSpec,
  type SectorSpec,
} from './types';

type Obj = Record<string, unknown>;

const ORGANIZATION_KEYS = [
  '$schema',
  'name',
  'blockedVersions',
  'upgradePolicyAllowedWorkloads',
  'upgradePolicyAllowedMutexes',
  'sectors',
  'upgradePolicyClusters',
  // beyond the reference schema (rollout controls)
  'targetVersion',
  'maxVersion',
] as const;
const CLUSTER_ENTRY_KEYS = ['name', 'upgradePolicy'] as const;
const CLUSTER_FILE_KEYS = ['$schema', 'name', 'upgradePolicy'] as const;

/** Any valid instant: the file checks do not depend on time, but the validator wants one. */
const VALIDATION_NOW = '2000-01-01T00:00:00Z';
/** Stand-in version for clusters in policy files, which carry no version. */
const PLACEHOLDER_VERSION = '0.0.0';

/** The file's own `name`: a non-empty string that passes the identifier rule. */
function checkFileName(name: unknown, problems: FileProblem[]): void {
  if (typeof name !== 'string' || name.trim() === '') {
    problems.push({ path: 'name', message: 'must be a non-empty string' });
    return;
  }
  const problem = identifierProblem(name);
  if (problem) problems.push({ path: 'name', message: `not a valid name: ${problem}` });
}

function checkSchema(raw: Obj, expected: string, problems: FileProblem[]): void {
  if (raw.$schema !== undefined && raw.$schema !== expected) {
    problems.push({ path: '$schema', message: `expected ${expected}, got ${JSON.stringify(raw.$schema)}` });
  }
}

/** Engine path (`organization.sectors[1]`, `clusters[3].upgradePolicy`) → organization-file path. */
export function organizationFilePath(enginePath: string): string {
  if (enginePath === 'organization') return '(document)';
  if (enginePath.startsWith('organization.')) return enginePath.slice('organization.'.length);
  if (enginePath === 'clusters' || enginePath.startsWith('clusters[')) return `upgradePolicyClusters${enginePath.slice('clusters'.length)}`;
  return enginePath;
}

function settingsFromRaw(raw: Obj, notices: FileProblem[]): OrganizationSettingsSpec {
  const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
  const settings: OrganizationSettingsSpec = {
    name: typeof raw.name === 'string' ? raw.name : '',
    blockedVersions: strings(raw.blockedVersions),
    sectors: [],
  };
  if (Array.isArray(raw.upgradePolicyAllowedWorkloads)) settings.upgradePolicyAllowedWorkloads = strings(raw.upgradePolicyAllowedWorkloads);
  if (Array.isArray(raw.upgradePolicyAllowedMutexes)) settings.upgradePolicyAllowedMutexes = strings(raw.upgradePolicyAllowedMutexes);
  if (typeof raw.targetVersion === 'string') settings.targetVersion = raw.targetVersion;
  if (typeof raw.maxVersion === 'string') settings.maxVersion = raw.maxVersion;
  (Array.isArray(raw.sectors) ? raw.sectors : []).forEach((s: unknown, i) => {
    if (!isPlainObject(s) || typeof s.name !== 'string') return;
    const sector: SectorSpec = { name: s.name, dependencies: [] };
    if (typeof s.maxParallelUpgrades === 'string' || typeof s.maxParallelUpgrades === 'number')
      sector.maxParallelUpgrades = s.maxParallelUpgrades;
    if (typeof s.maxConcurrentUpgrades === 'string' || typeof s.maxConcurrentUpgrades === 'number')
      sector.maxConcurrentUpgrades = s.maxConcurrentUpgrades;
    if (typeof s.targetVersion === 'string') sector.targetVersion = s.targetVersion;
    if (typeof s.maxVersion === 'string') sector.maxVersion = s.maxVersion;
    if (isPlainObject(s.approval)) sector.approval = { ...s.approval };
    if (typeof s.notBefore === 'string') sector.notBefore = s.notBefore;
    if (isPlainObject(s.canary)) sector.canary = { ...s.canary };
    if (typeof s.selector === 'string') sector.selector = s.selector;
    (Array.isArray(s.dependencies) ? s.dependencies : []).forEach((d: unknown, j) => {
      const name = isPlainObject(d) ? d.name : d;
      if (typeof name === 'string' && !sector.dependencies.includes(name)) sector.dependencies.push(name);
      const dropped = isPlainObject(d) ? Object.keys(d).filter((k) => k !== 'name') : [];
      if (dropped.length > 0) {
        notices.push({
          path: `sectors[${i}].dependencies[${j}]`,
          message: `not kept: ${dropped.join(', ')} (only the dependency's name is used)`,
        });
      }
    });
    const extra = extraKeys(s, SECTOR_KEYS);
    if (extra) sector.extra = extra;
    settings.sectors.push(sector);
  });
  return settings;
}

/** Validates an organization file's data (already parsed from YAML) and returns the model. */
export function validateOrganizationFileData(raw: unknown): FileParseResult<OrganizationFile> {
  const problems: FileProblem[] = [];
  if (!isPlainObject(raw))
    return { ok: false, problems: [{ path: '(document)', message: 'must be a mapping with name, sectors, upgradePolicyClusters' }] };
  checkSchema(raw, ORGANIZATION_FILE_SCHEMA, problems);
  checkFileName(raw.name, problems);

  const entries: unknown[] = [];
  if (raw.upgradePolicyClusters !== undefined && raw.upgradePolicyClusters !== null) {
    if (!Array.isArray(raw.upgradePolicyClusters))
      problems.push({ path: 'upgradePolicyClusters', message: 'must be a list of {name, upgradePolicy}' });
    else entries.push(...(raw.upgradePolicyClusters as unknown[]));
  }
  entries.forEach((e, i) => {
    if (isPlainObject(e) && (e.upgradePolicy === undefined || e.upgradePolicy === null)) {
      problems.push({ path: `upgradePolicyClusters[${i}].upgradePolicy`, message: 'missing: every listed cluster needs an upgradePolicy' });
    }
  });
  const planDocument = {
    now: VALIDATION_NOW,
    organization: {
      name: raw.name,
      blockedVersions: raw.blockedVersions,
      upgradePolicyAllowedWorkloads: raw.upgradePolicyAllowedWorkloads,
      upgradePolicyAllowedMutexes: raw.upgradePolicyAllowedMutexes,
      sectors: raw.sectors,
    },
    clusters: entries.map((e) => (isPlainObject(e) ? { name: e.name, version: PLACEHOLDER_VERSION, upgradePolicy: e.upgradePolicy } : e)),
  };
  const checked = validatePlanInput(planDocument);
  if (!checked.ok) {
    for (const p of checked.problems) {
      // the organization name is checked above, with the file's own message
      if (p.path === 'organization.name') continue;
      problems.push({ path: organizationFilePath(p.path), message: p.message });
    }
  }
  if (problems.length > 0) return { ok: false, problems };

  const notices: FileProblem[] = [];
  const settings = settingsFromRaw(raw, notices);
  const upgradePolicyClusters: ClusterPolicyEntrySpec[] = entries.map((e) => {
    const obj = e as Obj;
    const entry: ClusterPolicyEntrySpec = { name: obj.name as string, upgradePolicy: policySpecFromDocument(obj.upgradePolicy) };
    const extra = extraKeys(obj, CLUSTER_ENTRY_KEYS);
    if (extra) entry.extra = extra;
    return entry;
  });
  const file: OrganizationFile = { ...settings, upgradePolicyClusters };
  const extra = extraKeys(raw, ORGANIZATION_KEYS);
  if (extra) file.extra = extra;
  return { ok: true, value: file, notices };
}

/** Parses an organization file (`$schema: /openshift/openshift-cluster-manager-1.yml`). */
export function parseOrganizationFile(text: string): FileParseResult<OrganizationFile> {
  const yaml = parseYamlText(text);
  if (!yaml.ok) return yaml;
  return validateOrganizationFileData(yaml.value);
}

/** Validates a cluster file's data. `organization` gives the sectors and allow-lists to check against. */
export function validateClusterFileData(
  raw: unknown,
  context: { organization?: OrganizationSettingsSpec } = {},
): FileParseResult<ClusterFile> {
  const problems: FileProblem[] = [];
  if (!isPlainObject(raw))
    return { ok: false, problems: [{ path: '(document)', message: 'must be a mapping with name and upgradePolicy' }] };
  checkSchema(raw, CLUSTER_FILE_SCHEMA, problems);
  checkFileName(raw.name, problems);
  const policy = raw.upgradePolicy;
  let organization: Obj;
  if (context.organization) {
    const o = context.organization;
    organization = { ...o, sectors: o.sectors.map((s) => ({ name: s.name, dependencies: s.dependencies.map((name) => ({ name })) })) };
  } else {
    // Without the organization file, any sector the policy names is taken as declared.
    const sector = isPlainObject(policy) && isPlainObject(policy.conditions) ? policy.conditions.sector : undefined;
    organization = { name: '', sectors: typeof sector === 'string' && sector !== '' ? [{ name: sector }] : [] };
  }
  const checked = validatePlanInput({
    now: VALIDATION_NOW,
    organization,
    clusters: [
      { name: typeof raw.name === 'string' && raw.name !== '' ? raw.name : 'cluster', version: PLACEHOLDER_VERSION, upgradePolicy: policy },
    ],
  });
  if (!checked.ok) {
    for (const p of checked.problems) {
      if (p.path.startsWith('clusters[0].upgradePolicy')) problems.push({ path: p.path.slice('clusters[0].'.length), message: p.message });
      else if (!p.path.startsWith('clusters[0].name')) problems.push({ path: p.path, message: p.message });
    }
  }
  if (problems.length > 0) return { ok: false, problems };
  const file: ClusterFile = {
    name: raw.name as string,
    upgradePolicy: policy === undefined || policy === null ? null : policySpecFromDocument(policy),
  };
  const extra = extraKeys(raw, CLUSTER_FILE_KEYS);
  if (extra) file.extra = extra;
  return { ok: true, value: file, notices: [] };
}

/** Parses a cluster file (`$schema: /openshift/cluster-1.yml`). */
export function parseClusterFile(text: string, context: { organization?: OrganizationSettingsSpec } = {}): FileParseResult<ClusterFile> {
  const yaml = parseYamlText(text);
  if (!yaml.ok) return yaml;
  return validateClusterFileData(yaml.value, context);
}
