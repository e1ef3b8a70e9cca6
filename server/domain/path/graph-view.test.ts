import { describe, expect, it } from 'vitest';
import { buildGraphView, emptyGraphView, VIEW_MAX_NODES, VIEW_NEIGHBOURS_PER_PATH_NODE } from './graph-view';
import { makeIndex } from './test-builders';

const nodes: [string, string[]][] = [
  ['4.6.1', ['stable-4.6']],
  ['4.6.2', ['stable-4.6']],
  ['4.7.1', ['stable-4.7']],
  ['4.7.2', ['stable-4.7']],
  ['4.8.1', ['stable-4.8']],
  ['4.9.1', ['stable-4.9']],
];

describe('buildGraphView', () => {
  it('draws the minors the path spans, its edges marked, a spine edge per other node, and counts what it left out', () => {
    const index = makeIndex({
      nodes,
      edges: [
        ['4.6.1', '4.6.2'],
        ['4.6.1', '4.7.1'],
        ['4.6.2', '4.7.2'],
        ['4.6.2', '4.7.1'],
        ['4.7.1', '4.7.2'],
        ['4.7.2', '4.8.1'],
        ['4.8.1', '4.9.1'],
      ],
      conditional: [{ from: '4.7.1', to: '4.8.1', risks: ['R1'] }],
    });
    const v = buildGraphView(index, { path: ['4.6.1', '4.7.1+amd64'], from: '4.6.1', to: '4.7.1' });
    expect(v.nodes.map((n) => n.version).sort()).toEqual(['4.6.1', '4.6.2', '4.7.1', '4.7.2']);
    expect(v.nodes.filter((n) => n.onPath).map((n) => n.version)).toEqual(['4.6.1', '4.7.1']);
    expect(v.minors).toEqual(['4.6', '4.7']);
    expect(v.edges.filter((e) => e.onPath).map((e) => `${e.from}>${e.to}`)).toEqual(['4.6.1>4.7.1']);
    // 4.6.2 draws only its highest successor (4.7.2), not 4.7.1.
    expect(v.edges.map((e) => `${e.from}>${e.to}`)).not.toContain('4.6.2>4.7.1');
    expect(v.edges.map((e) => `${e.from}>${e.to}`)).toContain('4.6.2>4.7.2');
    expect(v.totals).toEqual({ nodes: 6, edges: 5 });
    expect(v.omitted).toEqual({ nodes: 2, edges: 5 - v.edges.length });
    expect(v.capped).toBe(false);
  });

  it('draws conditional edges out of the path with their risks', () => {
    const index = makeIndex({
      nodes,
      edges: [['4.7.1', '4.7.2']],
      conditional: [{ from: '4.7.1', to: '4.8.1', risks: ['R1'] }],
    });
    const v = buildGraphView(index, { path: ['4.7.1', '4.7.2'], to: '4.8.1' });
    const conditional = v.edges.find((e) => e.conditional);
    expect(conditional).toMatchObject({ from: '4.7.1', to: '4.8.1', onPath: false });
    expect(conditional?.risks.map((r) => r.name)).toEqual(['R1']);
  });

  it('keeps to one channel when given one', () => {
    const index = makeIndex({ nodes, edges: [['4.6.1', '4.6.2']] });
    const v = buildGraphView(index, { channel: 'stable-4.6' });
    expect(v.nodes.map((n) => n.version)).toEqual(['4.6.1', '4.6.2']);
    expect(v.totals.nodes).toBe(2);
  });

  it('caps a large view at VIEW_MAX_NODES, keeping the path and the newest releases', () => {
    const many = Array.from({ length: VIEW_MAX_NODES + 50 }, (_, i) => `4.6.${i}`);
    const index = makeIndex({ nodes: many, edges: [['4.6.0', '4.6.1']] });
    const v = buildGraphView(index, { path: ['4.6.0', '4.6.1'] });
    expect(v.capped).toBe(true);
    expect(v.nodes).toHaveLength(VIEW_MAX_NODES);
    const shown = new Set(v.nodes.map((n) => n.version));
    expect(shown.has('4.6.0') && shown.has('4.6.1') && shown.has(`4.6.${VIEW_MAX_NODES + 49}`)).toBe(true);
    expect(shown.has('4.6.2')).toBe(false);
  });

  it('limits the extra successors of a path node, then draws only its spine edge', () => {
    const succ = Array.from({ length: VIEW_NEIGHBOURS_PER_PATH_NODE + 3 }, (_, i) => `4.6.${i + 2}`);
    const index = makeIndex({
      nodes: ['4.6.0', '4.6.1', ...succ],
      edges: [['4.6.0', '4.6.1'], ...succ.map((s): [string, string] => ['4.6.0', s])],
    });
    const v = buildGraphView(index, { path: ['4.6.0', '4.6.1'] });
    expect(v.edges.filter((e) => e.from === '4.6.0')).toHaveLength(1 + VIEW_NEIGHBOURS_PER_PATH_NODE + 1); // the path edge, the neighbours, one spine edge
  });

  it('is empty without a graph', () => {
    expect(emptyGraphView()).toMatchObject({ nodes: [], edges: [], capped: false });
  });
});
