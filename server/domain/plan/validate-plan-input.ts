/**
 * Validates and normalizes a plan document (contracts/plan.md §5). Reports every problem, each
 * at the path of the offending field (`clusters[1].upgradePolicy.conditions.soakDays`; a problem
 * with one list item names the item). Free of Node APIs so the browser editor and tRPC share it.
 */
import { parseVersionBound, type VersionBound } from './version-bounds';
import { APPROVAL_KINDS, parseNotBefore, type Approval, type ApprovalKind, type SectorApprovalGates } from './sector-gates';
import { UPGRADE_OUTCOMES, type CanaryPolicy, type UpgradeOutcome, type UpgradeResult } from './canaries';
import { identifierProblem } from '../identifiers';
import { labelKeyProblem } from '../labels/label-syntax';
import { parseLabelSelector } from '../labels/label-selector';
import { assignSectorsBySelector } from '../labels/sector-selectors';
import { checkBlockedVersionPattern } from './blocked-versions';
import { isKnownTimeZone, parseCron, parseIsoWeek } from './cron-schedule';
import { formatInstant, parseInstant } from './time';
import type {
  Cluster,
  CurrentUpgrade,
  MaxParallelUpgrades,
  Organization,
  PlanParseResult,
  Problem,
  Schedule,
  Sector,
  UpgradeConditions,
  UpgradePolicy,
  VersionData,
  VersionSoak,
} from './types';
import { CURRENT_UPGRADE_STATES } from './types';
import { isSemver } from '../version/version';
import { parseLifecycleOptions, type LifecycleOptions } from '../lifecycle/options';

export type ValidateOptions = {
  /** Overrides the document's `now` (the CLI's `--now`). */
  now?: string;
};

type Obj = Record<string, unknown>;

function isObject(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'object') return 'an object';
  if (typeof v === 'string') return `'${v}'`;
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return `${typeof v} ${String(v)}`;
  // undefined, or what YAML and JSON never produce (symbol, function: never print its source)
  return typeof v;
}

class Collector {
  readonly problems: Problem[] = [];
  add(path: string, message: string): void {
    this.problems.push({ path, message });
  }
}

/** Checks a name against the identifier rule (no control or bidi characters, ...); false after reporting it. */
function checkName(c: Collector, path: string, name: string): boolean {
  const problem = identifierProblem(name);
  if (problem === null) return true;
  c.add(path, `not a valid name: ${problem}`);
  return false;
}

/** A list of strings at `path` (absent = `fallback`); reports non-strings (and, for names, invalid names) per item. */
function stringList(
  c: Collector,
  value: unknown,
  path: string,
  opts: { nonEmptyItems?: boolean; names?: boolean } = {},
): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) {
    c.add(path, `must be a list, got ${describe(value)}`);
    return undefined;
  }
  const out: string[] = [];
  // a plain loop, and an item's path spelt only for a problem: policies of 10,000 clusters pass here
  for (let i = 0; i < value.length; i++) {
    const item: unknown = value[i];
    if (typeof item !== 'string') c.add(`${path}[${i}]`, `must be a string, got ${describe(item)}`);
    else if (opts.nonEmptyItems && item.trim() === '') c.add(`${path}[${i}]`, 'must not be empty');
    else if (!opts.names) out.push(item);
    else {
      const problem = identifierProblem(item);
      if (problem === null) out.push(item);
      else c.add(`${path}[${i}]`, `not a valid name: ${problem}`);
    }
  }
  return out;
}

/** The strings of `list` without repeats, first occurrences in order (`[...new Set(list)]`, without a Set for a short list). */
export function uniqueInOrder(list: readonly string[]): string[] {
  if (list.length > 16) return [...new Set(list)];
  const out: string[] = [];
  for (const item of list) if (!out.includes(item)) out.push(item);
  return out;
}

function regexList(c: Collector, value: unknown, path: string): string[] {
  // absent (most policies): nothing to report, no list to check
  if (value === undefined || value === null) return [];
  stringList(c, value, path);
  const ok: string[] = [];
  if (!Array.isArray(value)) return ok;
  value.forEach((item, i) => {
    if (typeof item !== 'string') return;
    const check = checkBlockedVersionPattern(item);
    if (!check.ok) c.add(`${path}[${i}]`, check.message);
    else ok.push(item);
  });
  return ok;
}

export function parseMaxParallelUpgrades(value: unknown): MaxParallelUpgrades | string {
  const bad = `must be "N" (N >= 1) or "P%" (P from 1 to 100), got ${describe(value)}`;
  if (typeof value === 'number') {
    return Number.isInteger(value) && value >= 1 ? { kind: 'count', value, raw: String(value) } : bad;
  }
  if (typeof value !== 'string') return bad;
  const text = value.trim();
  const count = /^\d+$/.exec(text);
  if (count) {
    const n = Number(text);
    return n >= 1 && Number.isSafeInteger(n) ? { kind: 'count', value: n, raw: text } : bad;
  }
  const pct = /^(\d+)\s*%$/.exec(text);
  if (pct) {
    const p = Number(pct[1]);
    return p >= 1 && p <= 100 ? { kind: 'percent', value: p, raw: `${p}%` } : bad;
  }
  return bad;
}

const BOUND_KEYS = ['targetVersion', 'maxVersion'] as const;

/** `targetVersion` / `maxVersion` of one level (organization, sector, conditions), when present. */
function boundsOf(c: Collector, raw: Record<string, unknown>, path: string): { targetVersion?: VersionBound; maxVersion?: VersionBound } {
  const out: { targetVersion?: VersionBound; maxVersion?: VersionBound } = {};
  // neither (most policies): nothing to parse
  if ((raw.targetVersion === undefined || raw.targetVersion === null) && (raw.maxVersion === undefined || raw.maxVersion === null))
    return out;
  for (const key of BOUND_KEYS) {
    const value = raw[key];
    if (value === undefined || value === null) continue;
    const bound = parseVersionBound(value);
    if (typeof bound === 'string') c.add(`${path}.${key}`, bound);
    else out[key] = bound;
  }
  return out;
}

function validateOrganization(c: Collector, raw: unknown): Organization {
  const org: Organization = { name: '', blockedVersions: [], sectors: [] };
  if (raw === undefined || raw === null) return org;
  if (!isObject(raw)) {
    c.add('organization', `must be an object, got ${describe(raw)}`);
    return org;
  }
  if (raw.name !== undefined && typeof raw.name !== 'string') c.add('organization.name', 'must be a string');
  else if (typeof raw.name === 'string' && checkName(c, 'organization.name', raw.name)) org.name = raw.name;
  org.blockedVersions = regexList(c, raw.blockedVersions, 'organization.blockedVersions');
  if (raw.instanceBlockedVersions !== undefined)
    org.instanceBlockedVersions = regexList(c, raw.instanceBlockedVersions, 'organization.instanceBlockedVersions');
  const allowedWorkloads = stringList(c, raw.upgradePolicyAllowedWorkloads, 'organization.upgradePolicyAllowedWorkloads', { names: true });
  if (allowedWorkloads) org.upgradePolicyAllowedWorkloads = allowedWorkloads;
  const allowedMutexes = stringList(c, raw.upgradePolicyAllowedMutexes, 'organization.upgradePolicyAllowedMutexes', { names: true });
  if (allowedMutexes) org.upgradePolicyAllowedMutexes = allowedMutexes;
  Object.assign(org, boundsOf(c, raw, 'organization'));

  if (raw.sectors === undefined || raw.sectors === null) return org;
  if (!Array.isArray(raw.sectors)) {
    c.add('organization.sectors', `must be a list, got ${describe(raw.sectors)}`);
    return org;
  }
  const seen = new Set<string>();
  const pendingDeps: { path: string; name: string; sector: Sector }[] = [];
  raw.sectors.forEach((s, i) => {
    const path = `organization.sectors[${i}]`;
    if (!isObject(s)) {
      c.add(path, `must be an object with a name, got ${describe(s)}`);
      return;
    }
    if (typeof s.name !== 'string' || s.name.trim() === '') {
      c.add(`${path}.name`, 'must be a non-empty string');
      return;
    }
    if (!checkName(c, `${path}.name`, s.name)) return;
    if (seen.has(s.name)) {
      c.add(`${path}.name`, `duplicate sector name '${s.name}'`);
      return;
    }
    seen.add(s.name);
    const sector: Sector = { name: s.name, dependencies: [] };
    if (s.maxParallelUpgrades !== undefined && s.maxParallelUpgrades !== null) {
      const mpu = parseMaxParallelUpgrades(s.maxParallelUpgrades);
      if (typeof mpu === 'string') c.add(`${path}.maxParallelUpgrades`, mpu);
      else sector.maxParallelUpgrades = mpu;
    }
    if (s.maxConcurrentUpgrades !== undefined && s.maxConcurrentUpgrades !== null) {
      const limit = parseMaxParallelUpgrades(s.maxConcurrentUpgrades);
      if (typeof limit === 'string') c.add(`${path}.maxConcurrentUpgrades`, limit);
      else sector.maxConcurrentUpgrades = limit;
    }
    Object.assign(sector, boundsOf(c, s, path));
    if (s.approval !== undefined && s.approval !== null) {
      const approval = approvalGatesOf(c, s.approval, `${path}.approval`);
      if (approval) sector.approval = approval;
    }
    if (s.notBefore !== undefined && s.notBefore !== null) {
      const nb = parseNotBefore(s.notBefore);
      if (typeof nb === 'string') c.add(`${path}.notBefore`, nb);
      else sector.notBefore = nb;
    }
    if (s.canary !== undefined && s.canary !== null) {
      const canary = canaryPolicyOf(c, s.canary, `${path}.canary`);
      if (canary) sector.canary = canary;
    }
    if (s.selector !== undefined && s.selector !== null) {
      if (typeof s.selector !== 'string') c.add(`${path}.selector`, `must be a label selector (text), got ${describe(s.selector)}`);
      else {
        const parsed = parseLabelSelector(s.selector);
        if (!parsed.ok) c.add(`${path}.selector`, parsed.message);
        else sector.selector = parsed.selector;
      }
    }
    if (s.dependencies !== undefined && s.dependencies !== null) {
      if (!Array.isArray(s.dependencies)) c.add(`${path}.dependencies`, 'must be a list of {name}');
      else
        s.dependencies.forEach((d: unknown, j) => {
          const name = isObject(d) ? d.name : d;
          if (typeof name !== 'string' || name === '') c.add(`${path}.dependencies[${j}]`, 'must be {name: SECTOR}');
          else if (checkName(c, `${path}.dependencies[${j}]`, name)) pendingDeps.push({ path: `${path}.dependencies[${j}]`, name, sector });
        });
    }
    org.sectors.push(sector);
  });
  const dependencySets = new Map<Sector, Set<string>>();
  for (const dep of pendingDeps) {
    if (!seen.has(dep.name)) c.add(dep.path, `unknown sector '${dep.name}' (sector ${dep.sector.name} depends on it)`);
    else {
      const added = dependencySets.get(dep.sector) ?? new Set<string>();
      dependencySets.set(dep.sector, added);
      if (!added.has(dep.name)) {
        added.add(dep.name);
        dep.sector.dependencies.push(dep.name);
      }
    }
  }
  for (const cycle of findSectorCycles(org.sectors)) {
    c.add('organization.sectors', `sector dependency cycle: ${cycle.join(' -> ')}`);
  }
  return org;
}

const APPROVAL_GATE_KEYS = ['before', 'after'] as const;
const CANARY_KEYS = ['count', 'percent', 'soakHours', 'selector'] as const;
/** a month: a longer canary soak is a typo (hours for days) rather than a plan */
export const MAX_CANARY_SOAK_HOURS = 24 * 31;

/** An unknown key of an object field, with the likely one when it is misspelt. */
function unknownKey(c: Collector, path: string, key: string, known: readonly string[]): void {
  const guess = known.find((k) => editDistance(k.toLowerCase(), key.toLowerCase()) <= 2);
  c.add(
    `${path}.${key}`,
    guess ? `unknown key '${key}': did you mean '${guess}'?` : `unknown key '${key}' (known here: ${known.join(', ')})`,
  );
}

/**
 * A sector's `canary: {count: N} | {percent: P}, soakHours: H` (canaries.ts); undefined after
 * reporting a problem. Exactly one of count and percent.
 */
function canaryPolicyOf(c: Collector, raw: unknown, path: string): CanaryPolicy | undefined {
  if (!isObject(raw)) {
    c.add(path, `must be an object {count: N} or {percent: P} with soakHours, got ${describe(raw)}`);
    return undefined;
  }
  let ok = true;
  for (const key of Object.keys(raw)) {
    if (!(CANARY_KEYS as readonly string[]).includes(key)) {
      unknownKey(c, path, key, CANARY_KEYS);
      ok = false;
    }
  }
  const hasCount = raw.count !== undefined && raw.count !== null;
  const hasPercent = raw.percent !== undefined && raw.percent !== null;
  let size: CanaryPolicy['size'] | undefined;
  if (hasCount && hasPercent) {
    c.add(path, 'give either count or percent, not both');
    ok = false;
  } else if (!hasCount && !hasPercent) {
    c.add(path, 'missing count (how many canaries) or percent (which share of the sector)');
    ok = false;
  } else if (hasCount) {
    if (typeof raw.count !== 'number' || !Number.isSafeInteger(raw.count) || raw.count < 1) {
      c.add(`${path}.count`, `must be a whole number >= 1, got ${describe(raw.count)}`);
      ok = false;
    } else size = { kind: 'count', value: raw.count, raw: String(raw.count) };
  } else if (typeof raw.percent !== 'number' || !Number.isInteger(raw.percent) || raw.percent < 1 || raw.percent > 100) {
    c.add(`${path}.percent`, `must be a whole number from 1 to 100, got ${describe(raw.percent)}`);
    ok = false;
  } else size = { kind: 'percent', value: raw.percent, raw: `${raw.percent}%` };
  let soakHours = 0;
  if (raw.soakHours !== undefined && raw.soakHours !== null) {
    if (
      typeof raw.soakHours !== 'number' ||
      !Number.isFinite(raw.soakHours) ||
      raw.soakHours < 0 ||
      raw.soakHours > MAX_CANARY_SOAK_HOURS
    ) {
      c.add(`${path}.soakHours`, `must be a number of hours from 0 to ${MAX_CANARY_SOAK_HOURS}, got ${describe(raw.soakHours)}`);
      ok = false;
    } else soakHours = raw.soakHours;
  }
  let selector: CanaryPolicy['selector'];
  if (raw.selector !== undefined && raw.selector !== null) {
    const parsed = typeof raw.selector === 'string' ? parseLabelSelector(raw.selector) : null;
    if (parsed === null) c.add(`${path}.selector`, `must be a label selector (text), got ${describe(raw.selector)}`);
    else if (!parsed.ok) c.add(`${path}.selector`, parsed.message);
    else selector = parsed.selector;
    ok &&= parsed?.ok === true;
  }
  return ok && size ? { size, soakHours, ...(selector ? { selector } : {}) } : undefined;
}

/** The document's `upgradeResults` (the canary rule's input): [{cluster, version, outcome, at, attempt?}]. */
function validateUpgradeResults(c: Collector, raw: unknown): UpgradeResult[] | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (!Array.isArray(raw)) {
    c.add('upgradeResults', `must be a list of {cluster, version, outcome, at}, got ${describe(raw)}`);
    return undefined;
  }
  const out: UpgradeResult[] = [];
  raw.forEach((r, i) => {
    const path = `upgradeResults[${i}]`;
    if (!isObject(r)) {
      c.add(path, `must be an object {cluster, version, outcome, at}, got ${describe(r)}`);
      return;
    }
    let ok = true;
    if (typeof r.cluster !== 'string' || r.cluster === '') {
      c.add(`${path}.cluster`, `must be a cluster name, got ${describe(r.cluster)}`);
      ok = false;
    }
    if (!isSemver(r.version)) {
      c.add(`${path}.version`, `not a semantic version: ${describe(r.version)}`);
      ok = false;
    }
    if (typeof r.outcome !== 'string' || !(UPGRADE_OUTCOMES as readonly string[]).includes(r.outcome)) {
      c.add(`${path}.outcome`, `must be one of ${UPGRADE_OUTCOMES.join(', ')}, got ${describe(r.outcome)}`);
      ok = false;
    }
    const at = parseInstant(r.at);
    if (at === null) {
      c.add(`${path}.at`, `not an ISO-8601 date-time: ${describe(r.at)}`);
      ok = false;
    }
    const attempt = r.attempt;
    if (attempt !== undefined && attempt !== null && (typeof attempt !== 'number' || !Number.isSafeInteger(attempt))) {
      c.add(`${path}.attempt`, `must be an attempt number, got ${describe(attempt)}`);
      ok = false;
    }
    if (!ok) return;
    out.push({
      cluster: r.cluster as string,
      version: r.version as string,
      outcome: r.outcome as UpgradeOutcome,
      at: at!,
      ...(typeof attempt === 'number' ? { attempt } : {}),
    });
  });
  return out;
}

/**
 * A sector's `approval: {before, after}` (booleans, `after` optional); undefined when neither is
 * true (no gate) or after reporting a problem. An unknown key is refused, with the likely one.
 */
function approvalGatesOf(c: Collector, raw: unknown, path: string): SectorApprovalGates | undefined {
  if (!isObject(raw)) {
    c.add(path, `must be an object {before: true|false, after: true|false}, got ${describe(raw)}`);
    return undefined;
  }
  const gates: SectorApprovalGates = { before: false, after: false };
  let ok = true;
  for (const [key, value] of Object.entries(raw)) {
    const known = (APPROVAL_GATE_KEYS as readonly string[]).includes(key);
    if (!known) {
      const guess = APPROVAL_GATE_KEYS.find((k) => editDistance(k, key.toLowerCase()) <= 2);
      c.add(
        `${path}.${key}`,
        guess ? `unknown key '${key}': did you mean '${guess}'?` : `unknown key '${key}' (known here: before, after)`,
      );
      ok = false;
    } else if (value !== undefined && value !== null && typeof value !== 'boolean') {
      c.add(`${path}.${key}`, `must be true or false, got ${describe(value)}`);
      ok = false;
    } else if (value === true) gates[key as keyof SectorApprovalGates] = true;
  }
  return ok && (gates.before || gates.after) ? gates : undefined;
}

/** Levenshtein distance of two short words (a misspelt key's likely meaning). */
function editDistance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    row = next;
  }
  return row[b.length]!;
}

/** The document's `approvals` (the engine's input of given approvals): [{sector, version, kind}], kind `before` by default. */
function validateApprovals(c: Collector, raw: unknown, sectorNames: ReadonlySet<string>): Approval[] | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (!Array.isArray(raw)) {
    c.add('approvals', `must be a list of {sector, version, kind}, got ${describe(raw)}`);
    return undefined;
  }
  const out: Approval[] = [];
  raw.forEach((a, i) => {
    const path = `approvals[${i}]`;
    if (!isObject(a)) {
      c.add(path, `must be an object {sector, version, kind}, got ${describe(a)}`);
      return;
    }
    const kind = a.kind === undefined || a.kind === null ? 'before' : a.kind;
    let ok = true;
    if (typeof a.sector !== 'string' || !sectorNames.has(a.sector)) {
      c.add(`${path}.sector`, `unknown sector ${describe(a.sector)}`);
      ok = false;
    }
    if (!isSemver(a.version)) {
      c.add(`${path}.version`, `not a semantic version: ${describe(a.version)}`);
      ok = false;
    }
    if (typeof kind !== 'string' || !(APPROVAL_KINDS as readonly string[]).includes(kind)) {
      c.add(`${path}.kind`, `must be one of ${APPROVAL_KINDS.join(', ')}, got ${describe(kind)}`);
      ok = false;
    }
    if (ok) out.push({ sector: a.sector as string, version: a.version as string, kind: kind as ApprovalKind });
  });
  return out;
}

/** At most this many cycles are named: a file of thousands of sectors could hold millions. */
export const MAX_REPORTED_CYCLES = 20;

/**
 * Each dependency cycle once (at most MAX_REPORTED_CYCLES), as a closed list of names
 * (`a -> b -> a`). A depth-first search with its own stack: a chain of 100,000 sectors in an
 * uploaded file must not overflow the call stack.
 */
export function findSectorCycles(sectors: readonly Sector[]): string[][] {
  const byName = new Map(sectors.map((s) => [s.name, s]));
  const state = new Map<string, 'visiting' | 'done'>();
  /** the path being explored; `positions` says where each name on it sits */
  const stack: { name: string; next: number }[] = [];
  const positions = new Map<string, number>();
  const cycles: string[][] = [];
  const enter = (name: string) => {
    state.set(name, 'visiting');
    positions.set(name, stack.length);
    stack.push({ name, next: 0 });
  };
  for (const s of sectors) {
    if (state.has(s.name)) continue;
    enter(s.name);
    while (stack.length > 0) {
      const top = stack[stack.length - 1] as { name: string; next: number };
      const deps = byName.get(top.name)?.dependencies ?? [];
      if (top.next >= deps.length) {
        stack.pop();
        positions.delete(top.name);
        state.set(top.name, 'done');
        continue;
      }
      const dep = deps[top.next++] as string;
      const st = state.get(dep);
      if (st === 'visiting') {
        if (cycles.length < MAX_REPORTED_CYCLES) {
          cycles.push([...stack.slice(positions.get(dep)).map((f) => f.name), dep]);
        }
      } else if (st === undefined && byName.has(dep)) enter(dep);
    }
  }
  return cycles;
}

function validateSchedule(c: Collector, raw: unknown, path: string): Schedule | undefined {
  if (raw === undefined || raw === null) {
    c.add(path, 'missing: a cron string or {cron, location, isoWeek, suspend}');
    return undefined;
  }
  const obj: Obj | undefined = typeof raw === 'string' ? { cron: raw } : isObject(raw) ? raw : undefined;
  if (!obj) {
    c.add(path, `must be a cron string or an object with cron, got ${describe(raw)}`);
    return undefined;
  }
  const cronPath = typeof raw === 'string' ? path : `${path}.cron`;
  let ok = true;
  if (typeof obj.cron !== 'string') {
    c.add(cronPath, `must be a cron string, got ${describe(obj.cron)}`);
    ok = false;
  } else {
    const cron = parseCron(obj.cron);
    if (!cron.ok) {
      c.add(cronPath, `invalid cron '${obj.cron}': ${cron.message}`);
      ok = false;
    }
  }
  let location = 'UTC';
  if (obj.location !== undefined && obj.location !== null) {
    if (typeof obj.location !== 'string' || !isKnownTimeZone(obj.location)) {
      c.add(`${path}.location`, `unknown time zone ${describe(obj.location)} (use an IANA name such as Europe/Zurich)`);
      ok = false;
    } else location = obj.location;
  }
  let isoWeek: string | undefined;
  if (obj.isoWeek !== undefined && obj.isoWeek !== null) {
    const iso = parseIsoWeek(obj.isoWeek);
    if (!iso.ok) {
      c.add(`${path}.isoWeek`, iso.message);
      ok = false;
    } else isoWeek = iso.normalized;
  }
  let suspend = false;
  if (obj.suspend !== undefined && obj.suspend !== null) {
    if (typeof obj.suspend !== 'boolean') {
      c.add(`${path}.suspend`, `must be true or false, got ${describe(obj.suspend)}`);
      ok = false;
    } else suspend = obj.suspend;
  }
  if (!ok) return undefined;
  const schedule: Schedule = { cron: (obj.cron as string).trim(), location, suspend };
  if (isoWeek !== undefined) schedule.isoWeek = isoWeek;
  return schedule;
}

/** One field of a schedule in its spelling key: its type and value, or undefined for a value that is not plain. */
function spellingPart(v: unknown): string | undefined {
  if (v === undefined || v === null) return '-';
  if (typeof v === 'string') return `s${v.length}:${v}`;
  if (typeof v === 'boolean') return v ? 't' : 'f';
  // NaN and Infinity (YAML's .nan, .inf) are not shared: one spelling, one value
  if (typeof v === 'number' && Number.isFinite(v)) return `n${v};`;
  return undefined;
}

/**
 * A schedule as written, as a key: a cron string, or an object of plain values (anything else:
 * undefined, not shared). Equal spellings validate to equal schedules wherever they are.
 */
function scheduleSpelling(raw: unknown): string | undefined {
  if (typeof raw === 'string') return `c${raw}`;
  if (!isObject(raw) || typeof raw.cron !== 'string') return undefined;
  const location = spellingPart(raw.location);
  const isoWeek = spellingPart(raw.isoWeek);
  const suspend = spellingPart(raw.suspend);
  if (location === undefined || isoWeek === undefined || suspend === undefined) return undefined;
  return `o${location}${isoWeek}${suspend}${raw.cron}`;
}

/**
 * validateSchedule, giving the clusters that spell their schedule alike one Schedule object: a
 * fleet of 10,000 clusters has a few dozen schedules, and the engine memoizes its answers per
 * schedule object (cron-schedule.ts), so one object per cluster cost it a key string and a cache
 * entry per cluster. A schedule with a problem is validated (and reported) at every place.
 */
function sharedSchedule(c: Collector, raw: unknown, path: string, ctx: Context): Schedule | undefined {
  const spelling = scheduleSpelling(raw);
  const known = spelling === undefined ? undefined : ctx.schedules.get(spelling);
  if (known) return known;
  const schedule = validateSchedule(c, raw, path);
  if (schedule && spelling !== undefined) ctx.schedules.set(spelling, schedule);
  return schedule;
}

type Context = {
  /** the schedules validated so far, by spelling (sharedSchedule) */
  schedules: Map<string, Schedule>;
  org: Organization;
  sectorNames: Set<string>;
  /** the organization's allow-lists as sets (policies may list thousands of names) */
  allowedWorkloads: Set<string> | undefined;
  allowedMutexes: Set<string> | undefined;
};

/** a policy's mutexes: non-empty, valid names */
const MUTEX_LIST = { nonEmptyItems: true, names: true } as const;

function validatePolicy(c: Collector, raw: unknown, path: string, ctx: Context): UpgradePolicy | undefined {
  if (!isObject(raw)) {
    c.add(path, `must be an object, got ${describe(raw)}`);
    return undefined;
  }
  const start = c.problems.length;
  const workloads: string[] = [];
  if (!Array.isArray(raw.workloads) || raw.workloads.length === 0) {
    c.add(`${path}.workloads`, Array.isArray(raw.workloads) ? 'must list at least one workload' : 'missing: a non-empty list of workloads');
  } else {
    const allowed = ctx.allowedWorkloads;
    const list: unknown[] = raw.workloads;
    // `workloads` holds the names taken so far: a policy lists a few, a Set for each would cost more
    const seen = list.length > 16 ? new Set<string>() : undefined;
    for (let j = 0; j < list.length; j++) {
      const w = list[j];
      if (typeof w !== 'string' || w.trim() === '')
        c.add(`${path}.workloads[${j}]`, `must be a non-empty workload name, got ${describe(w)}`);
      else if (!checkName(c, `${path}.workloads[${j}]`, w)) continue;
      else if (seen ? seen.has(w) : workloads.includes(w)) c.add(`${path}.workloads[${j}]`, `duplicate workload '${w}'`);
      else if (allowed && !allowed.has(w)) {
        c.add(`${path}.workloads[${j}]`, `workload '${w}' is not in organization.upgradePolicyAllowedWorkloads`);
      } else {
        seen?.add(w);
        workloads.push(w);
      }
    }
  }
  const schedule = sharedSchedule(c, raw.schedule, `${path}.schedule`, ctx);
  const conditions: UpgradeConditions = { mutexes: [], blockedVersions: [] };
  const cp = `${path}.conditions`;
  const rc = raw.conditions;
  if (rc !== undefined && rc !== null && !isObject(rc)) c.add(cp, `must be an object, got ${describe(rc)}`);
  else if (isObject(rc)) {
    if (rc.soakDays !== undefined && rc.soakDays !== null) {
      if (typeof rc.soakDays !== 'number' || !Number.isFinite(rc.soakDays)) {
        c.add(`${cp}.soakDays`, `must be a number >= 0, got ${describe(rc.soakDays)}`);
      } else if (rc.soakDays < 0) c.add(`${cp}.soakDays`, `must be >= 0, got ${rc.soakDays}`);
      else conditions.soakDays = rc.soakDays;
    }
    const mutexes = stringList(c, rc.mutexes, `${cp}.mutexes`, MUTEX_LIST) ?? [];
    const allowed = ctx.allowedMutexes;
    if (allowed && Array.isArray(rc.mutexes)) {
      const valid = new Set(mutexes);
      rc.mutexes.forEach((m: unknown, j) => {
        if (typeof m === 'string' && valid.has(m) && !allowed.has(m)) {
          c.add(`${cp}.mutexes[${j}]`, `mutex '${m}' is not in organization.upgradePolicyAllowedMutexes`);
        }
      });
    }
    conditions.mutexes = uniqueInOrder(mutexes);
    if (rc.sector !== undefined && rc.sector !== null) {
      if (typeof rc.sector !== 'string') c.add(`${cp}.sector`, `must be a sector name, got ${describe(rc.sector)}`);
      else if (!checkName(c, `${cp}.sector`, rc.sector)) {
        // reported: an invalid name cannot be a sector's
      } else if (!ctx.sectorNames.has(rc.sector)) {
        const known = [...ctx.sectorNames];
        c.add(
          `${cp}.sector`,
          `unknown sector '${rc.sector}'${known.length ? ` (known: ${known.join(', ')})` : ' (the organization has no sectors)'}`,
        );
      } else conditions.sector = rc.sector;
    }
    conditions.blockedVersions = regexList(c, rc.blockedVersions, `${cp}.blockedVersions`);
    Object.assign(conditions, boundsOf(c, rc, cp));
  }
  let lifecycle: LifecycleOptions | undefined;
  if (raw.lifecycle !== undefined && raw.lifecycle !== null) {
    const parsed = parseLifecycleOptions(raw.lifecycle, `${path}.lifecycle`);
    for (const p of parsed.problems) c.add(p.path, p.message);
    lifecycle = parsed.options;
  }
  if (c.problems.length > start || !schedule) return undefined;
  const policy: UpgradePolicy = { workloads, schedule, conditions };
  if (lifecycle) policy.lifecycle = lifecycle;
  return policy;
}

function validateCurrentUpgrade(c: Collector, raw: unknown, path: string): CurrentUpgrade | undefined {
  if (!isObject(raw)) {
    c.add(path, `must be an object {version, nextRun, state}, got ${describe(raw)}`);
    return undefined;
  }
  let ok = true;
  if (!isSemver(raw.version)) {
    c.add(`${path}.version`, `not a semantic version: ${describe(raw.version)}`);
    ok = false;
  }
  const nextRun = parseInstant(raw.nextRun);
  if (nextRun === null) {
    c.add(`${path}.nextRun`, `not an ISO-8601 date-time: ${describe(raw.nextRun)}`);
    ok = false;
  }
  if (typeof raw.state !== 'string' || !(CURRENT_UPGRADE_STATES as readonly string[]).includes(raw.state)) {
    c.add(`${path}.state`, `must be one of ${CURRENT_UPGRADE_STATES.join(', ')}, got ${describe(raw.state)}`);
    ok = false;
  }
  if (!ok) return undefined;
  return { version: raw.version as string, nextRun: formatInstant(nextRun as number), state: raw.state as CurrentUpgrade['state'] };
}

/**
 * A cluster's labels: label keys as Kubernetes spells them (label-syntax.ts) to string values.
 * Values are taken as they are: a provider's label value outside Kubernetes' syntax can still be
 * matched by `key`, `!=` and `notin`, and refusing it would refuse the whole stored fleet.
 */
function validateLabels(c: Collector, raw: unknown, path: string): Record<string, string> | undefined {
  if (!isObject(raw)) {
    c.add(path, `must be a map of label keys to values, got ${describe(raw)}`);
    return undefined;
  }
  const labels: Record<string, string> = {};
  for (const [key, value] of Object.entries(raw)) {
    // a key may hold dots and slashes (example.com/team): quoted, the path stays unambiguous
    const keyPath = `${path}[${JSON.stringify(key)}]`;
    const keyProblem = labelKeyProblem(key);
    if (keyProblem) c.add(keyPath, `not a valid label key: ${keyProblem}`);
    if (typeof value !== 'string') c.add(keyPath, `must be a string, got ${describe(value)}`);
    if (!keyProblem && typeof value === 'string') labels[key] = value;
  }
  return labels;
}

function validateClusters(c: Collector, raw: unknown, ctx: Context): Cluster[] {
  if (raw === undefined || raw === null) {
    c.add('clusters', 'missing: a list of clusters');
    return [];
  }
  if (!Array.isArray(raw)) {
    c.add('clusters', `must be a list, got ${describe(raw)}`);
    return [];
  }
  const names = new Set<string>();
  const clusters: Cluster[] = [];
  for (let i = 0; i < raw.length; i++) {
    const rc: unknown = raw[i];
    const path = `clusters[${i}]`;
    if (!isObject(rc)) {
      c.add(path, `must be an object, got ${describe(rc)}`);
      continue;
    }
    const start = c.problems.length;
    if (typeof rc.name !== 'string' || rc.name.trim() === '') c.add(`${path}.name`, 'must be a non-empty string');
    else if (!checkName(c, `${path}.name`, rc.name)) {
      // reported
    } else if (names.has(rc.name)) c.add(`${path}.name`, `duplicate cluster name '${rc.name}'`);
    else names.add(rc.name);
    if (!isSemver(rc.version)) c.add(`${path}.version`, `not a semantic version: ${describe(rc.version)}`);
    if (rc.channel !== undefined && rc.channel !== null && typeof rc.channel !== 'string') {
      c.add(`${path}.channel`, 'must be a string');
    }
    const available: string[] = [];
    if (rc.availableUpgrades !== undefined && rc.availableUpgrades !== null) {
      if (!Array.isArray(rc.availableUpgrades)) c.add(`${path}.availableUpgrades`, 'must be a list of versions');
      else {
        const offers: unknown[] = rc.availableUpgrades;
        // `available` holds the versions taken so far: a cluster is offered a few, a Set for each would cost more
        const offered = offers.length > 16 ? new Set<string>() : undefined;
        for (let j = 0; j < offers.length; j++) {
          const v = offers[j];
          if (!isSemver(v)) c.add(`${path}.availableUpgrades[${j}]`, `not a semantic version: ${describe(v)}`);
          else if (!(offered ? offered.has(v) : available.includes(v))) {
            offered?.add(v);
            available.push(v);
          }
        }
      }
    }
    let healthy = true;
    if (rc.healthy !== undefined && rc.healthy !== null) {
      if (typeof rc.healthy !== 'boolean') c.add(`${path}.healthy`, `must be true or false, got ${describe(rc.healthy)}`);
      else healthy = rc.healthy;
    }
    const policy =
      rc.upgradePolicy === undefined || rc.upgradePolicy === null
        ? undefined
        : validatePolicy(c, rc.upgradePolicy, `${path}.upgradePolicy`, ctx);
    const current =
      rc.currentUpgrade === undefined || rc.currentUpgrade === null
        ? undefined
        : validateCurrentUpgrade(c, rc.currentUpgrade, `${path}.currentUpgrade`);
    const labels = rc.labels === undefined || rc.labels === null ? undefined : validateLabels(c, rc.labels, `${path}.labels`);
    if (c.problems.length > start) continue;
    const cluster: Cluster = { name: rc.name as string, version: rc.version as string, availableUpgrades: available, healthy };
    if (typeof rc.channel === 'string') cluster.channel = rc.channel;
    if (policy) cluster.upgradePolicy = policy;
    if (current) cluster.currentUpgrade = current;
    if (labels) cluster.labels = labels;
    clusters.push(cluster);
  }
  return clusters;
}

function checkVersionData(c: Collector, raw: unknown, nowMs: number | null): VersionData {
  const data: VersionData = { versions: {} };
  if (raw === undefined || raw === null) return data;
  if (!isObject(raw)) {
    c.add('versionData', `must be an object {checkIn, versions}, got ${describe(raw)}`);
    return data;
  }
  if (raw.checkIn !== undefined && raw.checkIn !== null) {
    const checkIn = parseInstant(raw.checkIn);
    if (checkIn === null) c.add('versionData.checkIn', `not an ISO-8601 date-time: ${describe(raw.checkIn)}`);
    else if (nowMs !== null && checkIn > nowMs) {
      c.add('versionData.checkIn', `${formatInstant(checkIn)} is after now (${formatInstant(nowMs)})`);
    } else data.checkIn = formatInstant(checkIn);
  }
  if (raw.versions === undefined || raw.versions === null) return data;
  if (!isObject(raw.versions)) {
    c.add('versionData.versions', 'must be an object keyed by version');
    return data;
  }
  for (const [version, entry] of Object.entries(raw.versions)) {
    const vp = `versionData.versions.${version}`;
    if (!isSemver(version)) {
      c.add(vp, `not a semantic version: '${version}'`);
      continue;
    }
    const soak: VersionSoak = { workloads: {} };
    data.versions[version] = soak;
    if (entry === null || entry === undefined) continue;
    if (!isObject(entry)) {
      c.add(vp, 'must be an object {workloads}');
      continue;
    }
    if (entry.workloads === undefined || entry.workloads === null) continue;
    if (!isObject(entry.workloads)) {
      c.add(`${vp}.workloads`, 'must be an object keyed by workload');
      continue;
    }
    for (const [workload, w] of Object.entries(entry.workloads)) {
      const wp = `${vp}.workloads.${workload}`;
      if (!isObject(w)) {
        c.add(wp, 'must be an object {soakDays, reporting}');
        continue;
      }
      let soakDays = 0;
      if (w.soakDays !== undefined && w.soakDays !== null) {
        if (typeof w.soakDays !== 'number' || !Number.isFinite(w.soakDays) || w.soakDays < 0) {
          c.add(`${wp}.soakDays`, `must be a number >= 0, got ${describe(w.soakDays)}`);
        } else soakDays = w.soakDays;
      }
      const reporting = stringList(c, w.reporting, `${wp}.reporting`) ?? [];
      soak.workloads[workload] = { soakDays, reporting: [...new Set(reporting)] };
    }
  }
  return data;
}

/**
 * Only a document's `versionData`, checked as validatePlanInput checks it (it depends on nothing
 * else in the document): for a caller that holds an input validated before and gets new soak
 * figures for it.
 */
export function validateVersionData(
  raw: unknown,
  now: string,
): { ok: true; versionData: VersionData } | { ok: false; problems: Problem[] } {
  const c = new Collector();
  const versionData = checkVersionData(c, raw, parseInstant(now));
  return c.problems.length > 0 ? { ok: false, problems: c.problems } : { ok: true, versionData };
}

/**
 * Checks a parsed document against contracts/plan.md and returns the normalized input, or every
 * problem found. `opts.now` (the CLI's `--now`) overrides the document's `now`.
 */
export function validatePlanInput(raw: unknown, opts: ValidateOptions = {}): PlanParseResult {
  const c = new Collector();
  if (!isObject(raw)) {
    c.add('(document)', `must be an object with now, organization, clusters, got ${describe(raw)}`);
    return { ok: false, problems: c.problems };
  }
  let nowMs: number | null = null;
  if (opts.now !== undefined) {
    nowMs = parseInstant(opts.now);
    if (nowMs === null) c.add('now', `--now '${opts.now}' is not an ISO-8601 date-time`);
  } else if (raw.now === undefined || raw.now === null) {
    c.add('now', 'missing: give now in the file or --now on the command line');
  } else {
    nowMs = parseInstant(raw.now);
    if (nowMs === null) c.add('now', `not an ISO-8601 date-time: ${describe(raw.now)}`);
  }
  const organization = validateOrganization(c, raw.organization);
  const ctx: Context = {
    schedules: new Map(),
    org: organization,
    sectorNames: new Set(organization.sectors.map((s) => s.name)),
    allowedWorkloads: organization.upgradePolicyAllowedWorkloads && new Set(organization.upgradePolicyAllowedWorkloads),
    allowedMutexes: organization.upgradePolicyAllowedMutexes && new Set(organization.upgradePolicyAllowedMutexes),
  };
  const clusters = validateClusters(c, raw.clusters, ctx);
  const versionData = checkVersionData(c, raw.versionData, nowMs);
  const approvals = validateApprovals(c, raw.approvals, ctx.sectorNames);
  const upgradeResults = validateUpgradeResults(c, raw.upgradeResults);
  if (c.problems.length > 0 || nowMs === null) return { ok: false, problems: c.problems };
  assignSectorsBySelector(organization.sectors, clusters);
  return {
    ok: true,
    input: {
      now: formatInstant(nowMs),
      organization,
      clusters,
      versionData,
      ...(approvals ? { approvals } : {}),
      ...(upgradeResults ? { upgradeResults } : {}),
    },
  };
}
