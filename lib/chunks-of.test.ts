import { expect, it } from 'vitest';
import { chunksOf } from './chunks-of';

it('slices in order, the last slice shorter, nothing for nothing', () => {
  expect(chunksOf([1, 2, 3, 4, 5], 2)).toEqual([[1, 2], [3, 4], [5]]);
  expect(chunksOf([], 3)).toEqual([]);
  expect(() => chunksOf([1], 0)).toThrow('at least 1');
});
