/**
 * Sets `key` in `map` as its most recent entry and drops the oldest ones beyond `size`: a Map
 * keeps insertion order, so the first key is the least recently set. The one bounded-cache rule
 * of the server's in-memory caches (forecasts, explanations, token sources, warm lists).
 */
export function keepRecent<K, V>(map: Map<K, V>, key: K, value: V, size: number): void {
  map.delete(key);
  map.set(key, value);
  while (map.size > size) map.delete(map.keys().next().value as K);
}
