import { buildReachability, REACHABILITY_MAX_NODES, type Reachability } from './reachability';
import { compareParsedVersions, parseVersion, type ParsedVersion } from '../version/version';
import type { MergedGraph, Risk } from './types';

/**
 * A node set or part of one as 32-bit words: node `v` is bit `v & 31` of word `v >>> 5`. Searches
 * work on whole words, 32 nodes per operation.
 */
export type NodeBits = Int32Array;

/**
 * The predecessors of every node as sparse bit words, so that a breadth-first search can gather a
 * whole level's predecessors with a few word ORs instead of one step per edge. Node `v`'s
 * predecessors are the words `bits[start[v] .. start[v + 1])`, at word positions `wordAt[..]`
 * (ascending). At most one word per edge, so never larger than the edge lists.
 */
export interface PredecessorBits {
  readonly start: Int32Array;
  readonly wordAt: Int32Array;
  readonly bits: Int32Array;
}

/**
 * A merged graph prepared for fast queries. Build it once per graph set (`buildGraphIndex`) and
 * reuse it: each `solveUpgradePath` call is then a bounded breadth-first search over bit words.
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
  /** The same sets as bit words (`NodeBits`), for searches. */
  readonly channelBits: ReadonlyMap<string, NodeBits>;
  /** Whether any node carries channel metadata; without it `--channel` filters nothing. */
  readonly hasChannelMetadata: boolean;
  /** Names of the source documents, for messages. */
  readonly sources: readonly string[];
  /**
   * What each node can reach over every edge, conditional ones included, ignoring channels; null
   * for graphs too large to afford it. Nothing outside it can be on any path from that node.
   */
  readonly reachable: Reachability | null;
  /** Predecessors over unconditional edges. */
  readonly unconditionalPredecessors: PredecessorBits;
  /** Predecessors over conditional edges (only those). */
  readonly conditionalPredecessors: PredecessorBits;
}

export interface BuildGraphIndexOptions {
  /** Largest graph for which `reachable` is built (tests lower it to exercise the fallback). */
  readonly maxReachabilityNodes?: number;
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

function buildPredecessorBits(n: number, inStart: Int32Array, inList: Int32Array, conditional: 0 | 1): PredecessorBits {
  const start = new Int32Array(n + 1);
  const wordAt = new Int32Array(inList.length);
  const bits = new Int32Array(inList.length);
  let used = 0;
  for (let v = 0; v < n; v++) {
    start[v] = used;
    let lastWord = -1;
    // Predecessors come by ascending id, so the words come in order and each is opened once.
    for (let k = inStart[v] as number; k < (inStart[v + 1] as number); k++) {
      const entry = inList[k] as number;
      if ((entry & 1) !== conditional) continue;
      const p = entry >> 1;
      const word = p >>> 5;
      if (word !== lastWord) {
        wordAt[used] = word;
        used++;
        lastWord = word;
      }
      bits[used - 1]! |= 1 << (p & 31);
    }
  }
  start[n] = used;
  return { start, wordAt: wordAt.slice(0, used), bits: bits.slice(0, used) };
}

/**
 * Prepares a merged graph for queries: sorts versions, builds forward and reverse adjacency,
 * predecessor bit words, per-channel node sets and the reachability closure. About O((V + E) log)
 * once (see `buildReachability` for its bound); the result is shared by every query on that graph
 * set.
 */
export function buildGraphIndex(merged: MergedGraph, options: BuildGraphIndexOptions = {}): GraphIndex {
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
  const channelBits = new Map<string, NodeBits>();
  const words = (m + 31) >>> 5;
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
      let members = channelMembers.get(c);
      let memberBits = channelBits.get(c);
      if (!members || !memberBits) {
        channelMembers.set(c, (members = new Uint8Array(m)));
        channelBits.set(c, (memberBits = new Int32Array(words)));
      }
      members[rank] = 1;
      memberBits[rank >>> 5]! |= 1 << (rank & 31);
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
  const maxReachabilityNodes = options.maxReachabilityNodes ?? REACHABILITY_MAX_NODES;
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
    channelBits,
    hasChannelMetadata,
    sources: merged.sources,
    reachable: buildReachability(m, out.start, out.list, maxReachabilityNodes),
    unconditionalPredecessors: buildPredecessorBits(m, inn.start, inn.list, 0),
    conditionalPredecessors: buildPredecessorBits(m, inn.start, inn.list, 1),
  };
}

/** Ids of the channels' members, or null when the channel filters nothing. */
export function channelMask(index: GraphIndex, channel: string | null | undefined): Uint8Array | null {
  if (!channel || !index.hasChannelMetadata) return null;
  return index.channelMembers.get(channel) ?? new Uint8Array(index.size);
}

/** `channelMask` as bit words (`NodeBits`). */
export function channelMaskBits(index: GraphIndex, channel: string | null | undefined): NodeBits | null {
  if (!channel || !index.hasChannelMetadata) return null;
  return index.channelBits.get(channel) ?? new Int32Array((index.size + 31) >>> 5);
}

/** Risks of the edge from → to (ids), empty for an unconditional edge. */
export function edgeRisks(index: GraphIndex, from: number, to: number): readonly Risk[] {
  return index.risks.get(from * index.size + to) ?? [];
}
