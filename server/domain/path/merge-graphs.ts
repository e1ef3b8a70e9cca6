import type { GraphNode, MergedEdge, MergedGraph, ParsedGraph, Risk } from './types';

interface NodeAcc {
  version: string;
  payload: string;
  channels: string[];
  channelSet: Set<string>;
  hasChannelMetadata: boolean;
}

const NO_RISKS: readonly Risk[] = Object.freeze([]);

/**
 * The merged edges while they are collected, one slot per distinct (from, to) pair in order of
 * first appearance, found again through an open-addressing hash table. Typed arrays instead of a
 * Map and an object per edge: on a large graph (80k edges) those made merging the largest part of
 * loading it, most of that in the garbage collector.
 */
class EdgeTable {
  readonly from: Int32Array;
  readonly to: Int32Array;
  readonly conditional: Uint8Array;
  /** Risks and the names already taken, for conditional pairs only (by slot). */
  readonly risks = new Map<number, { list: Risk[]; names: Set<string> }>();
  count = 0;
  private readonly slots: Int32Array;
  private readonly slotBits: number;

  constructor(maxEdges: number) {
    this.from = new Int32Array(maxEdges);
    this.to = new Int32Array(maxEdges);
    this.conditional = new Uint8Array(maxEdges);
    // At most half full, so probe runs stay short.
    this.slotBits = Math.max(4, 32 - Math.clz32(maxEdges * 2));
    this.slots = new Int32Array(1 << this.slotBits).fill(-1);
  }

  /** The edge number of the pair, added when new. */
  edgeFor(from: number, to: number): number {
    const mask = (1 << this.slotBits) - 1;
    // Multiplicative hashing of both ends; the high bits are the well-mixed ones.
    let slot = Math.imul(Math.imul(from, 0x9e3779b1) ^ to, 0x85ebca6b) >>> (32 - this.slotBits);
    for (;;) {
      const edge = this.slots[slot] as number;
      if (edge === -1) break;
      if (this.from[edge] === from && this.to[edge] === to) return edge;
      slot = (slot + 1) & mask;
    }
    const edge = this.count++;
    this.slots[slot] = edge;
    this.from[edge] = from;
    this.to[edge] = to;
    return edge;
  }
}

/**
 * Merges graph documents (contracts/path.md, "Merging files"):
 * - nodes by version: channels are the union (first appearance first), the payload is the first
 *   document's (the first non-empty one);
 * - edges by (from, to) version pair; a pair listed in any document's `conditionalEdges` is
 *   conditional, even when another document lists it in `edges`;
 * - risks of one pair are de-duplicated by name, first appearance first;
 * - conditional pairs naming a version that is not a node of the merged graph are ignored.
 * A single document goes through the same rules (duplicate nodes/pairs within it collapse).
 */
export function mergeGraphs(graphs: readonly ParsedGraph[]): MergedGraph {
  const ids = new Map<string, number>();
  const nodes: NodeAcc[] = [];
  const localIds: Int32Array[] = [];
  for (const g of graphs) {
    const local = new Int32Array(g.nodes.length);
    g.nodes.forEach((n, i) => {
      let id = ids.get(n.version);
      if (id === undefined) {
        id = nodes.length;
        ids.set(n.version, id);
        nodes.push({ version: n.version, payload: n.payload, channels: [], channelSet: new Set(), hasChannelMetadata: false });
      }
      const acc = nodes[id] as NodeAcc;
      if (acc.payload === '' && n.payload !== '') acc.payload = n.payload;
      acc.hasChannelMetadata ||= n.hasChannelMetadata;
      for (const c of n.channels) {
        if (!acc.channelSet.has(c)) {
          acc.channelSet.add(c);
          acc.channels.push(c);
        }
      }
      local[i] = id;
    });
    localIds.push(local);
  }

  const maxEdges = graphs.reduce((sum, g) => sum + g.edges.length + g.conditionalPairs.length, 0);
  const table = new EdgeTable(maxEdges);
  graphs.forEach((g, gi) => {
    const local = localIds[gi] as Int32Array;
    for (const edge of g.edges) table.edgeFor(local[edge[0]] as number, local[edge[1]] as number);
  });
  for (const g of graphs) {
    for (const pair of g.conditionalPairs) {
      const from = ids.get(pair.from);
      const to = ids.get(pair.to);
      if (from === undefined || to === undefined) continue;
      const edge = table.edgeFor(from, to);
      table.conditional[edge] = 1;
      let risks = table.risks.get(edge);
      if (!risks) table.risks.set(edge, (risks = { list: [], names: new Set() }));
      for (const r of pair.risks) {
        if (risks.names.has(r.name)) continue;
        risks.names.add(r.name);
        risks.list.push(r);
      }
    }
  }

  const mergedNodes: GraphNode[] = nodes.map((a) => ({
    version: a.version,
    payload: a.payload,
    channels: a.channels,
    hasChannelMetadata: a.hasChannelMetadata,
  }));
  const mergedEdges = new Array<MergedEdge>(table.count);
  for (let e = 0; e < table.count; e++) {
    mergedEdges[e] = {
      from: (nodes[table.from[e] as number] as NodeAcc).version,
      to: (nodes[table.to[e] as number] as NodeAcc).version,
      conditional: table.conditional[e] === 1,
      risks: table.risks.get(e)?.list ?? NO_RISKS,
    };
  }
  return { sources: graphs.map((g) => g.source), nodes: mergedNodes, edges: mergedEdges };
}
