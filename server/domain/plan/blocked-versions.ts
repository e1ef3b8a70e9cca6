/**
 * Blocked-version regexes. Users write them, so they run on RE2 (linear time, no ReDoS); they
 * must also be valid JavaScript so the browser editor agrees with the engine: the accepted
 * language is the common subset (no backreferences, no lookaround).
 * Matching is an unanchored search, like JS `RegExp.test` and Python `re.search`:
 * `4.12.1` also blocks `4.12.10` (use `^4\.12\.1$` for one version).
 * @see https://github.com/google/re2/wiki/Syntax
 */
import { RE2JS } from 're2js';
import type { BlockedReleases } from './route-following';

export type RegexCheck = { ok: true } | { ok: false; message: string };

const compiled = new Map<string, RE2JS | null>();
const results = new Map<string, Map<string, boolean>>();

/** Why `pattern` is outside the common JS/RE2 subset, or ok. */
const checks = new Map<string, RegexCheck>();

export function checkBlockedVersionPattern(pattern: unknown): RegexCheck {
  if (typeof pattern !== 'string') return { ok: false, message: 'must be a regular expression string' };
  const hit = checks.get(pattern);
  if (hit) return hit;
  const result = checkPatternUncached(pattern);
  if (checks.size > 10_000) checks.clear();
  checks.set(pattern, result);
  return result;
}

function checkPatternUncached(pattern: string): RegexCheck {
  if (/\\[1-9]|\\k</.test(stripEscapedBackslashes(pattern))) {
    return { ok: false, message: `invalid regex '${pattern}': backreferences are not supported` };
  }
  if (/\(\?<?[=!]/.test(stripEscapedBackslashes(pattern))) {
    return { ok: false, message: `invalid regex '${pattern}': lookaround is not supported` };
  }
  try {
    new RegExp(pattern);
  } catch (err) {
    return { ok: false, message: `invalid regex '${pattern}': ${err instanceof Error ? err.message : String(err)}` };
  }
  if (!compileRe2(pattern)) {
    return { ok: false, message: `invalid regex '${pattern}': not supported by RE2 (the common JS/RE2 subset is required)` };
  }
  return { ok: true };
}

/** Removes `\\` pairs so an escaped backslash followed by `1` is not taken for a backreference. */
function stripEscapedBackslashes(pattern: string): string {
  return pattern.replace(/\\\\/g, '');
}

function compileRe2(pattern: string): RE2JS | null {
  let re = compiled.get(pattern);
  if (re === undefined) {
    try {
      re = RE2JS.compile(pattern);
    } catch {
      re = null;
    }
    if (compiled.size > 10_000) compiled.clear();
    compiled.set(pattern, re);
  }
  return re;
}

/** True when `pattern` (a validated regex) finds a match anywhere in `version`. Cached. */
export function patternMatches(pattern: string, version: string): boolean {
  let perPattern = results.get(pattern);
  if (!perPattern) {
    // bounded: a long-running server sees patterns come and go as operators edit them
    if (results.size > 10_000) results.clear();
    perPattern = new Map();
    results.set(pattern, perPattern);
  }
  const hit = perPattern.get(version);
  if (hit !== undefined) return hit;
  const re = compileRe2(pattern);
  const matched = re ? re.matcher(version).find() : false;
  if (perPattern.size > 50_000) perPattern.clear();
  perPattern.set(version, matched);
  return matched;
}

/** How a pattern of the instance's list is named wherever a block is explained. */
export function describeInstanceWidePattern(pattern: string): string {
  return `${pattern} (blocked instance-wide)`;
}

/**
 * THE merge rule of blocked versions, for the engine, the forecast, the lifecycle's start gate and
 * every explanation: the instance's list (named instance-wide), then the organization's, then the
 * cluster policy's. Returns the first that blocks `version`, described, or undefined.
 */
export function blockingPatternOf(
  version: string,
  organization: { blockedVersions: readonly string[]; instanceBlockedVersions?: readonly string[] },
  clusterBlocked: readonly string[] = [],
): string | undefined {
  const instanceWide = findBlockingPattern(version, organization.instanceBlockedVersions ?? []);
  if (instanceWide !== undefined) return describeInstanceWidePattern(instanceWide);
  return findBlockingPattern(version, organization.blockedVersions, clusterBlocked);
}

/** The first pattern of the lists that blocks `version`, or undefined. */
export function findBlockingPattern(version: string, ...patternLists: readonly (readonly string[])[]): string | undefined {
  for (const list of patternLists) {
    for (const p of list) if (patternMatches(p, version)) return p;
  }
  return undefined;
}

const NO_CLUSTER_BLOCKED: readonly string[] = [];
/**
 * Per organization object and cluster list (plan inputs are not changed in place): the engine asks
 * for every managed cluster at every run — 10k clusters × 200 forecast steps — and building one
 * each time (two closures and a JSON key) made the forecast at 10k 2.5× slower.
 */
const blockedReleasesMemo = new WeakMap<object, WeakMap<readonly string[], BlockedReleases>>();

/**
 * The releases blocked for one cluster, by blockingPatternOf, with a key naming the patterns (so a
 * route avoiding them is memoized per key): what a route hands the path solver to avoid.
 */
export function blockedReleasesFor(
  organization: { blockedVersions: readonly string[]; instanceBlockedVersions?: readonly string[] },
  clusterBlocked: readonly string[] = NO_CLUSTER_BLOCKED,
): BlockedReleases {
  let byList = blockedReleasesMemo.get(organization);
  if (!byList) blockedReleasesMemo.set(organization, (byList = new WeakMap()));
  let found = byList.get(clusterBlocked);
  if (!found) byList.set(clusterBlocked, (found = blockedReleasesOf(organization, clusterBlocked)));
  return found;
}

function blockedReleasesOf(
  organization: { blockedVersions: readonly string[]; instanceBlockedVersions?: readonly string[] },
  clusterBlocked: readonly string[],
): BlockedReleases {
  // the route finder reads the key only for the few clusters with a target minors away
  let key: string | undefined;
  return {
    get key() {
      return (key ??= JSON.stringify([organization.instanceBlockedVersions ?? [], organization.blockedVersions, clusterBlocked]));
    },
    by: (version) => blockingPatternOf(version, organization, clusterBlocked),
  };
}
