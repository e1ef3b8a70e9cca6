import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { renderImageSet } from './imageset';
import { solveUpgradePath } from './solve-upgrade-path';
import { makeIndex, type GraphSpec } from './test-builders';
import { defaultTargetChannel } from '../version/channel-names';

function found(spec: GraphSpec, from: string, to: string, channel: string | null = null) {
  const index = makeIndex(spec);
  const answer = solveUpgradePath(index, { from, to, channel, allowConditional: false });
  if (answer.path === null) throw new Error(answer.message);
  return { index, answer };
}

describe('renderImageSet', () => {
  it('pins every path release under a distinct channel containing it, target channel for the target', () => {
    const { index, answer } = found(
      {
        nodes: [
          ['4.6.1', ['stable-4.6', 'eus-4.8']],
          ['4.7.60', ['stable-4.7', 'stable-4.8', 'eus-4.8']],
          ['4.8.54', ['stable-4.8', 'eus-4.8']],
        ],
        edges: [
          ['4.6.1', '4.7.60'],
          ['4.7.60', '4.8.54'],
        ],
      },
      '4.6.1',
      '4.8.54',
      'eus-4.8',
    );
    const r = renderImageSet(index, answer, { channel: 'eus-4.8' });
    expect(r.mode).toBe('pins');
    expect(r.warnings).toEqual([]);
    expect(r.entries).toEqual([
      { name: 'stable-4.6', minVersion: '4.6.1', maxVersion: '4.6.1' },
      { name: 'stable-4.7', minVersion: '4.7.60', maxVersion: '4.7.60' },
      { name: 'eus-4.8', minVersion: '4.8.54', maxVersion: '4.8.54' },
    ]);
    const doc = parseYaml(r.yaml) as { apiVersion: string; kind: string; mirror: { platform: { graph: boolean; channels: unknown[] } } };
    expect(doc).toMatchObject({
      apiVersion: 'mirror.openshift.io/v2alpha1',
      kind: 'ImageSetConfiguration',
      mirror: { platform: { graph: true } },
    });
    expect(doc.mirror.platform.channels).toEqual(r.entries.map((e) => ({ ...e, type: 'ocp' })));
  });

  it('re-routes earlier choices when a later release has only one channel left', () => {
    const { index, answer } = found(
      {
        nodes: [
          ['4.2.1', ['stable-4.2', 'fast-4.2']],
          ['4.2.7', ['stable-4.2']],
          ['4.2.9', ['stable-4.2', 'candidate-4.2', 'fast-4.2']],
        ],
        edges: [
          ['4.2.1', '4.2.7'],
          ['4.2.7', '4.2.9'],
        ],
      },
      '4.2.1',
      '4.2.9',
    );
    const r = renderImageSet(index, answer);
    expect(r.mode).toBe('pins');
    expect(r.entries.map((e) => e.name)).toEqual(['fast-4.2', 'stable-4.2', 'candidate-4.2']);
  });

  it('falls back to one shortestPath entry, with a warning, when pins are impossible', () => {
    const { index, answer } = found(
      {
        nodes: [
          ['4.7.0-fc.1', ['candidate-4.7']],
          ['4.7.0-fc.2', ['candidate-4.7']],
        ],
        edges: [['4.7.0-fc.1', '4.7.0-fc.2']],
      },
      '4.7.0-fc.1',
      '4.7.0-fc.2',
    );
    const r = renderImageSet(index, answer);
    expect(r.mode).toBe('fallback');
    expect(r.entries).toEqual([{ name: 'candidate-4.7', minVersion: '4.7.0-fc.1', maxVersion: '4.7.0-fc.2', shortestPath: true }]);
    expect(r.warnings.join(' ')).toMatch(/cannot pin/);
  });

  it('falls back to stable-X.Y of the target for a graph without channel metadata', () => {
    const { index, answer } = found({ nodes: ['4.5.5', '4.6.43'], edges: [['4.5.5', '4.6.43']] }, '4.5.5', '4.6.43');
    expect(renderImageSet(index, answer).entries).toEqual([
      { name: 'stable-4.6', minVersion: '4.5.5', maxVersion: '4.6.43', shortestPath: true },
    ]);
  });
});

describe('defaultTargetChannel', () => {
  it.each([
    [['candidate-4.8', 'fast-4.8', 'stable-4.8', 'eus-4.10', 'eus-4.8'], 'eus-4.8'],
    [['candidate-4.8', 'fast-4.8', 'stable-4.9', 'stable-4.8'], 'stable-4.8'],
    [['candidate-4.9', 'fast-4.9'], 'fast-4.9'],
    [[], 'stable-4.8'],
  ])('names the path after %j → %s', (channels, name) => {
    expect(defaultTargetChannel('4.8.54', channels)).toBe(name);
  });
});
