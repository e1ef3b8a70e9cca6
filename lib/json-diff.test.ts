import { describe, expect, it } from 'vitest';
import { diffJson, jsonEqual, summarizeChanges } from './json-diff';

describe('diffJson', () => {
  it('lists added, removed and changed leaves with their paths', () => {
    const before = {
      name: 'o',
      sectors: [{ name: 'a' }, { name: 'b', maxParallelUpgrades: '1' }],
      blocked: ['x'],
      versions: { '4.13.1': 1 },
    };
    const after = {
      name: 'o',
      sectors: [{ name: 'a', dependencies: [] }, { name: 'b', maxParallelUpgrades: '2' }, { name: 'c' }],
      versions: { '4.13.1': 2 },
    };
    expect(diffJson(before, after)).toEqual([
      { kind: 'added', path: 'sectors[0].dependencies', after: [] },
      { kind: 'changed', path: 'sectors[1].maxParallelUpgrades', before: '1', after: '2' },
      { kind: 'added', path: 'sectors[2]', after: { name: 'c' } },
      { kind: 'removed', path: 'blocked', before: ['x'] },
      { kind: 'changed', path: 'versions."4.13.1"', before: 1, after: 2 },
    ]);
    expect(summarizeChanges(diffJson(before, after))).toEqual({
      added: ['sectors[0].dependencies', 'sectors[2]'],
      removed: ['blocked'],
      changed: ['sectors[1].maxParallelUpgrades', 'versions."4.13.1"'],
    });
  });

  it('treats null as a value and reports a whole-value change at (root)', () => {
    expect(diffJson(null, { a: 1 })).toEqual([{ kind: 'changed', path: '(root)', before: null, after: { a: 1 } }]);
    expect(diffJson(undefined, 3)).toEqual([{ kind: 'added', path: '(root)', after: 3 }]);
    expect(diffJson({ a: [1, 2] }, { a: [1, 2] })).toEqual([]);
    expect(jsonEqual({ a: 1, b: 2 }, { b: 2, a: 1 })).toBe(true);
    expect(jsonEqual([1, 2], [2, 1])).toBe(false);
  });
});
