// The organization's editable policy settings as the policy editor exchanges them, and the
// snapshot an organization revision stores (and a revert restores). Pure: no storage.
import { diffJson, jsonEqual } from '@/lib/json-diff';
import type { NamedProblem } from './named-problems';
import { organizationFilePath } from './parse-policy-files';
import type { OrganizationFile } from './types';

export interface SectorInput {
  name: string;
  /** "N" or "P%"; null/absent = no limit */
  maxParallelUpgrades?: string | null;
  dependencies: string[];
}

export interface BlockedVersionInput {
  pattern: string;
  reason: string;
}

/** The organization's editable settings (everything but freeze and the cluster policies). */
export interface OrganizationSettingsInput {
  sectors: SectorInput[];
  blockedVersions: BlockedVersionInput[];
  /** null = no allow-list (any workload allowed) */
  upgradePolicyAllowedWorkloads: string[] | null;
  upgradePolicyAllowedMutexes: string[] | null;
}

/** What an organization revision stores as before/after (and revert restores). */
export interface OrganizationSnapshot {
  name: string;
  sectors: { name: string; maxParallelUpgrades: string | null; dependencies: string[] }[];
  blockedVersions: BlockedVersionInput[];
  upgradePolicyAllowedWorkloads: string[] | null;
  upgradePolicyAllowedMutexes: string[] | null;
  frozen: boolean;
  frozenReason: string | null;
}

export type OrganizationSettings = Omit<OrganizationSnapshot, 'name' | 'frozen' | 'frozenReason'>;

/** The decision engine's `organization` input (contracts/plan.md). */
export interface PlanOrganizationDocument {
  name: string;
  blockedVersions: string[];
  upgradePolicyAllowedWorkloads?: string[];
  upgradePolicyAllowedMutexes?: string[];
  sectors: { name: string; maxParallelUpgrades?: string; dependencies: { name: string }[] }[];
}

/** Settings as stored: a blank sector limit is no limit, limits trimmed, lists copied. */
export function normalizeSettings(input: OrganizationSettingsInput): OrganizationSettings {
  return {
    sectors: input.sectors.map((s) => ({
      name: s.name,
      maxParallelUpgrades:
        s.maxParallelUpgrades === undefined || s.maxParallelUpgrades === null || String(s.maxParallelUpgrades).trim() === ''
          ? null
          : String(s.maxParallelUpgrades).trim(),
      dependencies: [...s.dependencies],
    })),
    blockedVersions: input.blockedVersions.map((b) => ({ pattern: b.pattern, reason: b.reason })),
    upgradePolicyAllowedWorkloads: input.upgradePolicyAllowedWorkloads ? [...input.upgradePolicyAllowedWorkloads] : null,
    upgradePolicyAllowedMutexes: input.upgradePolicyAllowedMutexes ? [...input.upgradePolicyAllowedMutexes] : null,
  };
}

/**
 * The settings an organization file sets. Blocked versions keep the reason already stored for
 * the same pattern (a file holds only patterns).
 */
export function settingsFromOrganizationFile(file: OrganizationFile, storedReasons: ReadonlyMap<string, string>): OrganizationSettings {
  return normalizeSettings({
    sectors: file.sectors.map((s) => ({
      name: s.name,
      maxParallelUpgrades: s.maxParallelUpgrades === undefined ? null : String(s.maxParallelUpgrades),
      dependencies: s.dependencies,
    })),
    blockedVersions: file.blockedVersions.map((pattern) => ({
      pattern,
      reason: storedReasons.get(pattern) ?? 'imported from an organization file',
    })),
    upgradePolicyAllowedWorkloads: file.upgradePolicyAllowedWorkloads ?? null,
    upgradePolicyAllowedMutexes: file.upgradePolicyAllowedMutexes ?? null,
  });
}

/** The engine's `organization` for a snapshot. */
export function planOrganizationOf(s: Omit<OrganizationSnapshot, 'frozen' | 'frozenReason'>): PlanOrganizationDocument {
  return {
    name: s.name,
    blockedVersions: s.blockedVersions.map((b) => b.pattern),
    ...(s.upgradePolicyAllowedWorkloads ? { upgradePolicyAllowedWorkloads: s.upgradePolicyAllowedWorkloads } : {}),
    ...(s.upgradePolicyAllowedMutexes ? { upgradePolicyAllowedMutexes: s.upgradePolicyAllowedMutexes } : {}),
    sectors: s.sectors.map((x) => ({
      name: x.name,
      ...(x.maxParallelUpgrades !== null ? { maxParallelUpgrades: x.maxParallelUpgrades } : {}),
      dependencies: x.dependencies.map((name) => ({ name })),
    })),
  };
}

/** One line for the history list: which settings moved. */
export function describeOrganizationChange(before: OrganizationSnapshot, after: OrganizationSnapshot): string {
  const parts: string[] = [];
  const names = (s: OrganizationSnapshot) => s.sectors.map((x) => x.name);
  const added = names(after).filter((n) => !names(before).includes(n));
  const removed = names(before).filter((n) => !names(after).includes(n));
  if (added.length) parts.push(`added sector ${added.join(', ')}`);
  if (removed.length) parts.push(`removed sector ${removed.join(', ')}`);
  if (!added.length && !removed.length && !jsonEqual(before.sectors, after.sectors)) parts.push('changed sectors');
  const patterns = (s: OrganizationSnapshot) => s.blockedVersions.map((b) => b.pattern);
  const blocked = patterns(after).filter((p) => !patterns(before).includes(p));
  const unblocked = patterns(before).filter((p) => !patterns(after).includes(p));
  if (blocked.length) parts.push(`blocked ${blocked.join(', ')}`);
  if (unblocked.length) parts.push(`unblocked ${unblocked.join(', ')}`);
  if (!jsonEqual(before.upgradePolicyAllowedWorkloads, after.upgradePolicyAllowedWorkloads)) parts.push('changed allowed workloads');
  if (!jsonEqual(before.upgradePolicyAllowedMutexes, after.upgradePolicyAllowedMutexes)) parts.push('changed allowed mutexes');
  if (before.frozen !== after.frozen) parts.push(after.frozen ? 'froze upgrades' : 'lifted the freeze');
  if (before.name !== after.name) parts.push(`renamed to ${after.name}`);
  return parts.length ? parts.join('; ') : 'no change';
}

/** One line for the history list: which fields of a cluster's policy moved (first four). */
export function describeClusterChange(before: Record<string, unknown> | null, after: Record<string, unknown>): string {
  if (before === null) return 'added a policy (now managed)';
  const paths = diffJson(before, after).map((c) => c.path);
  return paths.length ? `changed ${paths.slice(0, 4).join(', ')}${paths.length > 4 ? ` and ${paths.length - 4} more` : ''}` : 'no change';
}

/**
 * Problems the engine found in the fleet with an organization file applied, named by the file's
 * own paths: a cluster's problems under `upgradePolicyClusters[i]` when the file lists it, the
 * organization's under the file's keys.
 */
export function organizationFileProblems(
  problems: readonly { path: string; message: string }[],
  clusterNames: readonly string[],
  listedIndex: ReadonlyMap<string, number>,
): NamedProblem[] {
  return problems.map((p) => {
    const m = /^clusters\[(\d+)\](.*)$/.exec(p.path);
    const cluster = m ? clusterNames[Number(m[1])] : undefined;
    const index = m ? listedIndex.get(cluster ?? '') : undefined;
    return {
      path: m && index !== undefined ? `upgradePolicyClusters[${index}]${m[2] ?? ''}` : organizationFilePath(p.path),
      message: p.message,
      ...(m ? { cluster } : {}),
    };
  });
}
