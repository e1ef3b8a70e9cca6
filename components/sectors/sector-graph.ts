// Pure helpers of the Sectors editor: layered layout by dependency depth and cycle checks.

import { computeSectorDepths } from '@/lib/sector-depths';

export type SectorDeps = { name: string; dependencies: string[] };

/**
 * The cycle that making `dependent` depend on `dependency` would close, as a path of sector
 * names from `dependency` back to itself (e.g. [dev, stage, dev]), or null when it is safe.
 */
export function findCycleIfAdded(list: readonly SectorDeps[], dependent: string, dependency: string): string[] | null {
  if (dependent === dependency) return [dependent, dependent];
  const byName = new Map(list.map((s) => [s.name, s.dependencies]));
  // A cycle exists when `dependency` already (transitively) depends on `dependent`.
  const path: string[] = [];
  const seen = new Set<string>();
  const dfs = (name: string): boolean => {
    path.push(name);
    if (name === dependent) return true;
    if (!seen.has(name)) {
      seen.add(name);
      for (const d of byName.get(name) ?? []) if (dfs(d)) return true;
    }
    path.pop();
    return false;
  };
  if (!dfs(dependency)) return null;
  // path: dependency → … → dependent; the new edge closes it (dependent depends on dependency).
  return [...path, dependency];
}

/** Vertical positions per layer for nodes of known heights. */
export function layoutLayers(
  list: readonly SectorDeps[],
  heightOf: (name: string) => number,
  opts: { columnWidth: number; gap: number },
): Map<string, { x: number; y: number }> {
  const depth = computeSectorDepths(list);
  const columns = new Map<number, string[]>();
  for (const s of list) {
    const d = depth.get(s.name) ?? 0;
    (columns.get(d) ?? columns.set(d, []).get(d)!).push(s.name);
  }
  const out = new Map<string, { x: number; y: number }>();
  for (const [d, names] of columns) {
    let y = 0;
    for (const n of names) {
      out.set(n, { x: d * opts.columnWidth, y });
      y += heightOf(n) + opts.gap;
    }
  }
  return out;
}
