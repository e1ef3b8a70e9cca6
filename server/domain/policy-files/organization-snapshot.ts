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
  /** "N" or "P%" of the sector's clusters upgrading at once; null/absent = no limit */
  maxConcurrentUpgrades?: string | null;
  /** a release (4.16.3) or a minor (4.16.*); null/absent = none */
  targetVersion?: string | null;
  maxVersion?: string | null;
  /** approval gates, as written ({before, after}; validated with the plan document); null/absent = none */
  approval?: SectorApprovalSetting | null;
  /** `2026-11-29T20:00 Europe/Zurich` or an instant with its offset; null/absent = none */
  notBefore?: string | null;
  /** canaries, as written ({count | percent, soakHours}; validated with the plan document); null/absent = none */
  canary?: SectorCanarySetting | null;
  /** a label selector adding the managed clusters whose policy names no sector; null/absent = none */
  selector?: string | null;
  dependencies: string[];
}

/** A sector's `canary` as written: `{count: N}` or `{percent: P}` with `soakHours` (canaries.ts). */
export type SectorCanarySetting = Record<string, unknown>;

/** A sector's `approval` as written: `{before, after}` (the plan validator refuses other keys and values). */
export type SectorApprovalSetting = Record<string, unknown>;

/** A sector as stored and snapshotted: every optional setting null when unset. */
export interface SectorSettings {
  name: string;
  maxParallelUpgrades: string | null;
  maxConcurrentUpgrades: string | null;
  targetVersion: string | null;
  maxVersion: string | null;
  /** absent in revisions stored before approval gates existed: read as null */
  approval?: SectorApprovalSetting | null;
  notBefore?: string | null;
  /** absent in revisions stored before canaries existed: read as null */
  canary?: SectorCanarySetting | null;
  /** absent in revisions stored before label selectors existed: read as null */
  selector?: string | null;
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
  /** where every cluster stops: a release or a minor; null/absent = none */
  targetVersion?: string | null;
  maxVersion?: string | null;
}

/** What an organization revision stores as before/after (and revert restores). */
export interface OrganizationSnapshot {
  name: string;
  sectors: SectorSettings[];
  blockedVersions: BlockedVersionInput[];
  upgradePolicyAllowedWorkloads: string[] | null;
  upgradePolicyAllowedMutexes: string[] | null;
  /** absent in revisions stored before targets and caps existed: read as null */
  targetVersion: string | null;
  maxVersion: string | null;
  frozen: boolean;
  frozenReason: string | null;
}

export type OrganizationSettings = Omit<OrganizationSnapshot, 'name' | 'frozen' | 'frozenReason'>;

/** The decision engine's `organization` input (contracts/plan.md). */
export interface PlanOrganizationDocument {
  name: string;
  blockedVersions: string[];
  /** the instance's blocked versions (not the organization's: never in its file or snapshot) */
  instanceBlockedVersions?: string[];
  upgradePolicyAllowedWorkloads?: string[];
  upgradePolicyAllowedMutexes?: string[];
  sectors: {
    name: string;
    maxParallelUpgrades?: string;
    maxConcurrentUpgrades?: string;
    targetVersion?: string;
    maxVersion?: string;
    approval?: SectorApprovalSetting;
    notBefore?: string;
    canary?: SectorCanarySetting;
    selector?: string;
    dependencies: { name: string }[];
  }[];
  targetVersion?: string;
  maxVersion?: string;
}

/** A stored sector's settings (a row holds more: ids, position). */
export function sectorSettingsOf(
  row: Omit<SectorSettings, 'approval' | 'notBefore' | 'canary' | 'selector'> & {
    approvalBefore: boolean;
    approvalAfter: boolean;
    notBefore: string | null;
    canary: SectorCanarySetting | null;
    selector: string | null;
  },
): SectorSettings {
  return {
    name: row.name,
    maxParallelUpgrades: row.maxParallelUpgrades,
    maxConcurrentUpgrades: row.maxConcurrentUpgrades,
    targetVersion: row.targetVersion,
    maxVersion: row.maxVersion,
    approval: approvalSettingOf(row.approvalBefore, row.approvalAfter),
    notBefore: row.notBefore,
    canary: row.canary,
    selector: row.selector,
    dependencies: row.dependencies,
  };
}

/** A stored sector's approval gates as the settings carry them: null when it has none. */
export function approvalSettingOf(before: boolean, after: boolean): SectorApprovalSetting | null {
  return before || after ? { before, ...(after ? { after } : {}) } : null;
}

/** A setting as stored: trimmed text, blank or absent = null. */
function optionalText(v: string | number | null | undefined): string | null {
  return v === undefined || v === null || String(v).trim() === '' ? null : String(v).trim();
}

/**
 * Settings as stored: a blank sector limit is no limit, limits trimmed, lists copied. A setting
 * the input leaves out (undefined: a client written before it existed) keeps its `stored` value
 * (a sector's by name); null or blank clears it.
 */
export function normalizeSettings(input: OrganizationSettingsInput, stored?: OrganizationSettings): OrganizationSettings {
  const storedSectors = new Map((stored?.sectors ?? []).map((s) => [s.name, s]));
  const kept = <T>(value: T | undefined, previous: T | null | undefined) => (value === undefined ? (previous ?? null) : value);
  return {
    sectors: input.sectors.map((s) => {
      const before = storedSectors.get(s.name);
      return {
        name: s.name,
        maxParallelUpgrades: optionalText(s.maxParallelUpgrades),
        maxConcurrentUpgrades: optionalText(kept(s.maxConcurrentUpgrades, before?.maxConcurrentUpgrades)),
        targetVersion: optionalText(kept(s.targetVersion, before?.targetVersion)),
        maxVersion: optionalText(kept(s.maxVersion, before?.maxVersion)),
        approval: kept(s.approval, before?.approval) ?? null,
        notBefore: optionalText(kept(s.notBefore, before?.notBefore)),
        canary: kept(s.canary, before?.canary) ?? null,
        selector: optionalText(kept(s.selector, before?.selector)),
        dependencies: [...s.dependencies],
      };
    }),
    blockedVersions: input.blockedVersions.map((b) => ({ pattern: b.pattern, reason: b.reason })),
    upgradePolicyAllowedWorkloads: input.upgradePolicyAllowedWorkloads ? [...input.upgradePolicyAllowedWorkloads] : null,
    upgradePolicyAllowedMutexes: input.upgradePolicyAllowedMutexes ? [...input.upgradePolicyAllowedMutexes] : null,
    targetVersion: optionalText(kept(input.targetVersion, stored?.targetVersion)),
    maxVersion: optionalText(kept(input.maxVersion, stored?.maxVersion)),
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
      maxConcurrentUpgrades: s.maxConcurrentUpgrades === undefined ? null : String(s.maxConcurrentUpgrades),
      targetVersion: s.targetVersion ?? null,
      maxVersion: s.maxVersion ?? null,
      approval: s.approval ?? null,
      notBefore: s.notBefore ?? null,
      canary: s.canary ?? null,
      selector: s.selector ?? null,
      dependencies: s.dependencies,
    })),
    blockedVersions: file.blockedVersions.map((pattern) => ({
      pattern,
      reason: storedReasons.get(pattern) ?? 'imported from an organization file',
    })),
    upgradePolicyAllowedWorkloads: file.upgradePolicyAllowedWorkloads ?? null,
    upgradePolicyAllowedMutexes: file.upgradePolicyAllowedMutexes ?? null,
    targetVersion: file.targetVersion ?? null,
    maxVersion: file.maxVersion ?? null,
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
      // `?? null`: sectors snapshotted before these settings existed lack them
      ...((x.maxConcurrentUpgrades ?? null) !== null ? { maxConcurrentUpgrades: x.maxConcurrentUpgrades! } : {}),
      ...((x.targetVersion ?? null) !== null ? { targetVersion: x.targetVersion! } : {}),
      ...((x.maxVersion ?? null) !== null ? { maxVersion: x.maxVersion! } : {}),
      ...(x.approval ? { approval: x.approval } : {}),
      ...(x.notBefore ? { notBefore: x.notBefore } : {}),
      ...(x.canary ? { canary: x.canary } : {}),
      ...(x.selector ? { selector: x.selector } : {}),
      dependencies: x.dependencies.map((name) => ({ name })),
    })),
    ...((s.targetVersion ?? null) !== null ? { targetVersion: s.targetVersion! } : {}),
    ...((s.maxVersion ?? null) !== null ? { maxVersion: s.maxVersion! } : {}),
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
  if ((before.targetVersion ?? null) !== (after.targetVersion ?? null)) parts.push(`target version ${after.targetVersion ?? 'removed'}`);
  if ((before.maxVersion ?? null) !== (after.maxVersion ?? null)) parts.push(`cap ${after.maxVersion ?? 'removed'}`);
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
