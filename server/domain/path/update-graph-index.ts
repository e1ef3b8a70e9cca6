import { compareParsedVersions, parseVersion, type ParsedVersion } from './version';
import type { MergedGraph, Risk } from './types';

/**
 * A merged graph prepared for fast queries. Build it once per graph set (`buildGraphIndex`) and
 * reuse it: each `solveUpgradePath` call is then a bounded breadth-first search over typed arrays.
 *
 * Invariants:
 * - node ids are ranks in *descending* SemVer order (0 = highest version), so "prefer the higher
 *   version" is "prefer the smaller id" everywhere;
 * - adjacency lists (`out*`, `in*`) are CSR slices sorted by ascending neighbour id, i.e. by
 *   descending neighbour version; each entry is `neighbour * 2 + (conditional ? 1 : 0)`;
 * - self-loops are dropped (they never shorten a path).
 * Treat it as immutable.
 */
export interface GraphIndex {
  readonly size: number;
  readonly edgeCount: number;
  /** Versions by id (descending SemVer), without build suffix. */
  readonly versions: readonly string[];
  readonly parsed: readonly ParsedVersion[];
  readonly payloads: readonly string[];
  /** Channels of each node (merged metadata). */
  readonly channels: readonly (readonly string[])[];
  readonly idOf: ReadonlyMap<string, number>;
  readonly outStart: Int32Array;
  readonly outList: Int32Array;
  readonly inStart: Int32Array;
  readonly inList: Int32Array;
  /** Risks of conditional edges, keyed by `from * size + to`. */
  readonly risks: ReadonlyMap<number, readonly Risk[]>;
  /** Membership bitmap per channel name. */
  readonly channelMembers: ReadonlyMap<string, Uint8Array>;
  /** Whether any node carries channel metadata; without it `--channel` filters nothing. */
  readonly hasChannelMetadata: boolean;
  /** Names of the source documents, for messages. */
  readonly sources: readonly string[];
}

function buildCsr(n: number, from: Int32Array, to: Int32Array, cond: Uint8Array, count: number) {
  const start = new Int32Array(n + 1);
  for (let i = 0; i < count; i++) start[(from[i] as number) + 1]! += 1;
  for (let i = 0; i < n; i++) start[i + 1]! += start[i] as number;
  const fill = start.slice(0, n);
  const list = new Int32Array(count);
  for (let i = 0; i < count; i++) {
    const f = from[i] as number;
    list[fill[f]!++] = (to[i] as number) * 2 + (cond[i] as number);
  }
  for (let v = 0; v < n; v++) {
    const a = start[v] as number;
    const b = start[v + 1] as number;
    if (b - a > 1) list.subarray(a, b).sort();
  }
  return { start, list };
}

/**
 * Prepares a merged graph for queries: sorts versions, builds forward and reverse adjacency and
 * per-channel node sets. O((V + E) log) once; the result is shared by every query on that graph set.
 */
export function buildGraphIndex(merged: MergedGraph): GraphIndex {
  const m = merged.nodes.length;
  const parsedByMerged = merged.nodes.map((node) => {
    const p = parseVersion(node.version);
    if (!p) throw new Error(`buildGraphIndex: ${node.version} is not SemVer (parse documents with parseGraphDocument)`);
    return p;
  });
  const order = Array.from({ length: m }, (_, i) => i);
  order.sort((a, b) => compareParsedVersions(parsedByMerged[b] as ParsedVersion, parsedByMerged[a] as ParsedVersion));
  const rankOfMerged = new Int32Array(m);
  order.forEach((mergedId, rank) => (rankOfMerged[mergedId] = rank));

  const versions: string[] = [];
  const parsed: ParsedVersion[] = [];
  const payloads: string[] = [];
  const channels: (readonly string[])[] = [];
  const idOf = new Map<string, number>();
  const channelMembers = new Map<string, Uint8Array>();
  let hasChannelMetadata = false;
  order.forEach((mergedId, rank) => {
    const node = merged.nodes[mergedId]!;
    versions.push(node.version);
    parsed.push(parsedByMerged[mergedId]!);
    payloads.push(node.payload);
    channels.push(node.channels);
    idOf.set(node.version, rank);
    hasChannelMetadata ||= node.hasChannelMetadata;
    for (const c of node.channels) {
      let bits = channelMembers.get(c);
      if (!bits) channelMembers.set(c, (bits = new Uint8Array(m)));
      bits[rank] = 1;
    }
  });

  const E = merged.edges.length;
  const from = new Int32Array(E);
  const to = new Int32Array(E);
  const cond = new Uint8Array(E);
  const risks = new Map<number, readonly Risk[]>();
  let count = 0;
  for (const e of merged.edges) {
    const a = idOf.get(e.from);
    const b = idOf.get(e.to);
    if (a === undefined || b === undefined || a === b) continue;
    from[count] = a;
    to[count] = b;
    cond[count] = e.conditional ? 1 : 0;
    if (e.conditional) risks.set(a * m + b, e.risks);
    count++;
  }
  const out = buildCsr(m, from, to, cond, count);
  const inn = buildCsr(m, to, from, cond, count);
  return {
    size: m,
    edgeCount: count,
    versions,
    parsed,
    payloads,
    channels,
    idOf,
    outStart: out.start,
    outList: out.list,
    inStart: inn.start,
    inList: inn.list,
    risks,
    channelMembers,
    hasChannelMetadata,
    sources: merged.sources,
  };
}

/** Ids of the channels' members, or null when the channel filters nothing. */
export function channelMask(index: GraphIndex, channel: string | null | undefined): Uint8Array | null {
  if (!channel || !index.hasChannelMetadata) return null;
  return index.channelMembers.get(channel) ?? new Uint8Array(index.size);
}

/** Risks of the edge from → to (ids), empty for an unconditional edge. */
export function edgeRisks(index: GraphIndex, from: number, to: number): readonly Risk[] {
  return index.risks.get(from * index.size + to) ?? [];
}
