import { minorLabel, normalizeVersion, parseVersion } from '../version/version';
import type { Risk } from './types';
import { channelMask, type GraphIndex } from './update-graph-index';

/** Nodes drawn at most besides the path: the page stays responsive with any graph. */
export const VIEW_MAX_NODES = 400;
/** Successors drawn for each path node besides the path's own edge. */
export const VIEW_NEIGHBOURS_PER_PATH_NODE = 6;
/** Conditional edges into or out of the path drawn at most. */
export const VIEW_MAX_CONDITIONAL_EDGES = 40;

export interface GraphViewInput {
  channel?: string | null;
  /** Versions to highlight, in order (the path, or the conditional path). */
  path?: string[];
  from?: string | null;
  to?: string | null;
}

export interface GraphViewNode {
  version: string;
  minor: string;
  onPath: boolean;
}

export interface GraphViewEdge {
  from: string;
  to: string;
  conditional: boolean;
  onPath: boolean;
  risks: Risk[];
}

export interface GraphView {
  nodes: GraphViewNode[];
  edges: GraphViewEdge[];
  /** Minors of the drawn nodes, oldest first (`4.12`). */
  minors: string[];
  /** Whether nodes were left out to stay under VIEW_MAX_NODES. */
  capped: boolean;
  totals: { nodes: number; edges: number };
  omitted: { nodes: number; edges: number };
}

/** The view when no graph is stored. */
export function emptyGraphView(): GraphView {
  return { nodes: [], edges: [], omitted: { nodes: 0, edges: 0 }, totals: { nodes: 0, edges: 0 }, minors: [], capped: false };
}

/** `major * 1000 + minor`, a number that orders minors. */
function minorKey(p: { major: number; minor: number }): number {
  return p.major * 1000 + p.minor;
}

/**
 * A compact graph for drawing: the channel's releases of the minors the path spans (all of the
 * channel when there is no path, capped), the path's edges, the highest few successors of each
 * path node, one "highest successor" edge per other node (the graph's spine), and a capped number
 * of conditional edges. Says how much was left out.
 */
export function buildGraphView(index: GraphIndex, input: GraphViewInput): GraphView {
  const mask = channelMask(index, input.channel);
  const path = (input.path ?? []).map((v) => normalizeVersion(v) ?? v);
  const pathIds = path.map((v) => index.idOf.get(v)).filter((id): id is number => id !== undefined);
  const ends = [input.from, input.to, ...path].map((v) => (v ? parseVersion(v.trim()) : null)).filter((p) => p !== null);
  const lo = ends.length ? Math.min(...ends.map(minorKey)) : null;
  const hi = ends.length ? Math.max(...ends.map(minorKey)) : null;

  const inChannel = (id: number) => mask === null || mask[id] === 1;
  let channelTotal = 0;
  let shown: number[] = [];
  for (let id = index.size - 1; id >= 0; id--) {
    if (!inChannel(id)) continue;
    channelTotal++;
    const k = minorKey(index.parsed[id]!);
    if (lo !== null && hi !== null && (k < lo || k > hi)) continue;
    shown.push(id);
  }
  for (const id of pathIds) if (!shown.includes(id)) shown.push(id);
  let capped = false;
  if (shown.length > VIEW_MAX_NODES) {
    // Keep the path and the newest releases.
    const keep = new Set(pathIds);
    const rest = shown.filter((id) => !keep.has(id)).sort((a, b) => a - b);
    shown = [...keep, ...rest.slice(0, VIEW_MAX_NODES - keep.size)];
    capped = true;
  }
  const shownSet = new Set(shown);
  const onPathEdge = new Set<string>();
  for (let i = 0; i + 1 < pathIds.length; i++) onPathEdge.add(`${pathIds[i]}>${pathIds[i + 1]}`);
  const pathSet = new Set(pathIds);

  const edges = new Map<string, GraphViewEdge>();
  let conditionalCount = 0;
  let shownTotalEdges = 0;
  const addEdge = (a: number, b: number, cond: boolean) => {
    const key = `${a}>${b}`;
    if (edges.has(key)) return;
    edges.set(key, {
      from: index.versions[a] as string,
      to: index.versions[b] as string,
      conditional: cond,
      onPath: onPathEdge.has(key),
      risks: cond ? [...(index.risks.get(a * index.size + b) ?? [])] : [],
    });
  };
  for (const a of shown) {
    let neighbours = 0;
    let spine = false;
    for (let k = index.outStart[a] as number; k < (index.outStart[a + 1] as number); k++) {
      const entry = index.outList[k] as number;
      const b = entry >> 1;
      const cond = (entry & 1) === 1;
      if (!shownSet.has(b)) continue;
      shownTotalEdges++;
      const key = `${a}>${b}`;
      if (onPathEdge.has(key)) addEdge(a, b, cond);
      else if (pathSet.has(a) && neighbours < VIEW_NEIGHBOURS_PER_PATH_NODE) {
        neighbours++;
        addEdge(a, b, cond);
      } else if (cond && (pathSet.has(a) || pathSet.has(b)) && conditionalCount < VIEW_MAX_CONDITIONAL_EDGES) {
        // Conditional updates into or out of the path: the risky alternatives worth seeing.
        conditionalCount++;
        addEdge(a, b, cond);
      } else if (!spine && !cond) {
        // Successors are sorted newest first: the first is this node's highest update.
        spine = true;
        addEdge(a, b, cond);
      }
    }
  }
  const nodes: GraphViewNode[] = shown.map((id) => ({
    version: index.versions[id] as string,
    minor: minorLabel(index.versions[id] as string) ?? '?',
    onPath: pathSet.has(id),
  }));
  const minors = [...new Set(nodes.map((n) => n.minor))].sort((a, b) => {
    const [am, an] = a.split('.').map(Number);
    const [bm, bn] = b.split('.').map(Number);
    return (am ?? 0) - (bm ?? 0) || (an ?? 0) - (bn ?? 0);
  });
  return {
    nodes,
    edges: [...edges.values()],
    minors,
    capped,
    totals: { nodes: channelTotal, edges: shownTotalEdges },
    omitted: { nodes: channelTotal - nodes.length, edges: shownTotalEdges - edges.size },
  };
}
