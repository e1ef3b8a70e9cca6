/**
 * A policy change's impact as the difference between two forecasts of the same fleet from the
 * same instant, one with the stored policies and one with the change: which clusters reach the
 * target sooner, later, no longer (or now) within the horizon, or upgrade along other versions.
 * This minute's decisions alone say little ("0 of 54 decisions change" for blocking a version 29
 * clusters were about to take): most effects of a policy show in the days after it.
 */
import type { ClusterForecast, ForecastResult } from './forecast-rollout';

export type ForecastChangeKind = 'sooner' | 'later' | 'no-longer' | 'now-reaches' | 'other-versions';

export interface ClusterForecastSide {
  reachesTargetAt: string | null;
  finalVersion: string;
  /** the upgrades of the forecast, in order: version and start */
  upgrades: { version: string; start: string }[];
}

export interface ClusterForecastChange {
  cluster: string;
  sector: string | null;
  kind: ForecastChangeKind;
  before: ClusterForecastSide;
  after: ClusterForecastSide;
}

export interface ForecastDiff {
  targetVersion: string | null;
  from: string;
  until: string;
  /** managed clusters compared (in either forecast) */
  compared: number;
  counts: Record<ForecastChangeKind, number>;
  /** the clusters whose forecast differs, later and lost first, then by name */
  changes: ClusterForecastChange[];
}

const ORDER: ForecastChangeKind[] = ['no-longer', 'later', 'other-versions', 'sooner', 'now-reaches'];

function side(c: ClusterForecast | undefined): ClusterForecastSide {
  if (!c) return { reachesTargetAt: null, finalVersion: '', upgrades: [] };
  return {
    reachesTargetAt: c.reachesTargetAt,
    finalVersion: c.finalVersion,
    upgrades: c.upgrades.map((u) => ({ version: u.version, start: u.start })),
  };
}

function sameUpgrades(a: ClusterForecastSide, b: ClusterForecastSide): boolean {
  return (
    a.upgrades.length === b.upgrades.length &&
    a.upgrades.every((u, i) => u.version === b.upgrades[i]!.version && u.start === b.upgrades[i]!.start)
  );
}

function kindOf(before: ClusterForecastSide, after: ClusterForecastSide): ForecastChangeKind | null {
  const b = before.reachesTargetAt;
  const a = after.reachesTargetAt;
  if (b !== null && a === null) return 'no-longer';
  if (b === null && a !== null) return 'now-reaches';
  // instants are UTC ISO strings of one format: they compare as text
  if (b !== null && a !== null && a > b) return 'later';
  if (b !== null && a !== null && a < b) return 'sooner';
  return sameUpgrades(before, after) ? null : 'other-versions';
}

/** Both forecasts must start at the same instant and track the same target version. */
export function diffForecasts(before: ForecastResult, after: ForecastResult): ForecastDiff {
  if (before.from !== after.from || before.targetVersion !== after.targetVersion) {
    throw new Error('diffForecasts compares forecasts from the same instant towards the same target');
  }
  const beforeByName = new Map(before.clusters.filter((c) => c.managed).map((c) => [c.cluster, c]));
  const afterByName = new Map(after.clusters.filter((c) => c.managed).map((c) => [c.cluster, c]));
  const names = new Set([...beforeByName.keys(), ...afterByName.keys()]);
  const counts: Record<ForecastChangeKind, number> = { sooner: 0, later: 0, 'no-longer': 0, 'now-reaches': 0, 'other-versions': 0 };
  const changes: ClusterForecastChange[] = [];
  for (const name of names) {
    const b = beforeByName.get(name);
    const a = afterByName.get(name);
    const beforeSide = side(b);
    const afterSide = side(a);
    const kind = kindOf(beforeSide, afterSide);
    if (kind === null) continue;
    counts[kind]++;
    changes.push({ cluster: name, sector: (a ?? b)!.sector, kind, before: beforeSide, after: afterSide });
  }
  changes.sort((x, y) => ORDER.indexOf(x.kind) - ORDER.indexOf(y.kind) || x.cluster.localeCompare(y.cluster));
  return { targetVersion: after.targetVersion, from: after.from, until: after.until, compared: names.size, counts, changes };
}
