// Property tests of the upgrade-path solver (server/domain/path) on random graphs and malformed
// documents: it never throws; a found path walks real edges inside the channel with the fewest
// hops (checked against a plain BFS); otherwise it names a reason.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseGraphDocument } from '@/server/domain/path/parse-graph';
import { loadGraphSet } from '@/server/domain/path/load-graph-set';
import { solveUpgradePath } from '@/server/domain/path/solve-upgrade-path';
import { CHANNELS_METADATA_KEY, NO_PATH_REASONS, isPathFound } from '@/server/domain/path/types';

const RUNS = 200;
const VERSIONS = ['4.10.3', '4.11.0', '4.11.9', '4.12.0-rc.2', '4.12.0', '4.12.4', '4.13.1', '4.13.11', '4.14.0', '4.14.2'];
const CHANNELS = ['stable-4.12', 'stable-4.13', 'fast-4.13', 'eus-4.14'];

const arbGraph = fc
  .record({
    versions: fc.subarray(VERSIONS, { minLength: 1 }),
    withChannels: fc.boolean(),
  })
  .chain(({ versions, withChannels }) => {
    const n = versions.length;
    const pair = fc.tuple(fc.nat(n - 1), fc.nat(n - 1));
    return fc.record({
      nodes: fc.tuple(
        ...versions.map((v) =>
          fc.record({
            version: fc.constant(v),
            channels: withChannels ? fc.subarray(CHANNELS) : fc.constant(null),
          }),
        ),
      ),
      edges: fc.array(pair, { minLength: n, maxLength: n * 4 }),
      conditional: fc.array(pair, { maxLength: n }),
    });
  });

type Graph = { nodes: { version: string; channels: string[] | null }[]; edges: [number, number][]; conditional: [number, number][] };

function toDocument(g: Graph): string {
  return JSON.stringify({
    version: 1,
    nodes: g.nodes.map((node) => ({
      version: node.version,
      payload: `quay.io/openshift-release-dev/ocp-release@sha256:${node.version.replace(/\W/g, '').padEnd(64, '0')}`,
      metadata: node.channels ? { [CHANNELS_METADATA_KEY]: node.channels.join(',') } : {},
    })),
    edges: g.edges,
    conditionalEdges: g.conditional.map(([a, b]) => ({
      edges: [{ from: g.nodes[a]!.version, to: g.nodes[b]!.version }],
      risks: [{ name: `Risk${a}${b}`, message: 'm', url: 'https://example.com/r', matchingRules: [{ type: 'Always' }] }],
    })),
  });
}

/** hop count of the shortest path with the allowed edges inside the channel, or null */
function bfsHops(g: Graph, from: string, to: string, channel: string | null, allowConditional: boolean): number | null {
  const hasMeta = g.nodes.some((n) => n.channels !== null);
  const inChannel = (v: string) => !channel || !hasMeta || (g.nodes.find((n) => n.version === v)?.channels ?? []).includes(channel);
  const adj = new Map<string, Set<string>>();
  const add = (a: number, b: number) => {
    const [x, y] = [g.nodes[a]!.version, g.nodes[b]!.version];
    if (x === y) return;
    if (!adj.has(x)) adj.set(x, new Set());
    adj.get(x)!.add(y);
  };
  // a pair listed as conditional is conditional even when `edges` also lists it (merge-graphs.ts)
  const conditional = new Set(g.conditional.map(([a, b]) => `${g.nodes[a]!.version}>${g.nodes[b]!.version}`));
  for (const [a, b] of g.edges) if (allowConditional || !conditional.has(`${g.nodes[a]!.version}>${g.nodes[b]!.version}`)) add(a, b);
  if (allowConditional) for (const [a, b] of g.conditional) add(a, b);
  if (!inChannel(from) || !inChannel(to)) return null;
  const dist = new Map([[from, 0]]);
  const queue = [from];
  while (queue.length) {
    const v = queue.shift()!;
    if (v === to) return dist.get(v)!;
    for (const w of adj.get(v) ?? []) {
      if (!dist.has(w) && inChannel(w)) {
        dist.set(w, dist.get(v)! + 1);
        queue.push(w);
      }
    }
  }
  return null;
}

describe('path solver properties', () => {
  it('answers every query on a random graph with a valid shortest path or a reason', () => {
    let found = 0;
    fc.assert(
      fc.property(
        arbGraph,
        fc.constantFrom(...VERSIONS, '4.99.0', 'not-a-version'),
        fc.option(fc.constantFrom(...VERSIONS), { nil: null }),
        fc.option(fc.constantFrom(...CHANNELS), { nil: null }),
        fc.boolean(),
        (graph, from, to, channel, allowConditional) => {
          const set = loadGraphSet([{ source: 'random.json', text: toDocument(graph) }]);
          if (!set.ok) throw new Error(`generator made an invalid graph: ${set.error}`);
          const answer = solveUpgradePath(set.index, { from, to, channel, allowConditional });
          const target = to ?? answer.to;
          const expected = target === null ? null : bfsHops(graph, from, target, channel, allowConditional);
          if (!isPathFound(answer)) {
            expect(NO_PATH_REASONS).toContain(answer.reason);
            expect(answer.message.length).toBeGreaterThan(0);
            if (from !== target) expect(expected, `solver found no path ${from} → ${target} but BFS did`).toBeNull();
            return;
          }
          found++;
          expect(answer.path[0]).toBe(from);
          expect(answer.path.at(-1)).toBe(target);
          expect(answer.hops).toBe(answer.path.length - 1);
          expect(answer.releases.map((r) => r.version)).toEqual(answer.path);
          const edgeSet = new Set(graph.edges.map(([a, b]) => `${graph.nodes[a]!.version}>${graph.nodes[b]!.version}`));
          const condSet = new Set(graph.conditional.map(([a, b]) => `${graph.nodes[a]!.version}>${graph.nodes[b]!.version}`));
          for (let i = 1; i < answer.path.length; i++) {
            const hop = `${answer.path[i - 1]}>${answer.path[i]}`;
            const allowed = allowConditional ? edgeSet.has(hop) || condSet.has(hop) : edgeSet.has(hop) && !condSet.has(hop);
            expect(allowed, `hop ${hop} is not an allowed edge`).toBe(true);
          }
          for (const r of answer.risks) expect(condSet.has(`${r.from}>${r.to}`)).toBe(true);
          if (from !== target) expect(answer.hops).toBe(expected);
        },
      ),
      { numRuns: RUNS },
    );
    // enough queries must find a path for the edge checks to mean something
    expect(found).toBeGreaterThan(RUNS / 20);
  });

  it('parses arbitrary and mangled graph documents without throwing', () => {
    const sample = toDocument({
      nodes: [
        { version: '4.12.0', channels: ['stable-4.12'] },
        { version: '4.12.4', channels: null },
      ],
      edges: [[0, 1]],
      conditional: [[1, 0]],
    });
    const mangled = fc
      .array(fc.record({ at: fc.nat(sample.length), cut: fc.nat(6), insert: fc.string({ maxLength: 4 }) }), { minLength: 1, maxLength: 3 })
      .map((edits) => edits.reduce((t, e) => t.slice(0, e.at) + e.insert + t.slice(e.at + e.cut), sample));
    const text = fc.oneof(fc.string({ maxLength: 200 }), fc.json({ maxDepth: 4 }), mangled);
    fc.assert(
      fc.property(text, (t) => {
        const r = parseGraphDocument(t, 'fuzz.json');
        if (!r.ok) expect(r.error.length).toBeGreaterThan(0);
        else {
          const set = loadGraphSet([{ source: 'fuzz.json', text: t }]);
          expect(set.ok).toBe(true);
          if (set.ok && set.index.size > 0) solveUpgradePath(set.index, { from: set.index.versions.at(-1)!, allowConditional: true });
        }
      }),
      { numRuns: RUNS },
    );
  });
});
