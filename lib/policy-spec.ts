/**
 * Converts between the as-written model (server/domain/policy-files/types.ts, unknown keys in `extra`) and the plain
 * document form the upgrade service writes and the decision engine reads (unknown keys inline).
 * The document form is what the database stores in clusters.upgrade_policy.
 */
import type {
  ConditionsSpec,
  Extra,
  OrganizationSettingsSpec,
  ScheduleSpec,
  SectorSpec,
  UpgradePolicySpec,
} from '@/server/domain/policy-files/types';

type Obj = Record<string, unknown>;

export function isPlainObject(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The keys of `obj` not in `known`, or undefined when there are none. */
export function extraKeys(obj: Obj, known: readonly string[]): Extra | undefined {
  const extra: Extra = {};
  for (const [k, v] of Object.entries(obj)) if (!known.includes(k)) extra[k] = v;
  return Object.keys(extra).length > 0 ? extra : undefined;
}

export const POLICY_KEYS = ['workloads', 'schedule', 'conditions', 'lifecycle'] as const;
export const CONDITION_KEYS = ['soakDays', 'mutexes', 'sector', 'blockedVersions', 'targetVersion', 'maxVersion'] as const;
export const SCHEDULE_KEYS = ['cron', 'location', 'isoWeek', 'suspend'] as const;
export const SECTOR_KEYS = [
  'name',
  'maxParallelUpgrades',
  'maxConcurrentUpgrades',
  'targetVersion',
  'maxVersion',
  'approval',
  'notBefore',
  'selector',
  'canary',
  'dependencies',
] as const;

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

function scheduleFromDocument(raw: unknown): ScheduleSpec {
  if (typeof raw === 'string') return raw;
  const obj = isPlainObject(raw) ? raw : {};
  const spec: ScheduleSpec = { cron: typeof obj.cron === 'string' ? obj.cron : '' };
  if (typeof obj.location === 'string') spec.location = obj.location;
  if (typeof obj.isoWeek === 'string' || typeof obj.isoWeek === 'number') spec.isoWeek = obj.isoWeek;
  if (typeof obj.suspend === 'boolean') spec.suspend = obj.suspend;
  const extra = extraKeys(obj, SCHEDULE_KEYS);
  if (extra) spec.extra = extra;
  return spec;
}

function conditionsFromDocument(obj: Obj): ConditionsSpec {
  const spec: ConditionsSpec = {};
  if (typeof obj.soakDays === 'number') spec.soakDays = obj.soakDays;
  if (Array.isArray(obj.mutexes)) spec.mutexes = strings(obj.mutexes);
  if (typeof obj.sector === 'string') spec.sector = obj.sector;
  if (Array.isArray(obj.blockedVersions)) spec.blockedVersions = strings(obj.blockedVersions);
  if (typeof obj.targetVersion === 'string') spec.targetVersion = obj.targetVersion;
  if (typeof obj.maxVersion === 'string') spec.maxVersion = obj.maxVersion;
  const extra = extraKeys(obj, CONDITION_KEYS);
  if (extra) spec.extra = extra;
  return spec;
}

/** Document form (as stored / as in the file) → model. Expects a validated policy. */
export function policySpecFromDocument(raw: unknown): UpgradePolicySpec {
  const obj = isPlainObject(raw) ? raw : {};
  const spec: UpgradePolicySpec = { workloads: strings(obj.workloads), schedule: scheduleFromDocument(obj.schedule) };
  if (isPlainObject(obj.conditions)) spec.conditions = conditionsFromDocument(obj.conditions);
  if (isPlainObject(obj.lifecycle)) spec.lifecycle = { ...obj.lifecycle };
  const extra = extraKeys(obj, POLICY_KEYS);
  if (extra) spec.extra = extra;
  return spec;
}

/** Model → document form: known keys first, then the extra keys, as the service writes them. */
export function policySpecToDocument(spec: UpgradePolicySpec): Obj {
  const doc: Obj = { workloads: [...spec.workloads] };
  if (typeof spec.schedule === 'string') doc.schedule = spec.schedule;
  else {
    const s: Obj = { cron: spec.schedule.cron };
    if (spec.schedule.location !== undefined) s.location = spec.schedule.location;
    if (spec.schedule.isoWeek !== undefined) s.isoWeek = spec.schedule.isoWeek;
    if (spec.schedule.suspend !== undefined) s.suspend = spec.schedule.suspend;
    Object.assign(s, spec.schedule.extra ?? {});
    doc.schedule = s;
  }
  if (spec.conditions) {
    const c = spec.conditions;
    const cond: Obj = {};
    if (c.soakDays !== undefined) cond.soakDays = c.soakDays;
    if (c.mutexes !== undefined) cond.mutexes = [...c.mutexes];
    if (c.sector !== undefined) cond.sector = c.sector;
    if (c.blockedVersions !== undefined) cond.blockedVersions = [...c.blockedVersions];
    if (c.targetVersion !== undefined) cond.targetVersion = c.targetVersion;
    if (c.maxVersion !== undefined) cond.maxVersion = c.maxVersion;
    Object.assign(cond, c.extra ?? {});
    doc.conditions = cond;
  }
  if (spec.lifecycle !== undefined) doc.lifecycle = { ...spec.lifecycle };
  Object.assign(doc, spec.extra ?? {});
  return doc;
}

export function sectorSpecToDocument(s: SectorSpec): Obj {
  const doc: Obj = { name: s.name };
  if (s.maxParallelUpgrades !== undefined) doc.maxParallelUpgrades = s.maxParallelUpgrades;
  if (s.maxConcurrentUpgrades !== undefined) doc.maxConcurrentUpgrades = s.maxConcurrentUpgrades;
  if (s.targetVersion !== undefined) doc.targetVersion = s.targetVersion;
  if (s.maxVersion !== undefined) doc.maxVersion = s.maxVersion;
  if (s.approval !== undefined) doc.approval = { ...s.approval };
  if (s.notBefore !== undefined) doc.notBefore = s.notBefore;
  if (s.selector !== undefined) doc.selector = s.selector;
  if (s.canary !== undefined) doc.canary = { ...s.canary };
  if (s.dependencies.length > 0) doc.dependencies = s.dependencies.map((name) => ({ name }));
  Object.assign(doc, s.extra ?? {});
  return doc;
}

/** The `organization` part of an engine input document for these settings. */
export function organizationSettingsToPlanOrganization(settings: OrganizationSettingsSpec): Obj {
  const org: Obj = { name: settings.name, blockedVersions: [...settings.blockedVersions] };
  if (settings.upgradePolicyAllowedWorkloads) org.upgradePolicyAllowedWorkloads = [...settings.upgradePolicyAllowedWorkloads];
  if (settings.upgradePolicyAllowedMutexes) org.upgradePolicyAllowedMutexes = [...settings.upgradePolicyAllowedMutexes];
  org.sectors = settings.sectors.map(sectorSpecToDocument);
  if (settings.targetVersion !== undefined) org.targetVersion = settings.targetVersion;
  if (settings.maxVersion !== undefined) org.maxVersion = settings.maxVersion;
  return org;
}

/**
 * Optional keys of the upgrade service's reference schema (`/openshift/cluster-1.yml`) that
 * fleetplan keeps as written but does not act on. A key the model acts on goes into
 * POLICY_KEYS / CONDITION_KEYS / SCHEDULE_KEYS instead; both count as known below.
 */
export const POLICY_REFERENCE_ONLY_KEYS = ['versionGateApprovals'] as const;

/** Every key an upgrade policy may hold, per level; the editors refuse any other (a typo would otherwise be kept and ignored). */
export const KNOWN_POLICY_KEYS: Record<'policy' | 'schedule' | 'conditions', readonly string[]> = {
  policy: [...POLICY_KEYS, ...POLICY_REFERENCE_ONLY_KEYS],
  schedule: SCHEDULE_KEYS,
  conditions: CONDITION_KEYS,
};

/** Edit distance (insert, delete, substitute, swap of neighbours) of two short words. */
function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[a.length]![b.length]!;
}

/** The known key `key` is most likely a misspelling of (case aside, or a few letters off), if any. */
export function closestKey(key: string, known: readonly string[]): string | undefined {
  const lower = key.toLowerCase();
  const sameLetters = known.find((k) => k.toLowerCase() === lower);
  if (sameLetters) return sameLetters;
  let best: { key: string; distance: number } | undefined;
  for (const k of known) {
    const distance = editDistance(lower, k.toLowerCase());
    if (distance <= Math.max(1, Math.floor(k.length / 3)) && (!best || distance < best.distance)) best = { key: k, distance };
  }
  return best?.key;
}

function unknownKeyMessage(key: string, level: keyof typeof KNOWN_POLICY_KEYS): string {
  const known = KNOWN_POLICY_KEYS[level];
  const guess = closestKey(key, known);
  if (guess) return `unknown key '${key}': did you mean '${guess}'?`;
  const elsewhere = (Object.keys(KNOWN_POLICY_KEYS) as (keyof typeof KNOWN_POLICY_KEYS)[]).find(
    (other) => other !== level && KNOWN_POLICY_KEYS[other].includes(key),
  );
  if (elsewhere)
    return `unknown key '${key}' here: it belongs ${elsewhere === 'policy' ? 'at the top of the policy' : `under ${elsewhere}`}`;
  return `unknown key '${key}' (known here: ${known.join(', ')})`;
}

/**
 * The keys of a policy no level knows, as problems at their paths inside the policy
 * (`conditions.soakdays`): a misspelt key would be stored and silently ignored by the engine.
 */
export function unknownPolicyKeys(spec: UpgradePolicySpec): { path: string; message: string }[] {
  const problems: { path: string; message: string }[] = [];
  const check = (extra: Extra | undefined, level: keyof typeof KNOWN_POLICY_KEYS, prefix: string) => {
    for (const key of Object.keys(extra ?? {})) {
      if (KNOWN_POLICY_KEYS[level].includes(key)) continue;
      problems.push({ path: `${prefix}${key}`, message: unknownKeyMessage(key, level) });
    }
  };
  check(spec.extra, 'policy', '');
  if (typeof spec.schedule !== 'string') check(spec.schedule.extra, 'schedule', 'schedule.');
  check(spec.conditions?.extra, 'conditions', 'conditions.');
  return problems;
}
