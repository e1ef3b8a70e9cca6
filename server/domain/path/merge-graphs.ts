import type { GraphNode, MergedEdge, MergedGraph, ParsedGraph, Risk } from './types';

interface NodeAcc {
  version: string;
  payload: string;
  channels: string[];
  channelSet: Set<string>;
  hasChannelMetadata: boolean;
}

interface EdgeAcc {
  from: number;
  to: number;
  conditional: boolean;
  risks: Risk[];
  riskNames: Set<string> | null;
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

  const n = nodes.length;
  const edgeIndex = new Map<number, number>();
  const edges: EdgeAcc[] = [];
  const edgeFor = (from: number, to: number): EdgeAcc => {
    const key = from * n + to;
    let idx = edgeIndex.get(key);
    if (idx === undefined) {
      idx = edges.length;
      edgeIndex.set(key, idx);
      edges.push({ from, to, conditional: false, risks: [], riskNames: null });
    }
    return edges[idx] as EdgeAcc;
  };

  graphs.forEach((g, gi) => {
    const local = localIds[gi] as Int32Array;
    for (const [a, b] of g.edges) edgeFor(local[a] as number, local[b] as number);
  });
  for (const g of graphs) {
    for (const pair of g.conditionalPairs) {
      const from = ids.get(pair.from);
      const to = ids.get(pair.to);
      if (from === undefined || to === undefined) continue;
      const e = edgeFor(from, to);
      e.conditional = true;
      e.riskNames ??= new Set();
      for (const r of pair.risks) {
        if (e.riskNames.has(r.name)) continue;
        e.riskNames.add(r.name);
        e.risks.push(r);
      }
    }
  }

  const mergedNodes: GraphNode[] = nodes.map((a) => ({
    version: a.version,
    payload: a.payload,
    channels: a.channels,
    hasChannelMetadata: a.hasChannelMetadata,
  }));
  const mergedEdges: MergedEdge[] = edges.map((e) => ({
    from: (nodes[e.from] as NodeAcc).version,
    to: (nodes[e.to] as NodeAcc).version,
    conditional: e.conditional,
    risks: e.risks,
  }));
  return { sources: graphs.map((g) => g.source), nodes: mergedNodes, edges: mergedEdges };
}
