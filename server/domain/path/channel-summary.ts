import { sortChannelNames } from '../version/channel-names';
import { minorLabel, normalizeVersion } from '../version/version';
import type { GraphIndex } from './update-graph-index';

export interface ChannelSummary {
  name: string;
  releases: number;
  minVersion: string;
  maxVersion: string;
  /** Minors the channel holds (`4.12`), oldest first. */
  minors: string[];
}

/** Every channel of the graph with its releases (eus first, newest minor first); channels without releases are left out. */
export function listChannels(index: GraphIndex): ChannelSummary[] {
  const out = new Map<string, ChannelSummary>();
  for (const [name, bits] of index.channelMembers) {
    let max = -1;
    let min = -1;
    let count = 0;
    const minors = new Set<string>();
    // Ids are in descending version order: the first member is the newest.
    for (let id = 0; id < index.size; id++) {
      if (bits[id] !== 1) continue;
      if (max < 0) max = id;
      min = id;
      count++;
      minors.add(minorLabel(index.versions[id] as string) ?? '?');
    }
    if (count === 0) continue;
    out.set(name, {
      name,
      releases: count,
      minVersion: index.versions[min] as string,
      maxVersion: index.versions[max] as string,
      minors: [...minors].reverse(),
    });
  }
  return sortChannelNames(out.keys()).map((name) => out.get(name) as ChannelSummary);
}

/** The channels that hold `version` (build suffix ignored), in display order; [] when no node is that version. */
export function channelsContaining(index: GraphIndex, version: string): string[] {
  const id = index.idOf.get(normalizeVersion(version) ?? version);
  return id === undefined ? [] : sortChannelNames(index.channels[id] ?? []);
}
