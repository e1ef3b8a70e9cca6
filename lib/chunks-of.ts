/** `items` in consecutive slices of at most `size` (the last one shorter), in order. */
export function chunksOf<T>(items: readonly T[], size: number): T[][] {
  if (!(size >= 1)) throw new Error(`chunk size must be at least 1, not ${size}`);
  const chunks: T[][] = [];
  for (let i = 0; i < items.length; i += size) chunks.push(items.slice(i, i + size));
  return chunks;
}
