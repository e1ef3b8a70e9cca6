// Layering of sectors by their dependencies, for layouts and ordering.

/**
 * Longest dependency chain above each sector (0 = no dependencies). Unknown dependencies are
 * ignored and a cycle (refused by validation, but possible in a draft) is cut where it is met.
 * Depth first with a stack of its own: validation accepts a chain of 100,000 sectors, too deep
 * for the call stack.
 */
export function computeSectorDepths(list: readonly { name: string; dependencies: readonly string[] }[]): Map<string, number> {
  const byName = new Map(list.map((s) => [s.name, s]));
  const depth = new Map<string, number>();
  const visiting = new Set<string>();
  /** the chain being measured: each sector, its next dependency to look at, its depth so far */
  const stack: { name: string; next: number; depth: number }[] = [];
  for (const s of list) {
    if (depth.has(s.name)) continue;
    visiting.add(s.name);
    stack.push({ name: s.name, next: 0, depth: 0 });
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!;
      const dependencies = byName.get(top.name)?.dependencies ?? [];
      if (top.next < dependencies.length) {
        const dep = dependencies[top.next++]!;
        if (!byName.has(dep)) continue;
        const known = depth.get(dep);
        // a sector on the chain being measured closes a cycle: it counts as depth 0 there
        if (known !== undefined || visiting.has(dep)) top.depth = Math.max(top.depth, (known ?? 0) + 1);
        else {
          visiting.add(dep);
          stack.push({ name: dep, next: 0, depth: 0 });
        }
        continue;
      }
      stack.pop();
      visiting.delete(top.name);
      depth.set(top.name, top.depth);
      const dependent = stack[stack.length - 1];
      if (dependent) dependent.depth = Math.max(dependent.depth, top.depth + 1);
    }
  }
  return depth;
}
