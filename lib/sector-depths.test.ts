import { describe, expect, it } from 'vitest';
import { computeSectorDepths } from './sector-depths';

describe('computeSectorDepths', () => {
  it('uses the longest chain', () => {
    const d = computeSectorDepths([
      { name: 'a', dependencies: [] },
      { name: 'b', dependencies: ['a'] },
      { name: 'c', dependencies: ['a', 'b'] },
    ]);
    expect([...d]).toEqual([
      ['a', 0],
      ['b', 1],
      ['c', 2],
    ]);
  });
});
