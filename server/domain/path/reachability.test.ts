import { describe, expect, it } from 'vitest';
import { createRng } from '@/server/domain/random';
import { buildReachability, canReach } from './reachability';

/** CSR adjacency as `GraphIndex` keeps it: entries `neighbour * 2 + conditional`, by ascending neighbour. */
function csr(size: number, edges: readonly (readonly [number, number, 0 | 1])[]) {
  const lists = Array.from({ length: size }, () => [] as number[]);
  for (const [a, b, c] of edges) if (a !== b) lists[a]!.push(b * 2 + c);
  const outStart = new Int32Array(size + 1);
  lists.forEach((l, v) => (outStart[v + 1] = (outStart[v] as number) + l.length));
  const outList = Int32Array.from(lists.flatMap((l) => l.sort((x, y) => x - y)));
  return { outStart, outList, lists };
}

function reachableByBfs(lists: number[][], from: number): Set<number> {
  const seen = new Set([from]);
  const queue = [from];
  while (queue.length) {
    for (const entry of lists[queue.shift() as number]!) {
      const w = entry >> 1;
      if (seen.has(w)) continue;
      seen.add(w);
      queue.push(w);
    }
  }
  return seen;
}

describe('buildReachability', () => {
  it.each([
    ['edges only to lower ids (no cycle)', true],
    ['edges anywhere (cycles)', false],
  ])('agrees with a BFS from every node: %s', (_, towardsLowerIds) => {
    const rnd = createRng(towardsLowerIds ? 1 : 2);
    for (let g = 0; g < 60; g++) {
      const size = 1 + Math.floor(rnd() * 100);
      const edges: [number, number, 0 | 1][] = [];
      for (let i = 0; i < size * 2; i++) {
        const a = Math.floor(rnd() * size);
        const b = towardsLowerIds ? Math.floor(rnd() * Math.max(a, 1)) : Math.floor(rnd() * size);
        edges.push([a, b, rnd() < 0.3 ? 1 : 0]);
      }
      const { outStart, outList, lists } = csr(size, edges);
      const reach = buildReachability(size, outStart, outList);
      if (!reach) throw new Error('closure not built');
      for (let from = 0; from < size; from++) {
        const expected = reachableByBfs(lists, from);
        const actual = Array.from({ length: size }, (_, to) => to).filter((to) => canReach(reach, from, to));
        expect(actual, `reachable from ${from}`).toEqual([...expected].sort((x, y) => x - y));
      }
    }
  });

  it('is not built above the node limit', () => {
    const { outStart, outList } = csr(3, [[0, 1, 0]]);
    expect(buildReachability(3, outStart, outList, 2)).toBeNull();
    expect(buildReachability(3, outStart, outList, 3)).not.toBeNull();
  });
});
