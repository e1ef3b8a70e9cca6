/**
 * Strict SemVer 2.0.0 handling for release versions, without the build suffix.
 *
 * Cincinnati versions may carry a build suffix (`4.9.6+amd64`); the contract compares and prints
 * them without it. A leading `v`, missing patch (`4.7`) or leading zeros are rejected.
 * @see https://semver.org/#is-there-a-suggested-regular-expression-regex-to-check-a-semver-string
 */

const SEMVER_RE =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;

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
}

/** Parses a strict SemVer string; returns null when it is not one. */
export function parseVersion(text: string): ParsedVersion | null {
  const m = SEMVER_RE.exec(text.trim());
  if (!m) return null;
  const [, maj, min, pat, pre, build] = m;
  const major = Number(maj);
  const minor = Number(min);
  const patch = Number(pat);
  if (!Number.isSafeInteger(major) || !Number.isSafeInteger(minor) || !Number.isSafeInteger(patch)) return null;
  const prerelease = pre ? pre.split('.').map((id) => (/^\d+$/.test(id) ? Number(id) : id)) : [];
  const version = `${major}.${minor}.${patch}${pre ? `-${pre}` : ''}`;
  return { version, major, minor, patch, prerelease, build: build ?? null };
}

/** The version without its build suffix, or null when `text` is not SemVer. */
export function normalizeVersion(text: string): string | null {
  return parseVersion(text)?.version ?? null;
}

/** SemVer precedence: negative when a < b, 0 when equal, positive when a > b. */
export function compareParsedVersions(a: ParsedVersion, b: ParsedVersion): number {
  if (a.major !== b.major) return a.major - b.major;
  if (a.minor !== b.minor) return a.minor - b.minor;
  if (a.patch !== b.patch) return a.patch - b.patch;
  const pa = a.prerelease;
  const pb = b.prerelease;
  if (pa.length === 0 || pb.length === 0) return pb.length - pa.length; // a release outranks its pre-releases
  const n = Math.min(pa.length, pb.length);
  for (let i = 0; i < n; i++) {
    const x = pa[i] as string | number;
    const y = pb[i] as string | number;
    if (x === y) continue;
    const xNum = typeof x === 'number';
    const yNum = typeof y === 'number';
    if (xNum && yNum) return x - y;
    if (xNum) return -1; // numeric identifiers have lower precedence than alphanumeric ones
    if (yNum) return 1;
    return x < y ? -1 : 1;
  }
  return pa.length - pb.length;
}

/** Compares two version strings (build suffix ignored); invalid versions sort first. */
export function compareVersions(a: string, b: string): number {
  const pa = parseVersion(a);
  const pb = parseVersion(b);
  if (!pa || !pb) return (pa ? 1 : 0) - (pb ? 1 : 0);
  return compareParsedVersions(pa, pb);
}

/** `major.minor` of a version string, or null when it is not SemVer. */
export function minorOf(version: string): { major: number; minor: number } | null {
  const p = parseVersion(version);
  return p ? { major: p.major, minor: p.minor } : null;
}
