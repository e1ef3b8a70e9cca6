import { describe, expect, it } from 'vitest';
import { solveUpgradePath } from './solve-upgrade-path';
import { buildGraphIndex } from './update-graph-index';
import { mergeGraphs } from './merge-graphs';
import { makeIndex, makeParsed, type GraphSpec } from './test-builders';
import type { PathQuery } from './types';

const q = (from: string, to?: string, extra: Partial<PathQuery> = {}): PathQuery => ({ from, to, allowConditional: false, ...extra });

// 4.6.1 → {4.6.5, 4.6.9} → 4.7.2; 4.6.9 is higher, so it wins the tie. 4.6.20 leads on, but in 3 hops.
const DIAMOND: GraphSpec = {
  nodes: ['4.6.1', '4.6.5', '4.6.9', '4.6.20', '4.6.21', '4.7.2'],
  edges: [
    ['4.6.1', '4.6.5'],
    ['4.6.1', '4.6.9'],
    ['4.6.1', '4.6.20'],
    ['4.6.20', '4.6.21'],
    ['4.6.21', '4.7.2'],
    ['4.6.5', '4.7.2'],
    ['4.6.9', '4.7.2'],
  ],
};

describe('solveUpgradePath', () => {
  it.each<[string, GraphSpec, PathQuery, string[]]>([
    ['takes the fewest hops even when a higher first step exists', DIAMOND, q('4.6.1', '4.7.2'), ['4.6.1', '4.6.9', '4.7.2']],
    [
      'breaks ties on the first intermediate, then the second',
      {
        nodes: ['4.1.0', '4.1.1', '4.1.2', '4.2.0', '4.2.1', '4.3.0'],
        edges: [
          ['4.1.0', '4.1.1'],
          ['4.1.0', '4.1.2'],
          ['4.1.1', '4.2.1'],
          ['4.1.2', '4.2.0'],
          ['4.2.0', '4.3.0'],
          ['4.2.1', '4.3.0'],
        ],
      },
      q('4.1.0', '4.3.0'),
      ['4.1.0', '4.1.2', '4.2.0', '4.3.0'],
    ],
    [
      'orders pre-releases by SemVer (rc.10 above rc.9, release above rc)',
      {
        nodes: ['4.12.0-rc.9', '4.12.0-rc.10', '4.12.0-rc.2', '4.12.0', '4.12.1'],
        edges: [
          ['4.12.0-rc.2', '4.12.0-rc.9'],
          ['4.12.0-rc.2', '4.12.0-rc.10'],
          ['4.12.0-rc.9', '4.12.1'],
          ['4.12.0-rc.10', '4.12.1'],
        ],
      },
      q('4.12.0-rc.2', '4.12.1'),
      ['4.12.0-rc.2', '4.12.0-rc.10', '4.12.1'],
    ],
    [
      'survives cycles',
      {
        nodes: ['4.1.0', '4.1.1', '4.1.2', '4.1.3'],
        edges: [
          ['4.1.0', '4.1.1'],
          ['4.1.1', '4.1.0'],
          ['4.1.1', '4.1.2'],
          ['4.1.2', '4.1.1'],
          ['4.1.2', '4.1.3'],
        ],
      },
      q('4.1.0', '4.1.3'),
      ['4.1.0', '4.1.1', '4.1.2', '4.1.3'],
    ],
    ['answers zero hops when the source is the target', DIAMOND, q('4.7.2', '4.7.2'), ['4.7.2']],
    ['defaults the target to the highest version', DIAMOND, q('4.6.1'), ['4.6.1', '4.6.9', '4.7.2']],
    ['accepts a build suffix in --from and --to', DIAMOND, q('4.6.1+amd64', '4.7.2+amd64'), ['4.6.1', '4.6.9', '4.7.2']],
  ])('%s', (_rule, spec, query, path) => {
    const answer = solveUpgradePath(makeIndex(spec), query);
    expect(answer.path).toEqual(path);
    expect(answer.hops).toBe(path.length - 1);
    expect(answer.releases.map((r) => r.version)).toEqual(path);
    expect(answer.releases[0]?.payload).toBe(`quay.io/x@${path[0]}`);
  });

  it('answers UNREACHABLE when no edge leads to the target, even backwards', () => {
    const answer = solveUpgradePath(makeIndex(DIAMOND), q('4.7.2', '4.6.1'));
    expect(answer).toMatchObject({ path: null, hops: null, releases: [], risks: [], reason: 'UNREACHABLE', from: '4.7.2', to: '4.6.1' });
    expect(answer.path === null && answer.message).toMatch(/older than/);
  });

  const COND: GraphSpec = {
    nodes: ['4.6.15', '4.6.20', '4.7.4', '4.7.9'],
    edges: [
      ['4.6.15', '4.6.20'],
      ['4.6.20', '4.7.9'],
      ['4.7.9', '4.7.4'],
    ],
    conditional: [{ from: '4.6.15', to: '4.7.4', risks: ['VSphereNodeNameChanges'] }],
  };

  it('answers ONLY_CONDITIONAL with the conditional path and its risks', () => {
    const spec: GraphSpec = { nodes: ['4.7.0', '4.7.4'], conditional: [{ from: '4.7.0', to: '4.7.4', risks: ['R1', 'R2'] }] };
    const answer = solveUpgradePath(makeIndex(spec), q('4.7.0', '4.7.4'));
    expect(answer).toMatchObject({
      path: null,
      reason: 'ONLY_CONDITIONAL',
      conditionalPath: ['4.7.0', '4.7.4'],
      risks: [
        { from: '4.7.0', to: '4.7.4', risks: [{ name: 'R1', message: 'R1 message', url: 'https://example.com/R1' }, { name: 'R2' }] },
      ],
    });
    expect(solveUpgradePath(makeIndex(spec), q('4.7.0', '4.7.4', { allowConditional: true }))).toMatchObject({
      path: ['4.7.0', '4.7.4'],
      hops: 1,
    });
  });

  it('with allow-conditional prefers fewer hops over avoiding conditional edges', () => {
    expect(solveUpgradePath(makeIndex(COND), q('4.6.15', '4.7.4')).path).toEqual(['4.6.15', '4.6.20', '4.7.9', '4.7.4']);
    const allowed = solveUpgradePath(makeIndex(COND), q('4.6.15', '4.7.4', { allowConditional: true }));
    expect(allowed).toMatchObject({ path: ['4.6.15', '4.7.4'], risks: [{ from: '4.6.15', to: '4.7.4' }] });
  });

  it('with allow-conditional takes the fewest conditional hops among the shortest, before the highest versions', () => {
    const spec: GraphSpec = {
      nodes: ['4.1.0', '4.1.5', '4.1.9', '4.2.0'],
      edges: [
        ['4.1.0', '4.1.5'],
        ['4.1.5', '4.2.0'],
        ['4.1.9', '4.2.0'],
      ],
      conditional: [{ from: '4.1.0', to: '4.1.9', risks: ['R'] }],
    };
    const answer = solveUpgradePath(makeIndex(spec), q('4.1.0', '4.2.0', { allowConditional: true }));
    expect(answer).toMatchObject({ path: ['4.1.0', '4.1.5', '4.2.0'], risks: [] });
  });

  it('checks the source first: SOURCE_NOT_IN_CHANNEL names the channels that contain it', () => {
    const index = makeIndex({
      nodes: [
        ['4.4.3', ['stable-4.4', 'fast-4.4']],
        ['4.5.1', ['stable-4.5', 'stable-4.6']],
      ],
      edges: [['4.4.3', '4.5.1']],
    });
    const answer = solveUpgradePath(index, q('4.4.3', '4.9.9', { channel: 'stable-4.6' }));
    expect(answer).toMatchObject({ reason: 'SOURCE_NOT_IN_CHANNEL', channel: 'stable-4.6', path: null, risks: [] });
    expect(answer.path === null && answer.message).toContain('stable-4.4, fast-4.4');
  });

  it('answers SOURCE_NOT_IN_CHANNEL for a version that is no node, and for an unknown channel', () => {
    const index = makeIndex({ nodes: [['4.5.1', ['stable-4.5']]] });
    expect(solveUpgradePath(index, q('4.4.3')).path === null && solveUpgradePath(index, q('4.4.3'))).toMatchObject({
      reason: 'SOURCE_NOT_IN_CHANNEL',
    });
    expect(solveUpgradePath(index, q('4.5.1', undefined, { channel: 'stable-4.99' }))).toMatchObject({ reason: 'SOURCE_NOT_IN_CHANNEL' });
  });

  it('answers TARGET_NOT_IN_CHANNEL when --to is filtered out', () => {
    const index = makeIndex({
      nodes: [
        ['4.5.1', ['stable-4.5']],
        ['4.5.2', ['fast-4.5']],
      ],
      edges: [['4.5.1', '4.5.2']],
    });
    expect(solveUpgradePath(index, q('4.5.1', '4.5.2', { channel: 'stable-4.5' }))).toMatchObject({
      reason: 'TARGET_NOT_IN_CHANNEL',
      to: '4.5.2',
    });
  });

  it("filters nodes and edges by channel, and defaults the target to the channel's highest version", () => {
    const index = makeIndex({
      nodes: [
        ['4.5.1', ['stable-4.5']],
        ['4.5.3', ['candidate-4.5']],
        ['4.5.2', ['stable-4.5']],
      ],
      edges: [
        ['4.5.1', '4.5.3'],
        ['4.5.3', '4.5.2'],
        ['4.5.1', '4.5.2'],
      ],
    });
    expect(solveUpgradePath(index, q('4.5.1', undefined, { channel: 'stable-4.5' }))).toMatchObject({
      to: '4.5.2',
      path: ['4.5.1', '4.5.2'],
    });
    expect(solveUpgradePath(index, q('4.5.1', '4.5.2', { channel: 'stable-4.5' })).path).toEqual(['4.5.1', '4.5.2']);
  });

  it("takes a graph without any channel metadata to be the channel's already", () => {
    const answer = solveUpgradePath(makeIndex(DIAMOND), q('4.6.1', undefined, { channel: 'stable-4.7' }));
    expect(answer).toMatchObject({ channel: 'stable-4.7', path: ['4.6.1', '4.6.9', '4.7.2'] });
  });

  it('prints keys in contract order', () => {
    expect(Object.keys(solveUpgradePath(makeIndex(DIAMOND), q('4.6.1')))).toEqual([
      'from',
      'to',
      'channel',
      'path',
      'hops',
      'releases',
      'risks',
    ]);
    expect(Object.keys(solveUpgradePath(makeIndex(DIAMOND), q('4.7.2', '4.6.1')))).toEqual([
      'from',
      'to',
      'channel',
      'path',
      'hops',
      'releases',
      'risks',
      'reason',
      'message',
    ]);
  });

  it('answers many queries on one index (the index is not mutated)', () => {
    const index = buildGraphIndex(mergeGraphs([makeParsed(DIAMOND)]));
    const first = solveUpgradePath(index, q('4.6.1'));
    for (let i = 0; i < 5; i++) solveUpgradePath(index, q('4.6.20'));
    expect(solveUpgradePath(index, q('4.6.1'))).toEqual(first);
  });
});
