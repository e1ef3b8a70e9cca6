/**
 * Semantic versions (SemVer 2.0.0) with a parse cache: the engine compares the same few dozen
 * version strings hundreds of thousands of times, so parsing once matters.
 *
 * Ordering follows semver precedence: `4.14.0-rc.1 < 4.14.0`, numeric identifiers compare
 * numerically, build metadata is ignored.
 * @see https://semver.org/#spec-item-11
 */

const SEMVER_RE =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;

export type ParsedVersion = {
  raw: string;
  major: number;
  minor: number;
  patch: number;
  prerelease: (string | number)[];
};

const cache = new Map<string, ParsedVersion | null>();

export function parseVersion(raw: string): ParsedVersion | null {
  const hit = cache.get(raw);
  if (hit !== undefined) return hit;
  const m = SEMVER_RE.exec(raw);
  let parsed: ParsedVersion | null = null;
  if (m) {
    const nums = [Number(m[1]), Number(m[2]), Number(m[3])];
    if (nums.every((n) => Number.isSafeInteger(n))) {
      parsed = {
        raw,
        major: nums[0] ?? 0,
        minor: nums[1] ?? 0,
        patch: nums[2] ?? 0,
        prerelease: m[4] ? m[4].split('.').map((p) => (/^\d+$/.test(p) ? Number(p) : p)) : [],
      };
    }
  }
  if (cache.size > 100_000) cache.clear();
  cache.set(raw, parsed);
  return parsed;
}

export function isSemver(raw: unknown): raw is string {
  return typeof raw === 'string' && parseVersion(raw) !== null;
}

function comparePrerelease(a: (string | number)[], b: (string | number)[]): number {
  if (a.length === 0) return b.length === 0 ? 0 : 1;
  if (b.length === 0) return -1;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a[i] as string | number;
    const y = b[i] as string | number;
    if (x === y) continue;
    const xn = typeof x === 'number';
    const yn = typeof y === 'number';
    if (xn && yn) return x < y ? -1 : 1;
    if (xn) return -1;
    if (yn) return 1;
    return x < y ? -1 : 1;
  }
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}

/** Semver precedence of two valid versions: negative, zero or positive. Invalid ones sort first. */
export function compareVersions(a: string, b: string): number {
  if (a === b) return 0;
  const x = parseVersion(a);
  const y = parseVersion(b);
  if (!x || !y) return x ? 1 : y ? -1 : a < b ? -1 : a > b ? 1 : 0;
  return x.major - y.major || x.minor - y.minor || x.patch - y.patch || comparePrerelease(x.prerelease, y.prerelease);
}
