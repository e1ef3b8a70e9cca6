// The editor's lint against the stored update graphs (lint-policies.ts): a target in a minor no
// graph holds would wait NO_ROUTE forever, so it is named with the channels there are; a cap only
// where it stops a cluster with a target; nothing without graphs.
import { describe, expect, it } from 'vitest';
import { makeIndex } from '@/server/domain/path/test-builders';
import { graphCoverage, lintPolicies } from './lint-policies';
import { testCluster, testPlanInput } from './test-plan-input';

const GRAPHS = graphCoverage(
  makeIndex({
    nodes: [
      ['4.14.38', ['stable-4.14', 'stable-4.15', 'eus-4.14', 'eus-4.16']],
      ['4.15.45', ['stable-4.15', 'stable-4.16', 'eus-4.16']],
      ['4.16.20', ['stable-4.16', 'eus-4.16']],
      // a pre-release does not make its minor one the graphs hold
      ['4.17.0-rc.1', ['candidate-4.17']],
    ],
    edges: [
      ['4.14.38', '4.15.45'],
      ['4.15.45', '4.16.20'],
    ],
  }),
);

const graphWarnings = (clusters: Parameters<typeof testPlanInput>[0], extra: Record<string, unknown> = {}) =>
  lintPolicies(testPlanInput(clusters, extra), { graphs: GRAPHS })
    .filter((w) => w.code.startsWith('BOUND_'))
    .map((w) => [w.code, w.path, w.message]);

const CHANNELS = 'channels stored: eus-4.16, eus-4.14, stable-4.16, stable-4.15, stable-4.14, candidate-4.17';

describe('lint: targets and caps against the stored update graphs', () => {
  it('collects minors (not of pre-releases) and channels, in the order lists show channels (eus, stable, fast, candidate; newest first)', () => {
    expect([...GRAPHS.minors].sort()).toEqual(['4.14', '4.15', '4.16']);
    expect(GRAPHS.channels).toEqual(['eus-4.16', 'eus-4.14', 'stable-4.16', 'stable-4.15', 'stable-4.14', 'candidate-4.17']);
  });

  it.each([
    ['a cluster target in a minor the graphs hold', [testCluster('a', { version: '4.14.38' }, { targetVersion: '4.16.*' })], {}, []],
    [
      'a cluster target in a minor no graph holds',
      [testCluster('a', { version: '4.14.38' }, { targetVersion: '4.18.*' })],
      {},
      [
        [
          'BOUND_MINOR_NOT_IN_GRAPHS',
          'clusters[0].upgradePolicy.conditions.targetVersion',
          `targetVersion 4.18.* is in minor 4.18, which no stored update graph holds (minors 4.14–4.16): a cluster routed there waits with NO_ROUTE until a graph with it is stored; ${CHANNELS}`,
        ],
      ],
    ],
    [
      "the organization's target, and a sector's",
      [testCluster('a', { version: '4.14.38' }, { sector: 'prod' })],
      { organization: { targetVersion: '4.19.2', sectors: [{ name: 'prod', targetVersion: '4.17.*' }] } },
      [
        ['BOUND_MINOR_NOT_IN_GRAPHS', 'organization.targetVersion', expect.stringMatching(/^targetVersion 4\.19\.2 is in minor 4\.19,/)],
        [
          'BOUND_MINOR_NOT_IN_GRAPHS',
          'organization.sectors[0].targetVersion',
          expect.stringMatching(/^targetVersion 4\.17\.\* is in minor 4\.17,/),
        ],
      ],
    ],
    ['a cap alone above every stored minor: harmless, no warning', [testCluster('a', {}, { maxVersion: '4.20.*' })], {}, []],
    [
      'a cap that stops a cluster with a higher target',
      [testCluster('a', { version: '4.14.38' }, { targetVersion: '4.16.*' })],
      { organization: { maxVersion: '4.13.*' } },
      [['BOUND_MINOR_NOT_IN_GRAPHS', 'organization.maxVersion', expect.stringMatching(/^maxVersion 4\.13\.\* is in minor 4\.13,/)]],
    ],
    [
      'an exact target the graphs do not hold, in a minor they do',
      [testCluster('a', { version: '4.14.38' }, { targetVersion: '4.16.99' })],
      {},
      [
        [
          'BOUND_RELEASE_NOT_IN_GRAPHS',
          'clusters[0].upgradePolicy.conditions.targetVersion',
          'targetVersion 4.16.99 is no release of the stored update graphs: a cluster routed there waits with NO_ROUTE; target the minor (4.16.*) or a release the graphs hold',
        ],
      ],
    ],
  ])('%s', (_name, clusters, extra, expected) => {
    expect(graphWarnings(clusters, extra)).toEqual(expected);
  });

  it('without stored graphs nothing is checked', () => {
    const input = testPlanInput([testCluster('a', { version: '4.14.38' }, { targetVersion: '4.18.*' })]);
    expect(lintPolicies(input).filter((w) => w.code.startsWith('BOUND_'))).toEqual([]);
  });
});
