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
  // a plain pattern is RE2 syntax by construction: no need to start RE2 to know
  if (plainPatternRegExp(pattern) === null && !compileRe2(pattern)) {
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

/** Characters that stand for themselves in a pattern, in RE2 as in JavaScript. */
const PLAIN_LITERAL = /^[A-Za-z0-9_-]$/;
/** What may follow a character to repeat it: not part of a plain pattern, except `.*` and `.+`. */
const QUANTIFIER = /^[*+?{]$/;
/**
 * `.*` and `.+` in one plain pattern, counting an unanchored start as one: with two, a search
 * backtracks at most quadratically in the text's length.
 */
const MAX_PLAIN_REPEATS = 2;
/** Longer text goes to RE2 (semver's own limit on a version's length is 256). */
const MAX_PLAIN_TEXT = 256;

const plainRegExps = new Map<string, RegExp | null>();

/**
 * The JavaScript RegExp for a pattern of the plain shape blocked-version lists are written in
 * (`^4\.14\.(3|7)$`, `-rc`, `^.*-rc\..*$`), or null for any other pattern (RE2 matches those):
 * `^` first, `$` last, and between them letters, digits, `_`, `-`, `\.`, `.`, at most
 * MAX_PLAIN_REPEATS of `.*` or `.+`, and groups of such literal alternatives (`(3|7)`), nothing
 * repeated otherwise. On plain text (isPlainText) the RegExp finds a match exactly where RE2 does,
 * `.` written as `[^\n]` as RE2 reads it, within quadratic time; so a plan whose patterns are
 * all plain never starts RE2, whose first compile and match cost ~50 ms of a cold `fleetplan plan`.
 */
export function plainPatternRegExp(pattern: string): RegExp | null {
  let found = plainRegExps.get(pattern);
  if (found === undefined) {
    found = translatePlainPattern(pattern);
    if (plainRegExps.size > 10_000) plainRegExps.clear();
    plainRegExps.set(pattern, found);
  }
  return found;
}

/** ASCII text of at most MAX_PLAIN_TEXT characters: where a plain pattern's RegExp and RE2 agree, and fast. */
export function isPlainText(text: string): boolean {
  if (text.length > MAX_PLAIN_TEXT) return false;
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x7f) return false;
  return true;
}

function translatePlainPattern(pattern: string): RegExp | null {
  let source = '';
  // a search not anchored at the start tries every start: as costly as one more `.*`
  let repeats = 1;
  let i = 0;
  const end = pattern.length;
  if (pattern[0] === '^') {
    source = '^';
    repeats = 0;
    i = 1;
  }
  /** A literal (letter, digit, `_`, `-` or `\.`) at `at`, as RegExp source, or null. */
  const literalAt = (at: number): { source: string; length: number } | null => {
    const c = pattern[at] ?? '';
    if (PLAIN_LITERAL.test(c)) return { source: c, length: 1 };
    if (c === '\\' && pattern[at + 1] === '.') return { source: '\\.', length: 2 };
    return null;
  };
  while (i < end) {
    const c = pattern[i] as string;
    const literal = literalAt(i);
    if (literal) {
      source += literal.source;
      i += literal.length;
    } else if (c === '.') {
      const next = pattern[i + 1];
      if (next === '*' || next === '+') {
        if (++repeats > MAX_PLAIN_REPEATS) return null;
        source += `[^\\n]${next}`;
        i += 2;
      } else {
        source += '[^\\n]';
        i += 1;
      }
    } else if (c === '(') {
      const alternatives: string[] = [];
      let alternative = '';
      i += 1;
      for (;;) {
        const inner = literalAt(i);
        if (inner) {
          alternative += inner.source;
          i += inner.length;
        } else if ((pattern[i] === '|' || pattern[i] === ')') && alternative !== '') {
          alternatives.push(alternative);
          alternative = '';
          i += 1;
          if (pattern[i - 1] === ')') break;
        } else return null;
      }
      source += `(?:${alternatives.join('|')})`;
    } else if (c === '$' && i === end - 1) {
      source += '$';
      i += 1;
    } else return null;
    if (QUANTIFIER.test(pattern[i] ?? '')) return null;
  }
  return new RegExp(source);
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
  const plain = isPlainText(version) ? plainPatternRegExp(pattern) : null;
  let matched: boolean;
  if (plain) matched = plain.test(version);
  else {
    const re = compileRe2(pattern);
    matched = re ? re.matcher(version).find() : false;
  }
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
