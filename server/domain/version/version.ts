/**
 * Release versions for the whole domain: strict SemVer 2.0.0 on the `semver` package, with a parse
 * cache (the plan engine compares the same few dozen strings hundreds of thousands of times).
 *
 * - Ordering is SemVer precedence: `4.14.0-rc.1 < 4.14.0`, numeric identifiers compare
 *   numerically and below alphanumeric ones, build metadata (`4.9.6+amd64`) is ignored.
 * - Strict: a leading `v`, surrounding white space, a missing patch (`4.7`) or leading zeros are
 *   rejected (the `semver` package itself accepts the first two, so they are refused before it).
 * - The `semver` package refuses strings longer than 256 characters; so does this module.
 * @see https://semver.org/#spec-item-11
 */
import SemVer from 'semver/classes/semver';

export interface ParsedVersion {
  /** The version without its build suffix, as printed. */
  readonly version: string;
  readonly major: number;
  readonly minor: number;
  readonly patch: number;
  /** Pre-release identifiers; numeric ones as numbers. Empty for a release. */
  readonly prerelease: readonly (string | number)[];
  /** The build suffix without `+`, or null. */
  readonly build: string | null;
  /** The `semver` package's object, which decides precedence. */
  readonly semver: SemVer;
}

const CACHE_LIMIT = 100_000;
const cache = new Map<string, ParsedVersion | null>();

function parseUncached(text: string): ParsedVersion | null {
  // `semver` trims and takes a leading `v`; the contracts do not.
  if (!/^\d/.test(text) || /\s$/.test(text)) return null;
  let sv: SemVer;
  try {
    sv = new SemVer(text);
  } catch {
    return null; // not SemVer, too long, or a component beyond Number.MAX_SAFE_INTEGER
  }
  return {
    version: sv.version,
    major: sv.major,
    minor: sv.minor,
    patch: sv.patch,
    prerelease: sv.prerelease,
    build: sv.build.length ? sv.build.join('.') : null,
    semver: sv,
  };
}

/** Parses a strict SemVer string (nothing around it); null when it is not one. */
export function parseVersion(text: string): ParsedVersion | null {
  const hit = cache.get(text);
  if (hit !== undefined) return hit;
  const parsed = parseUncached(text);
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(text, parsed);
  return parsed;
}

/**
 * Whether the value is a strict SemVer string. Only unknown input is narrowed: a plain type guard
 * would tell TypeScript that a string failing the check is not a string at all (`never`).
 */
export function isSemver(value: string): boolean;
export function isSemver(value: unknown): value is string;
export function isSemver(value: unknown): boolean {
  return typeof value === 'string' && parseVersion(value) !== null;
}

/**
 * The version as the update graph prints it: surrounding white space and the build suffix
 * dropped (`' 4.9.6+amd64'` → `'4.9.6'`); null when it is not SemVer.
 */
export function normalizeVersion(text: string): string | null {
  return parseVersion(text.trim())?.version ?? null;
}

/** SemVer precedence: negative when a < b, 0 when equal (build ignored), positive when a > b. */
export function compareParsedVersions(a: ParsedVersion, b: ParsedVersion): number {
  // major, minor, patch first, as `semver` does, without its identifier comparison (a regex test
  // of each number): the engine compares versions of different patch levels most of the time
  if (a.major !== b.major) return a.major < b.major ? -1 : 1;
  if (a.minor !== b.minor) return a.minor < b.minor ? -1 : 1;
  if (a.patch !== b.patch) return a.patch < b.patch ? -1 : 1;
  return a.semver.compare(b.semver);
}

/**
 * SemVer precedence of two version strings. Invalid ones sort before every valid one, and among
 * themselves by their text, so that any list of strings gets one stable order.
 */
export function compareVersions(a: string, b: string): number {
  if (a === b) return 0;
  const x = parseVersion(a);
  const y = parseVersion(b);
  if (!x || !y) return x ? 1 : y ? -1 : a < b ? -1 : 1;
  return compareParsedVersions(x, y);
}

/** `major.minor` of a version, e.g. `4.12` for `4.12.3-rc.1`; null when it is not SemVer. */
export function minorLabel(version: string): string | null {
  const p = parseVersion(version);
  return p ? `${p.major}.${p.minor}` : null;
}
