import { describe, expect, it } from 'vitest';
import { mergeGraphs } from './merge-graphs';
import { createRng } from '@/server/domain/random';
import { makeParsed } from './test-builders';

describe('mergeGraphs', () => {
  it("merges nodes by version: channels are the union, the payload is the first file's", () => {
    const a = makeParsed({ nodes: [['4.8.1', ['stable-4.8']]], payloadPrefix: 'first' });
    const b = makeParsed({
      nodes: [
        ['4.8.1', ['eus-4.8', 'stable-4.8']],
        ['4.8.2', null],
      ],
      payloadPrefix: 'second',
    });
    const m = mergeGraphs([a, b]);
    expect(m.nodes).toEqual([
      { version: '4.8.1', payload: 'first@4.8.1', channels: ['stable-4.8', 'eus-4.8'], hasChannelMetadata: true },
      { version: '4.8.2', payload: 'second@4.8.2', channels: [], hasChannelMetadata: false },
    ]);
  });

  it('merges edges by (from, to) pair', () => {
    const a = makeParsed({ nodes: ['4.8.1', '4.8.2'], edges: [['4.8.1', '4.8.2']] });
    const b = makeParsed({
      nodes: ['4.8.2', '4.8.1'],
      edges: [
        ['4.8.1', '4.8.2'],
        ['4.8.2', '4.8.1'],
      ],
    });
    expect(mergeGraphs([a, b]).edges.map((e) => `${e.from}>${e.to}`)).toEqual(['4.8.1>4.8.2', '4.8.2>4.8.1']);
  });

  it('makes a pair conditional when any file lists it as conditional, even if another lists it unconditionally', () => {
    const a = makeParsed({ nodes: ['4.6.15', '4.7.4'], edges: [['4.6.15', '4.7.4']] });
    const b = makeParsed({ nodes: ['4.6.15', '4.7.4'], conditional: [{ from: '4.6.15', to: '4.7.4', risks: ['R1'] }] });
    for (const order of [
      [a, b],
      [b, a],
    ]) {
      const [edge] = mergeGraphs(order).edges;
      expect(edge).toMatchObject({ from: '4.6.15', to: '4.7.4', conditional: true });
      expect(edge?.risks.map((r) => r.name)).toEqual(['R1']);
    }
  });

  it('de-duplicates the risks of one pair by name, first appearance first', () => {
    const a = makeParsed({
      nodes: ['4.7.0', '4.7.4'],
      conditional: [
        { from: '4.7.0', to: '4.7.4', risks: ['B', 'A'] },
        { from: '4.7.0', to: '4.7.4', risks: ['A', 'C'] },
      ],
    });
    const b = makeParsed({ nodes: ['4.7.0', '4.7.4'], conditional: [{ from: '4.7.0', to: '4.7.4', risks: ['D', 'B'] }] });
    expect(mergeGraphs([a, b]).edges[0]?.risks.map((r) => r.name)).toEqual(['B', 'A', 'C', 'D']);
  });

  it('ignores conditional pairs naming a version that is not a node of the merged graph', () => {
    const a = makeParsed({ nodes: ['4.7.4'], conditional: [] });
    const withUnknown = { ...a, conditionalPairs: [{ from: '4.6.15', to: '4.7.4', risks: [] }] };
    expect(mergeGraphs([withUnknown]).edges).toEqual([]);
  });

  it('keeps a conditional pair whose ends come from different files', () => {
    const a = makeParsed({ nodes: ['4.7.4'] });
    const b = makeParsed({ nodes: ['4.6.15'] });
    const withPair = { ...a, conditionalPairs: [{ from: '4.6.15', to: '4.7.4', risks: [] }] };
    expect(mergeGraphs([withPair, b]).edges).toMatchObject([{ from: '4.6.15', to: '4.7.4', conditional: true }]);
  });

  it('keeps every distinct pair once, in order of first appearance, on a large graph with repeats', () => {
    const rnd = createRng(3);
    const versions = Array.from({ length: 400 }, (_, i) => `4.${i % 9}.${i}`);
    const randomPairs = (count: number) =>
      Array.from({ length: count }, () => [versions[Math.floor(rnd() * 400)]!, versions[Math.floor(rnd() * 400)]!] as [string, string]);
    const first = randomPairs(3000);
    const second = [...randomPairs(1000), ...first.slice(0, 500)];
    const a = makeParsed({ nodes: versions, edges: first });
    const b = makeParsed({ nodes: [...versions].reverse(), edges: second });
    const expected = [...new Set([...first, ...second].map(([x, y]) => `${x}>${y}`))];
    expect(mergeGraphs([a, b]).edges.map((e) => `${e.from}>${e.to}`)).toEqual(expected);
  });
});
