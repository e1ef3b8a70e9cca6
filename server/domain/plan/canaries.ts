/**
 * Canaries inside a sector (beyond the reference upgrade service, issue 14; the ManagedClusters-
 * Upgrade batches of seed 003: "the canary clusters must finish the upgrade first; if a canary
 * fails, the others must not proceed"):
 *
 * - `canary: {count: N}` or `{percent: P}` on a sector, with `soakHours` (default 0) and an optional
 *   `selector` (a Kubernetes label selector, labels/label-selector.ts): the first N (or P% of the
 *   sector's clusters rounded up, at least 1) of the sector's managed clusters the selector matches
 *   (all without one), by name, go first. The set is stable: it depends only on which clusters are
 *   in the sector and their labels, never on their versions or on the engine's order (which
 *   follows versions and would move a canary out of the set once upgraded). A selector matching
 *   fewer clusters gives fewer canaries; matching none, none (lint-policies warns).
 * - Per version V: a non-canary cluster of the sector waits (AWAITING_CANARY) until every canary
 *   that can take V (it runs V or newer, or V is among its available upgrades) runs V or newer and
 *   has done so for `soakHours`. The soak of a canary counts from the first completed upgrade to a
 *   version in [V, what it runs now] (`upgradeResults`); a canary running V or newer without such a
 *   record ran it before anyone watched and counts as soaked. When no canary can take V the sector
 *   is not held for V (nothing would ever test it there; lint-policies warns).
 * - A canary with an unacknowledged failed or timed-out upgrade to V (an `upgradeResults` entry
 *   with outcome `failed`) halts V for the whole sector, canaries included (CANARY_FAILED), until an
 *   operator acknowledges the failure, whatever the canary's `onFailure`.
 *
 * Pure: the results and `now` come in with the plan input.
 */
import { compareVersions } from '../version/version';
import { formatInstant, HOUR_MS, parseInstant } from './time';
import type { PlanInput } from './types';
import { matchesLabels, type LabelSelector } from '../labels/label-selector';

/** A sector's canary rule as validated. */
export type CanaryPolicy = {
  /** how many of the sector's clusters are canaries: N, or P% of them rounded up (at least 1) */
  size: { kind: 'count' | 'percent'; value: number; raw: string };
  /** how long every canary runs a version before the rest of the sector may take it */
  soakHours: number;
  /** only clusters with these labels may be canaries; absent = any of the sector's */
  selector?: LabelSelector;
};

export const UPGRADE_OUTCOMES = ['completed', 'failed'] as const;
export type UpgradeOutcome = (typeof UPGRADE_OUTCOMES)[number];

/**
 * An upgrade fleetplan saw end: completed (`at` = when it completed), or failed or timed out and
 * not acknowledged yet (`at` = when it failed). Acknowledged failures are not passed.
 */
export type UpgradeResult = { cluster: string; version: string; outcome: UpgradeOutcome; at: number; attempt?: number };

/** The number of canaries of a sector with `members` clusters (0 only for an empty sector). */
export function canaryCount(policy: CanaryPolicy, members: number): number {
  if (members === 0) return 0;
  const wanted = policy.size.kind === 'count' ? policy.size.value : Math.ceil((policy.size.value * members) / 100);
  return Math.min(members, Math.max(1, wanted));
}

const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The canaries of a sector: of its clusters the selector matches (all without one), the first
 * canaryCount of the whole sector's, by name in code-point order.
 */
export function chooseCanaries(policy: CanaryPolicy, members: readonly CanaryCandidate[]): string[] {
  const selector = policy.selector;
  const eligible = selector ? members.filter((m) => matchesLabels(selector, m.labels ?? {})) : members;
  return eligible
    .map((m) => m.name)
    .sort(byName)
    .slice(0, canaryCount(policy, members.length));
}

/** A cluster of a canary sector as the choice reads it. */
export type CanaryCandidate = { name: string; labels?: Readonly<Record<string, string>> };

/** A sector's canaries: stable by name, with what the rule reads of them, and how many clusters the sector has. */
export type CanarySet<C extends CanaryCluster = CanaryCluster> = { canaries: C[]; names: ReadonlySet<string>; members: number };

/**
 * The canaries of every sector with a canary rule and clusters (`policies`: the sectors' rules by
 * name): its clusters are the managed ones whose policy names it. The one grouping the engine, the
 * start gate, the Sectors page and the linter all read, so they agree on the set.
 */
export function canarySetsOf<C extends CanaryCandidate & CanaryCluster & { upgradePolicy?: { conditions: { sector?: string } } }>(
  policies: ReadonlyMap<string, CanaryPolicy>,
  clusters: Iterable<C>,
): Map<string, CanarySet<C>> {
  const members = new Map<string, C[]>();
  for (const c of clusters) {
    const sector = c.upgradePolicy?.conditions.sector;
    if (sector === undefined || !policies.has(sector)) continue;
    let list = members.get(sector);
    if (!list) members.set(sector, (list = []));
    list.push(c);
  }
  const sets = new Map<string, CanarySet<C>>();
  for (const [sector, list] of members) {
    const names = new Set(chooseCanaries(policies.get(sector)!, list));
    sets.set(sector, {
      canaries: list.filter((c) => names.has(c.name)).sort((a, b) => byName(a.name, b.name)),
      names,
      members: list.length,
    });
  }
  return sets;
}

/** The canary rules of the organization's sectors, by sector name. */
export function canaryPoliciesOf(input: PlanInput): Map<string, CanaryPolicy> {
  return new Map(input.organization.sectors.flatMap((s) => (s.canary ? [[s.name, s.canary] as const] : [])));
}

/** One canary as the rule sees it: name, version, available upgrades. */
export type CanaryCluster = { name: string; version: string; availableUpgrades: readonly string[] };

/** Where one canary stands with a version the rest of its sector waits for. */
export type CanaryProgress = {
  cluster: string;
  /** it runs the version (or newer) and has soaked it */
  done: boolean;
  /** the version it runs */
  runs: string;
  /** since when it runs the version or newer (null: it has not reached it, or before any record) */
  since: number | null;
  /** when it will have soaked it (null: not reached yet; `since` null and reached: already) */
  soakedAt: number | null;
};

/** Why a version is held in a canary sector. */
export type CanaryHold =
  | { kind: 'failed'; sector: string; version: string; canary: string; attempt?: number; at: number }
  | {
      kind: 'waiting';
      sector: string;
      version: string;
      soakHours: number;
      /** every canary that can take the version, done or not */
      canaries: CanaryProgress[];
      /** when the last canary will have soaked it; null while one has not reached it */
      readyAt: number | null;
    };

/** The results of the canaries only, by cluster (what the rule looks up). */
export function indexResults(results: readonly UpgradeResult[] | undefined, canaries: ReadonlySet<string>): Map<string, UpgradeResult[]> {
  const out = new Map<string, UpgradeResult[]>();
  for (const r of results ?? []) {
    if (!canaries.has(r.cluster)) continue;
    let list = out.get(r.cluster);
    if (!list) out.set(r.cluster, (list = []));
    list.push(r);
  }
  return out;
}

/**
 * The hold on `version` for a cluster of `sector` (a canary or not), or undefined when the canaries
 * let it through. `results` are the canaries' results (indexResults).
 */
export function canaryHold(
  sector: string,
  policy: CanaryPolicy,
  canaries: readonly CanaryCluster[],
  isCanary: boolean,
  version: string,
  results: ReadonlyMap<string, readonly UpgradeResult[]>,
  nowMs: number,
): CanaryHold | undefined {
  for (const k of canaries) {
    const failure = results.get(k.name)?.find((r) => r.outcome === 'failed' && r.version === version);
    if (failure) {
      return {
        kind: 'failed',
        sector,
        version,
        canary: k.name,
        at: failure.at,
        ...(failure.attempt !== undefined ? { attempt: failure.attempt } : {}),
      };
    }
  }
  if (isCanary) return undefined;
  const soakMs = policy.soakHours * HOUR_MS;
  const progress: CanaryProgress[] = [];
  for (const k of canaries) {
    const reached = compareVersions(k.version, version) >= 0;
    if (!reached && !k.availableUpgrades.includes(version)) continue; // this canary cannot take it
    if (!reached) {
      progress.push({ cluster: k.name, done: false, runs: k.version, since: null, soakedAt: null });
      continue;
    }
    let since: number | null = null;
    for (const r of results.get(k.name) ?? []) {
      if (r.outcome !== 'completed' || compareVersions(r.version, version) < 0 || compareVersions(r.version, k.version) > 0) continue;
      if (since === null || r.at < since) since = r.at;
    }
    const soakedAt = since === null ? null : since + soakMs;
    progress.push({ cluster: k.name, done: soakedAt === null || soakedAt <= nowMs, runs: k.version, since, soakedAt });
  }
  if (progress.every((p) => p.done)) return undefined;
  const readyAt = progress.some((p) => compareVersions(p.runs, version) < 0) ? null : Math.max(...progress.map((p) => p.soakedAt ?? nowMs));
  return { kind: 'waiting', sector, version, soakHours: policy.soakHours, canaries: progress, readyAt };
}

const hours = (ms: number) => `${Math.round((ms / HOUR_MS) * 10) / 10}h`;

/** `canary c1 of sector prod failed the upgrade to 4.16.3 (attempt 7): …` / `canaries c1, c2 of sector prod must complete …` */
export function describeCanaryHold(hold: CanaryHold, nowMs: number): string {
  if (hold.kind === 'failed') {
    const attempt = hold.attempt !== undefined ? ` (attempt ${hold.attempt})` : '';
    return `canary ${hold.canary} of sector ${hold.sector} failed the upgrade to ${hold.version}${attempt}: the sector is halted for ${hold.version} until the failure is acknowledged`;
  }
  const names = hold.canaries.map((p) => p.cluster);
  const who = names.length === 1 ? `canary ${names[0]}` : `canaries ${names.join(', ')}`;
  const soak = hold.soakHours > 0 ? ` and soak ${hours(hold.soakHours * HOUR_MS)}` : '';
  const pending = hold.canaries
    .filter((p) => !p.done)
    .map((p) =>
      compareVersions(p.runs, hold.version) < 0
        ? `${p.cluster} runs ${p.runs}`
        : `${p.cluster} soaked ${hours(nowMs - (p.since ?? nowMs))} of ${hours(hold.soakHours * HOUR_MS)}`,
    );
  const earliest = hold.readyAt === null ? '' : `, earliest ${formatInstant(hold.readyAt)}`;
  return `${who} of sector ${hold.sector} must complete ${hold.version}${soak} first (${pending.join('; ')})${earliest}`;
}

/**
 * The canary rule as the lifecycle's start gate re-checks it (a canary failing after a sector
 * cluster's upgrade was planned stops its start): per cluster and version, the hold or null.
 * Undefined when no sector has canaries.
 */
export function canaryStartHold(
  input: PlanInput,
): ((cluster: string, version: string) => { reason: 'AWAITING_CANARY' | 'CANARY_FAILED'; message: string } | null) | undefined {
  const policies = canaryPoliciesOf(input);
  if (policies.size === 0) return undefined;
  const sets = canarySetsOf(policies, input.clusters);
  const sectorOf = new Map(
    input.clusters.flatMap((c) => {
      const sector = c.upgradePolicy?.conditions.sector;
      return sector !== undefined && sets.has(sector) ? [[c.name, sector] as const] : [];
    }),
  );
  const results = indexResults(input.upgradeResults, new Set([...sets.values()].flatMap((s) => [...s.names])));
  const nowMs = parseInstant(input.now) ?? 0;
  return (cluster, version) => {
    const sector = sectorOf.get(cluster);
    const set = sector === undefined ? undefined : sets.get(sector);
    if (sector === undefined || !set) return null;
    const hold = canaryHold(sector, policies.get(sector)!, set.canaries, set.names.has(cluster), version, results, nowMs);
    if (!hold) return null;
    return { reason: hold.kind === 'failed' ? 'CANARY_FAILED' : 'AWAITING_CANARY', message: describeCanaryHold(hold, nowMs) };
  };
}

/** Per sector with canaries: its canaries by name, and the rule as written (the Sectors page shows them). */
export function sectorCanaries(
  input: PlanInput,
): Map<string, { canaries: string[]; size: string; soakHours: number; selector: string | null }> {
  const out = new Map<string, { canaries: string[]; size: string; soakHours: number; selector: string | null }>();
  const sets = canarySetsOf(canaryPoliciesOf(input), input.clusters);
  for (const s of input.organization.sectors) {
    if (!s.canary) continue;
    out.set(s.name, {
      canaries: sets.get(s.name)?.canaries.map((c) => c.name) ?? [],
      size: s.canary.size.raw,
      soakHours: s.canary.soakHours,
      selector: s.canary.selector?.text ?? null,
    });
  }
  return out;
}
