/**
 * OpenShift update channel names (`stable-4.12`, `eus-4.14`, ...) and the two orders the product
 * shows them in. The one place that knows channel names and their prefix preference.
 */
import { parseVersion } from './version';

/** Channel name prefixes in the order the contract prefers them (eus, stable, fast, candidate). */
export const CHANNEL_PREFIX_ORDER = ['eus', 'stable', 'fast', 'candidate'] as const;

export interface ChannelName {
  readonly prefix: string;
  readonly major: number;
  readonly minor: number;
}

/** Splits `stable-4.12` into its prefix and minor; null for other names. */
export function parseChannelName(name: string): ChannelName | null {
  const m = /^([a-z][a-z0-9]*)-(\d+)\.(\d+)$/.exec(name);
  if (!m) return null;
  return { prefix: m[1] as string, major: Number(m[2]), minor: Number(m[3]) };
}

/** Rank of a prefix: eus 0, stable 1, fast 2, candidate 3, any other 4. */
function prefixRank(prefix: string): number {
  const i = (CHANNEL_PREFIX_ORDER as readonly string[]).indexOf(prefix);
  return i < 0 ? CHANNEL_PREFIX_ORDER.length : i;
}

function byName(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Sort key for lists of channels: prefix rank, then newest minor first; other names after all. */
function displayKey(name: string): [number, number, number] {
  const c = parseChannelName(name);
  return c ? [prefixRank(c.prefix), -c.major, -c.minor] : [CHANNEL_PREFIX_ORDER.length, 0, 0];
}

/** Channels as lists show them: eus first, then stable, fast, candidate, others; newest minor first inside a kind; ties by name. */
export function sortChannelNames(names: Iterable<string>): string[] {
  return [...names].sort((a, b) => {
    const ka = displayKey(a);
    const kb = displayKey(b);
    return ka[0] - kb[0] || ka[1] - kb[1] || ka[2] - kb[2] || byName(a, b);
  });
}

/**
 * Sort key of a channel for a release: prefix (eus < stable < fast < candidate < others), then
 * the channel's minor closest to the release's (same minor first, then the next ones, then older).
 */
function keyForRelease(name: string, version: string): [number, number] {
  const c = parseChannelName(name);
  const v = parseVersion(version);
  if (!c || !v) return [CHANNEL_PREFIX_ORDER.length + 1, 0];
  const distance =
    c.major === v.major ? (c.minor >= v.minor ? c.minor - v.minor : 1000 + v.minor - c.minor) : 10_000 + Math.abs(c.major - v.major);
  return [prefixRank(c.prefix), distance];
}

/** Channels ordered by preference for naming/pinning `version`; ties by name. */
export function sortChannelsFor(channels: readonly string[], version: string): string[] {
  return [...channels].sort((a, b) => {
    const ka = keyForRelease(a, version);
    const kb = keyForRelease(b, version);
    return ka[0] - kb[0] || ka[1] - kb[1] || byName(a, b);
  });
}

/**
 * The channel a path to `target` is named after when the user gave none: a channel containing the
 * target, eus before stable before fast before candidate (same minor first), else `stable-X.Y`
 * of the target's minor.
 */
export function defaultTargetChannel(target: string, targetChannels: readonly string[]): string {
  const known = targetChannels.filter((c) => parseChannelName(c) !== null);
  const best = sortChannelsFor(known.length ? known : targetChannels, target)[0];
  if (best) return best;
  const v = parseVersion(target);
  return v ? `stable-${v.major}.${v.minor}` : 'stable';
}

/** Whether a channel is an Extended Update Support one (`eus-4.14`), which lags stable by weeks. */
export function isEusChannel(name: string): boolean {
  return name.startsWith('eus-');
}
