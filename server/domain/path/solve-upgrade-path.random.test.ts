// The solver against a plain reference on seeded random graphs: cycles and backward edges,
// conditional pairs, channels, graphs spanning several 32-node bit words. The solver's search works
// on bit words and prunes with a reachability closure; the reference walks Maps of version strings.
// Both must give the same answer, with the closure and without it (as for graphs too large for one).
import { describe, expect, it } from 'vitest';
import { createRng } from '@/server/domain/random';
import { mergeGraphs } from './merge-graphs';
import { solveUpgradePath } from './solve-upgrade-path';
import { makeParsed, type GraphSpec } from './test-builders';
import { buildGraphIndex } from './update-graph-index';
import { compareVersions } from '../version/version';
import type { PathAnswer } from './types';

interface RandomGraph {
  spec: GraphSpec;
  versions: string[];
  channels: Map<string, string[] | null>;
  /** from → to → conditional */
  edges: Map<string, Map<string, boolean>>;
}

function randomGraph(rnd: () => number, size: number): RandomGraph {
  const pick = (n: number) => Math.floor(rnd() * n);
  const versionSet = new Set<string>();
  while (versionSet.size < size) {
    const pre = rnd() < 0.1 ? `-rc.${pick(3)}` : '';
    versionSet.add(`4.${pick(6)}.${pick(size * 2)}${pre}`);
  }
  const versions = [...versionSet];
  const withChannels = rnd() < 0.8;
  const channels = new Map(versions.map((v) => [v, withChannels ? ['a', 'b'].filter(() => rnd() < 0.7) : null]));
  const edges = new Map<string, Map<string, boolean>>();
  const plain: [string, string][] = [];
  const conditional: { from: string; to: string; risks: string[] }[] = [];
  const edgeCount = pick(size * 4) + 1;
  for (let i = 0; i < edgeCount; i++) {
    const a = pick(size);
    // Mostly towards nearby versions (long chains), sometimes anywhere (cycles, shortcuts).
    const b = rnd() < 0.7 ? Math.min(size - 1, a + 1 + pick(4)) : pick(size);
    const from = versions[a] as string;
    const to = versions[b] as string;
    const isConditional = rnd() < 0.25;
    if (isConditional) conditional.push({ from, to, risks: [`R${i % 3}`] });
    else plain.push([from, to]);
    if (from === to) continue;
    const out = edges.get(from) ?? new Map<string, boolean>();
    edges.set(from, out);
    // A pair listed as conditional anywhere is conditional.
    out.set(to, (out.get(to) ?? false) || isConditional);
  }
  const spec: GraphSpec = {
    nodes: versions.map((v) => [v, channels.get(v) ?? null]),
    edges: plain,
    conditional,
  };
  return { spec, versions, channels, edges };
}

/**
 * The path the contract asks for, straight from its rules: hops to the target and fewest
 * conditional hops by a full backward BFS, then from the source always the highest successor that
 * keeps both optimal. Null when there is none.
 */
function referencePath(g: RandomGraph, from: string, to: string, channel: string | null, allowConditional: boolean): string[] | null {
  const filtered = channel !== null && [...g.channels.values()].some((c) => c !== null);
  const inGraph = (v: string) => !filtered || (g.channels.get(v) ?? []).includes(channel);
  if (!inGraph(from) || !inGraph(to)) return null;
  if (from === to) return [from];
  const allowed = (a: string) =>
    [...(g.edges.get(a) ?? new Map<string, boolean>())].filter(([b, c]) => inGraph(b) && (allowConditional || !c));
  const hops = new Map<string, number>([[to, 0]]);
  const cond = new Map<string, number>([[to, 0]]);
  let level = [to];
  for (let h = 1; level.length > 0; h++) {
    const next: string[] = [];
    for (const v of g.versions) {
      if (hops.has(v) || !inGraph(v)) continue;
      const best = Math.min(
        ...allowed(v)
          .filter(([w]) => level.includes(w))
          .map(([w, c]) => (cond.get(w) as number) + (c ? 1 : 0)),
      );
      if (best === Infinity) continue;
      next.push(v);
      cond.set(v, best);
    }
    for (const v of next) hops.set(v, h);
    level = next;
  }
  if (!hops.has(from)) return null;
  const path = [from];
  for (let v = from; v !== to;) {
    const fits = allowed(v).filter(
      ([w, c]) => hops.get(w) === (hops.get(v) as number) - 1 && (cond.get(w) as number) + (c ? 1 : 0) === cond.get(v),
    );
    v = fits.map(([w]) => w).sort((x, y) => compareVersions(y, x))[0] as string;
    path.push(v);
  }
  return path;
}

function expectReferenceAnswer(g: RandomGraph, answer: PathAnswer, channel: string | null, allowConditional: boolean) {
  const to = answer.to ?? '';
  const expected = referencePath(g, answer.from, to, channel, allowConditional);
  if (expected !== null || answer.path !== null) {
    expect(answer.path, `${answer.from} → ${to}`).toEqual(expected);
    return;
  }
  if (answer.reason === 'ONLY_CONDITIONAL') expect(answer.conditionalPath).toEqual(referencePath(g, answer.from, to, channel, true));
  if (answer.reason === 'UNREACHABLE') expect(referencePath(g, answer.from, to, channel, true)).toBeNull();
}

describe('solveUpgradePath on random graphs', () => {
  it.each([
    ['small graphs', 300, 2, 12],
    ['graphs over several bit words', 40, 33, 140],
  ])('matches the reference, with and without the reachability closure (%s)', (_, graphs, minSize, maxSize) => {
    const rnd = createRng(20240611 + minSize);
    for (let i = 0; i < graphs; i++) {
      const g = randomGraph(rnd, minSize + Math.floor(rnd() * (maxSize - minSize + 1)));
      const merged = mergeGraphs([makeParsed(g.spec)]);
      const withClosure = buildGraphIndex(merged);
      const withoutClosure = buildGraphIndex(merged, { maxReachabilityNodes: 0 });
      expect(withClosure.reachable).not.toBeNull();
      expect(withoutClosure.reachable).toBeNull();
      for (let k = 0; k < 25; k++) {
        const query = {
          from: g.versions[Math.floor(rnd() * g.versions.length)] as string,
          to: rnd() < 0.15 ? undefined : g.versions[Math.floor(rnd() * g.versions.length)],
          channel: [null, 'a', 'b'][Math.floor(rnd() * 3)] ?? null,
          allowConditional: rnd() < 0.5,
        };
        const answer = solveUpgradePath(withClosure, query);
        expect(solveUpgradePath(withoutClosure, query)).toEqual(answer);
        expectReferenceAnswer(g, answer, query.channel, query.allowConditional);
      }
    }
  });

  it('gives the same answers when queries alternate between graphs of different sizes (shared search buffers)', () => {
    const rnd = createRng(7);
    const graphs = [randomGraph(rnd, 90), randomGraph(rnd, 5), randomGraph(rnd, 40)].map((g) => ({
      g,
      index: buildGraphIndex(mergeGraphs([makeParsed(g.spec)])),
    }));
    const queries = Array.from({ length: 300 }, (_, i) => {
      const { g, index } = graphs[i % graphs.length]!;
      const query = {
        from: g.versions[Math.floor(rnd() * g.versions.length)]!,
        to: g.versions[Math.floor(rnd() * g.versions.length)]!,
        allowConditional: rnd() < 0.5,
      };
      return { index, query };
    });
    const first = queries.map(({ index, query }) => solveUpgradePath(index, query));
    const again = [...queries]
      .reverse()
      .map(({ index, query }) => solveUpgradePath(index, query))
      .reverse();
    expect(again).toEqual(first);
  });
});
