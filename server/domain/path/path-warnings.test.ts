import { describe, expect, it } from 'vitest';
import { pathWarnings } from './path-warnings';
import type { GraphIndex } from './update-graph-index';

/** the parts of an index the warnings read: versions newest first, and their ids */
function indexOf(versions: string[]): GraphIndex {
  return { size: versions.length, versions, idOf: new Map(versions.map((v, i) => [v, i])) } as unknown as GraphIndex;
}

const index = indexOf(['4.13.43', '4.13.12', '4.12.60', '4.12.1']);
const NOW = Date.parse('2026-11-25T00:00:00Z');

describe('pathWarnings', () => {
  it('says when the source or target is not a release in the stored graphs, naming what they hold', () => {
    expect(pathWarnings(index, { from: '4.6.999', to: '4.13.99' }, [], NOW)).toEqual([
      '4.6.999 is not a release in the stored graphs (they hold 4.12.1–4.13.43): check the source version, or import a graph that has it.',
      '4.13.99 is not a release in the stored graphs (they hold 4.12.1–4.13.43): check the target version, or import a graph that has it.',
    ]);
  });

  it('says when the chosen channel is of a minor the graphs hold no release of', () => {
    expect(pathWarnings(index, { from: '4.12.60', channel: 'eus-4.14' }, [], NOW)).toEqual([
      'The stored graphs hold no 4.14 release, so eus-4.14 cannot be reached with them: an answer in it ends below 4.14. Import a graph that has 4.14.',
    ]);
    expect(pathWarnings(index, { from: '4.12.60', channel: 'stable-4.13' }, [], NOW)).toEqual([]);
  });

  it('flags graphs captured more than 30 days ago, and says nothing of fresh or undated ones', () => {
    const graphs = [
      { name: 'stable-4.13', capturedAt: new Date('2024-07-01T00:00:00Z') },
      { name: 'fresh', capturedAt: new Date('2026-11-20T00:00:00Z') },
      { name: 'upload', capturedAt: null },
    ];
    expect(pathWarnings(index, { from: '4.12.60' }, graphs, NOW)).toEqual([
      'Graph stable-4.13 was captured 877 days ago (2024-07-01): releases and edges published since are missing.',
    ]);
  });
});
