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

  it('measures a chain of 100,000 sectors (validation accepts it) without overflowing the stack', () => {
    const n = 100_000;
    const chain = Array.from({ length: n }, (_, i) => ({ name: `s${i}`, dependencies: i ? [`s${i - 1}`] : [] }));
    const d = computeSectorDepths(chain.reverse());
    expect(d.get(`s${n - 1}`)).toBe(n - 1);
    expect(d.get('s0')).toBe(0);
  });

  it('cuts a cycle where it is met and ignores unknown dependencies', () => {
    const d = computeSectorDepths([
      { name: 'a', dependencies: ['c', 'ghost'] },
      { name: 'b', dependencies: ['a'] },
      { name: 'c', dependencies: ['b'] },
    ]);
    expect([...d]).toEqual([
      ['b', 1],
      ['c', 2],
      ['a', 3],
    ]);
  });
});
