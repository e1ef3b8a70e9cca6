import { isEusChannel } from '../version/channel-names';
import { parseVersion } from '../version/version';
import { channelMask, type GraphIndex } from './update-graph-index';

const EUS_LAG =
  'EUS channels lag GA: a release enters an eus-4.y channel only after it has been in stable for a while (weeks to months), so recent z-streams are often missing.';

/**
 * Why an EUS channel may not hold the source yet, with the newest release of the source's minor it
 * does hold. Null for other channels or when `from` is not a version.
 */
export function eusLagHint(index: GraphIndex, channel: string | null, from: string): string | null {
  if (!channel || !isEusChannel(channel)) return null;
  const src = parseVersion(from);
  const mask = channelMask(index, channel);
  if (!src || !mask) return null;
  let best: string | null = null;
  // Ids are in descending version order: the first match is the newest of that minor.
  for (let id = 0; id < index.size && best === null; id++) {
    const p = index.parsed[id];
    if (mask[id] === 1 && p && p.major === src.major && p.minor === src.minor) best = index.versions[id] as string;
  }
  const minor = `${src.major}.${src.minor}`;
  if (!best)
    return `${EUS_LAG} ${channel} holds no ${minor} release at all: pick a channel that starts at ${minor}, or update to a minor it holds first.`;
  const bestPatch = parseVersion(best)?.patch;
  return bestPatch !== undefined && bestPatch < src.patch
    ? `${EUS_LAG} The newest ${minor} release in ${channel} is ${best}, older than ${from}: wait until ${channel} catches up (or take the stable channels hop by hop).`
    : `${EUS_LAG} The newest ${minor} release in ${channel} is ${best}: update to it within ${minor} first, then switch channel.`;
}
