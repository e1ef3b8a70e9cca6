// Layering of sectors by their dependencies, for layouts and ordering.

/**
 * Longest dependency chain above each sector (0 = no dependencies). Unknown dependencies are
 * ignored and a cycle (refused by validation, but possible in a draft) is cut where it is met.
 */
export function computeSectorDepths(list: readonly { name: string; dependencies: readonly string[] }[]): Map<string, number> {
  const byName = new Map(list.map((s) => [s.name, s]));
  const depth = new Map<string, number>();
  const visiting = new Set<string>();
  const visit = (name: string): number => {
    const known = depth.get(name);
    if (known !== undefined) return known;
    if (visiting.has(name)) return 0;
    visiting.add(name);
    let d = 0;
    for (const dep of byName.get(name)?.dependencies ?? []) if (byName.has(dep)) d = Math.max(d, visit(dep) + 1);
    visiting.delete(name);
    depth.set(name, d);
    return d;
  };
  for (const s of list) visit(s.name);
  return depth;
}
