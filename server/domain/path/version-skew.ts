import { parseVersion, type ParsedVersion } from '../version/version';

/**
 * Kubelet skew the control plane tolerates at `version`: how many minors the (paused) worker
 * kubelets may be behind.
 * - 4.y: 2 when y is even, 1 when y is odd (cluster-kube-apiserver-operator
 *   `kubeletversionskewcontroller`, unchanged 2021–2026; 4.23 stays at 1).
 * - 5.y: by position in the 3-minor EUS cycle (EUS at 5.2, 5.5, 5.8, …): 1, 2, 3.
 * - anything else: 1 (upstream n-1 as the conservative default).
 * @see ../shared/docs/research/update-graph.md §2.7
 */
export function maxKubeletSkew(controlPlane: { major: number; minor: number }): number {
  if (controlPlane.major === 4) return controlPlane.minor % 2 === 0 ? 2 : 1;
  if (controlPlane.major === 5) return (controlPlane.minor % 3) + 1;
  return 1;
}

export type SkewViolationKind = 'KUBELET_SKEW' | 'MINOR_SKIP' | 'DOWNGRADE' | 'MAJOR_CHANGE' | 'INVALID_VERSION';

export interface SkewViolation {
  readonly kind: SkewViolationKind;
  /** Index into the path of the point (or the hop's destination) that violates. */
  readonly index: number;
  readonly version: string;
  readonly message: string;
}

export interface SkewPoint {
  readonly index: number;
  /** Control-plane version at this point of the path. */
  readonly controlPlane: string;
  /** Minors the paused workers are behind (null when it cannot be computed). */
  readonly skew: number | null;
  readonly allowed: number | null;
  readonly ok: boolean;
}

export type VersionSkewReport =
  | { readonly ok: true; readonly workerVersion: string; readonly points: readonly SkewPoint[] }
  | {
      readonly ok: false;
      readonly workerVersion: string;
      readonly points: readonly SkewPoint[];
      readonly violations: readonly SkewViolation[];
    };

export interface VersionSkewInput {
  /** Control-plane versions in order, the current version first. */
  readonly path: readonly string[];
  /** Version of the paused worker pools; default: the first version of the path. */
  readonly workerVersion?: string;
}

const label = (v: ParsedVersion) => `${v.major}.${v.minor}`;

/**
 * Checks a control-plane path taken with worker pools paused ("control plane only" / EUS-to-EUS):
 * - at every point, the control plane may be at most `maxKubeletSkew(point)` minors ahead of the
 *   workers (2 on 4.even, 1 on 4.odd);
 * - every hop stays within a minor or goes to the adjacent minor (never skips one, never goes back,
 *   never changes major).
 * Returns every violation, not just the first.
 */
export function checkVersionSkew(input: VersionSkewInput): VersionSkewReport {
  const workerVersion = input.workerVersion ?? input.path[0] ?? '';
  const worker = parseVersion(workerVersion);
  const parsed = input.path.map((v) => parseVersion(v));
  const points: SkewPoint[] = [];
  const violations: SkewViolation[] = [];
  if (!worker) {
    violations.push({
      kind: 'INVALID_VERSION',
      index: -1,
      version: workerVersion,
      message: `${workerVersion || '(empty)'} is not a SemVer version`,
    });
  }
  parsed.forEach((cp, i) => {
    const version = input.path[i] as string;
    if (!cp) {
      violations.push({ kind: 'INVALID_VERSION', index: i, version, message: `${version} is not a SemVer version` });
      points.push({ index: i, controlPlane: version, skew: null, allowed: null, ok: false });
      return;
    }
    if (i > 0) {
      const prev = parsed[i - 1];
      if (prev) {
        const prevV = input.path[i - 1] as string;
        if (cp.major !== prev.major) {
          violations.push({ kind: 'MAJOR_CHANGE', index: i, version, message: `${prevV} → ${version} changes the major version` });
        } else if (cp.minor < prev.minor) {
          violations.push({ kind: 'DOWNGRADE', index: i, version, message: `${prevV} → ${version} goes back a minor` });
        } else if (cp.minor > prev.minor + 1) {
          violations.push({
            kind: 'MINOR_SKIP',
            index: i,
            version,
            message: `${prevV} → ${version} skips ${cp.minor - prev.minor - 1} minor(s); updates between minors are serial (${label(prev)} → ${prev.major}.${prev.minor + 1})`,
          });
        }
      }
    }
    if (!worker || worker.major !== cp.major) {
      if (worker) {
        violations.push({
          kind: 'MAJOR_CHANGE',
          index: i,
          version,
          message: `workers at ${workerVersion} and control plane at ${version} differ in major version`,
        });
      }
      points.push({ index: i, controlPlane: version, skew: null, allowed: null, ok: false });
      return;
    }
    const skew = cp.minor - worker.minor;
    const allowed = maxKubeletSkew(cp);
    const ok = skew <= allowed;
    if (!ok) {
      violations.push({
        kind: 'KUBELET_SKEW',
        index: i,
        version,
        message: `control plane ${version} would be ${skew} minors ahead of workers at ${label(worker)}; ${label(cp)} allows ${allowed}. Unpause the worker pools and let them update before this step.`,
      });
    }
    points.push({ index: i, controlPlane: version, skew, allowed, ok });
  });
  return violations.length ? { ok: false, workerVersion, points, violations } : { ok: true, workerVersion, points };
}
