import { describe, expect, it } from 'vitest';
import { parseGraphDocument } from './parse-graph';
import { makeGraphText } from './test-builders';

const node = (version: unknown) => ({ version, payload: 'p', metadata: {} });

describe('parseGraphDocument', () => {
  it.each([
    ['an empty file', '', /empty/],
    ['white space only', '  \n', /empty/],
    ['truncated JSON', '{"version": 1, "nodes": [', /not JSON/],
    ['a top-level array', '[{"version":"4.7.4"}]', /top level is an array/],
    ['a top-level string', '"x"', /top level is a string/],
    ['no nodes', '{"version":1,"edges":[]}', /no "nodes" array/],
    ['nodes not an array', '{"nodes":{}}', /"nodes" is an object/],
    ['an unsupported document version', JSON.stringify({ version: 2, nodes: [] }), /unsupported graph document version 2/],
    [
      'an edge index out of range',
      JSON.stringify({
        nodes: [node('4.7.3'), node('4.7.4')],
        edges: [
          [0, 1],
          [1, 2],
        ],
      }),
      /edges\[1\].*index 2 is out of range.*2 nodes/,
    ],
    ['a negative edge index', JSON.stringify({ nodes: [node('4.7.3'), node('4.7.4')], edges: [[-1, 0]] }), /index -1 is out of range/],
    ['a fractional edge index', JSON.stringify({ nodes: [node('4.7.3'), node('4.7.4')], edges: [[0.5, 1]] }), /not an integer/],
    ['an edge that is not a pair', JSON.stringify({ nodes: [node('4.7.3')], edges: [[0]] }), /expected \[FROM_INDEX, TO_INDEX\]/],
    [
      'a version without patch',
      JSON.stringify({ nodes: [node('4.7.3'), node('4.7')], edges: [] }),
      /nodes\[1\]: version "4.7" is not SemVer/,
    ],
    ['a version with a v prefix', JSON.stringify({ nodes: [node('v4.7.3')] }), /"v4.7.3" is not SemVer/],
    ['a numeric version', JSON.stringify({ nodes: [node(4.7)] }), /"version" is a number/],
    [
      'a malformed conditional group',
      JSON.stringify({ nodes: [node('4.7.3')], conditionalEdges: [{ edges: [{ from: 1 }] }] }),
      /conditionalEdges\[0\]\.edges\[0\]/,
    ],
  ])('rejects %s, saying what is wrong', (_what, text, message) => {
    const r = parseGraphDocument(text, 'bad.json');
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.source).toBe('bad.json');
      expect(r.error).toMatch(message);
    }
  });

  it('strips the build suffix and ignores unknown top-level keys', () => {
    const text = JSON.stringify({
      _provenance: { x: 1 },
      version: 1,
      nodes: [node('4.9.6+amd64'), node('4.9.7-rc.1+arm64')],
      edges: [[0, 1]],
    });
    const r = parseGraphDocument(text, 'g.json');
    expect(r.ok && r.graph.nodes.map((n) => n.version)).toEqual(['4.9.6', '4.9.7-rc.1']);
  });

  it('reads channels metadata, trimming names and dropping duplicates', () => {
    const r = parseGraphDocument(makeGraphText({ nodes: [['4.8.1', ['stable-4.8', ' eus-4.8', 'stable-4.8', '']]] }), 'g.json');
    expect(r.ok && r.graph.nodes[0]).toMatchObject({ channels: ['stable-4.8', 'eus-4.8'], hasChannelMetadata: true });
  });

  it('reads conditional pairs, skipping versions that are not SemVer', () => {
    const text = JSON.stringify({
      nodes: [node('4.7.0'), node('4.7.4')],
      edges: [],
      conditionalEdges: [
        {
          edges: [
            { from: '4.7.0+amd64', to: '4.7.4' },
            { from: 'junk', to: '4.7.4' },
          ],
          risks: [{ name: 'R', message: 'm', url: 'u', matchingRules: [] }],
        },
      ],
    });
    const r = parseGraphDocument(text, 'g.json');
    expect(r.ok && r.graph.conditionalPairs).toEqual([{ from: '4.7.0', to: '4.7.4', risks: [{ name: 'R', message: 'm', url: 'u' }] }]);
  });
});

describe('parseGraphDocument: limits (GRAPH_LIMITS)', () => {
  it('refuses nesting deeper than 32 and more than 5,000,000 values with a problem, not a crash', () => {
    const deep = `{"nodes": [], "x": ${'['.repeat(1_000_000)}`;
    expect(parseGraphDocument(deep, 'deep.json')).toEqual({
      ok: false,
      source: 'deep.json',
      error: 'refused: lists and objects nested deeper than 32 levels (the limit), at line 1',
    });
    // the object, "nodes", "edges" and 5,000,000 items: the 5,000,001st value is edges[4999997]
    const many = `{"nodes": [], "edges": [${'0,'.repeat(4_999_999)}0]}`;
    expect(parseGraphDocument(many, 'many.json')).toEqual({
      ok: false,
      source: 'many.json',
      error: 'refused: more than 5,000,000 values (the limit), at edges[4999997]',
    });
  });

  it('reads a graph whose strings hold brackets, quotes and escapes', () => {
    const text = JSON.stringify({
      nodes: [{ version: '4.7.3', payload: `${'[{'.repeat(40)}\\"\\`, metadata: { note: '"]}'.repeat(40) } }],
    });
    const r = parseGraphDocument(text, 'g.json');
    expect(r.ok && r.graph.nodes.map((n) => n.payload)).toEqual([`${'[{'.repeat(40)}\\"\\`]);
  });
});
