/**
 * Target versions and caps (beyond the reference upgrade service): an organization, a sector or a
 * cluster policy may say where upgrades stop — `targetVersion` (where the fleet is meant to be)
 * and `maxVersion` (never past this) — each a release (`4.16.3`) or a whole minor (`4.16.*`: any
 * 4.16.z, nothing from 4.17). The engine takes no candidate above any bound that applies to a
 * cluster (the lowest wins), so a target or a cap is never passed; a cluster with nothing left
 * below its bounds waits with AT_TARGET (it runs its target) or ABOVE_CAP.
 */
import { compareVersions, parseVersion } from '../version/version';
import type { Organization, Sector, UpgradeConditions } from './types';

export type VersionBound =
  | { kind: 'release'; version: string; raw: string }
  /** `major.minor.*`: every release of that minor (pre-releases included), none of a later one */
  | { kind: 'minor'; major: number; minor: number; raw: string };

export type BoundKind = 'targetVersion' | 'maxVersion';
export type BoundScope = 'organization' | 'sector' | 'cluster';

/** One bound that applies to a cluster, and where it comes from (for the explanation). */
export type AppliedBound = { kind: BoundKind; scope: BoundScope; bound: VersionBound };

const MINOR = /^(0|[1-9]\d{0,8})\.(0|[1-9]\d{0,8})\.\*$/;

/** Parses `4.16.3` or `4.16.*`; a message when it is neither. */
export function parseVersionBound(raw: unknown): VersionBound | string {
  if (typeof raw !== 'string') return `must be a release (4.16.3) or a minor (4.16.*), got ${raw === null ? 'null' : typeof raw}`;
  const minor = MINOR.exec(raw);
  if (minor) return { kind: 'minor', major: Number(minor[1]), minor: Number(minor[2]), raw };
  const parsed = parseVersion(raw);
  if (!parsed) return `'${raw}' is neither a release (4.16.3) nor a minor (4.16.*)`;
  return { kind: 'release', version: parsed.version, raw };
}

/** Whether `version` is at or below the bound. */
export function withinBound(version: string, bound: VersionBound): boolean {
  if (bound.kind === 'release') return compareVersions(version, bound.version) <= 0;
  const v = parseVersion(version);
  if (!v) return false;
  return v.major < bound.major || (v.major === bound.major && v.minor <= bound.minor);
}

/** Whether `version` has reached the bound: the release itself or newer, or any release of the minor or newer. */
export function reachesBound(version: string, bound: VersionBound): boolean {
  if (bound.kind === 'release') return compareVersions(version, bound.version) >= 0;
  const v = parseVersion(version);
  if (!v) return false;
  return v.major > bound.major || (v.major === bound.major && v.minor >= bound.minor);
}

const NO_BOUNDS: AppliedBound[] = [];

/**
 * The bounds last worked out per policy's conditions, with the organization they were worked out
 * for: the engine asks for a cluster's bounds several times per decision, and the forecast decides
 * the same clusters hundreds of times. Validated inputs are not modified, so the same objects give
 * the same bounds.
 */
const boundsByConditions = new WeakMap<UpgradeConditions, { organization: Organization; bounds: AppliedBound[] }>();

/**
 * The targets and caps that apply to a cluster with these conditions: its organization's, its
 * sector's, its policy's (usually none). `sectors` is the organization's sectors by name when the
 * caller has that map (the engine, per candidate); otherwise the short list is searched (sector
 * names are unique: the same sector either way). The list is shared: callers do not modify it.
 */
export function boundsForCluster(
  organization: Organization,
  conditions: UpgradeConditions,
  sectors?: ReadonlyMap<string, Sector>,
): AppliedBound[] {
  // Most fleets bound nothing: then, without a memo entry per policy (a WeakMap entry each, for
  // every cluster of a 10,000-cluster fleet in a one-shot `fleetplan plan`), only the sector could.
  if (!organization.targetVersion && !organization.maxVersion && !conditions.targetVersion && !conditions.maxVersion) {
    if (conditions.sector === undefined) return NO_BOUNDS;
    const sector = sectors?.get(conditions.sector);
    if (sector && !sector.targetVersion && !sector.maxVersion) return NO_BOUNDS;
  }
  const known = boundsByConditions.get(conditions);
  if (known?.organization === organization) return known.bounds;
  const bounds = computeBounds(organization, conditions, sectors);
  boundsByConditions.set(conditions, { organization, bounds });
  return bounds;
}

function computeBounds(organization: Organization, conditions: UpgradeConditions, sectors?: ReadonlyMap<string, Sector>): AppliedBound[] {
  const name = conditions.sector;
  const sector = name === undefined ? undefined : (sectors?.get(name) ?? organization.sectors.find((s) => s.name === name));
  const out: AppliedBound[] = [];
  for (const [scope, level] of [
    ['organization', organization],
    ['sector', sector],
    ['cluster', conditions],
  ] as const) {
    if (level?.targetVersion) out.push({ kind: 'targetVersion', scope, bound: level.targetVersion });
    if (level?.maxVersion) out.push({ kind: 'maxVersion', scope, bound: level.maxVersion });
  }
  return out.length === 0 ? NO_BOUNDS : out;
}

/** The first applied bound `version` is above, or undefined when it is within all of them. */
export function boundExceeded(version: string, bounds: readonly AppliedBound[]): AppliedBound | undefined {
  return bounds.find((b) => !withinBound(version, b.bound));
}

/** `targetVersion 4.16.* (sector prod)` */
export function describeBound(b: AppliedBound, sector?: string): string {
  const where = b.scope === 'sector' && sector ? `sector ${sector}` : b.scope;
  return `${b.kind} ${b.bound.raw} (${where})`;
}
