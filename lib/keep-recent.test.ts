import { expect, it } from 'vitest';
import { keepRecent } from './keep-recent';

it('keeps the most recently set keys, dropping the oldest beyond the size', () => {
  const map = new Map<string, number>();
  keepRecent(map, 'a', 1, 2);
  keepRecent(map, 'b', 2, 2);
  keepRecent(map, 'a', 3, 2); // set again: now the most recent
  keepRecent(map, 'c', 4, 2);
  expect([...map]).toEqual([
    ['a', 3],
    ['c', 4],
  ]);
});
