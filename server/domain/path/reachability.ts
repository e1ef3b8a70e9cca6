/**
 * Which nodes can reach which: the transitive closure of a graph given as CSR adjacency (the
 * layout of `GraphIndex`: entries `neighbour * 2 + (conditional ? 1 : 0)`).
 *
 * Why: a query whose target cannot be reached at all would otherwise cost a breadth-first search
 * over every ancestor of the target (twice without `--allow-conditional`: once for the path, once
 * for ONLY_CONDITIONAL). With the closure such a query is answered by one bit test, and a search
 * that does run can skip every node the source cannot reach.
 *
 * Method: strongly connected components (Tarjan, iterative; skipped when every edge goes to a newer
 * release, the usual case), then one bit row per component, filled sinks first: a component
 * reaches its own members and whatever its successor components reach. O(V + E * V / 32) time at
 * worst, far less on update graphs (see `buildReachability`); V * V / 8 bytes at most.
 */
export interface Reachability {
  /** Component of each node; nodes of one component reach each other. */
  readonly componentOf: Int32Array;
  /** 32-bit words per row. */
  readonly words: number;
  /**
   * Row `c` (words `c * words ..`) holds a bit for every node that component `c` reaches; node `v`
   * is bit `v & 31` of word `v >>> 5` (`NodeBits` in update-graph-index.ts).
   */
  readonly rows: Int32Array;
}

/**
 * Above this many nodes the closure is not built (its rows would take over 8 MiB); searches then
 * run unpruned, which is still correct. Real update graphs hold a few thousand releases at most.
 */
export const REACHABILITY_MAX_NODES = 8192;

const UNVISITED = -1;

/**
 * Numbers the strongly connected components in the order Tarjan's algorithm closes them: every
 * component reachable from component `c` has a number below `c`.
 */
function stronglyConnectedComponents(size: number, outStart: Int32Array, outList: Int32Array) {
  const componentOf = new Int32Array(size);
  const order = new Int32Array(size).fill(UNVISITED);
  const low = new Int32Array(size);
  const onStack = new Uint8Array(size);
  const stack = new Int32Array(size);
  const callNode = new Int32Array(size);
  const callEdge = new Int32Array(size);
  let stackTop = 0;
  let callTop = 0;
  let visited = 0;
  let components = 0;
  const enter = (v: number) => {
    order[v] = low[v] = visited++;
    stack[stackTop++] = v;
    onStack[v] = 1;
    callNode[callTop] = v;
    callEdge[callTop++] = outStart[v] as number;
  };
  for (let root = 0; root < size; root++) {
    if (order[root] !== UNVISITED) continue;
    enter(root);
    while (callTop > 0) {
      const v = callNode[callTop - 1] as number;
      const k = callEdge[callTop - 1] as number;
      if (k < (outStart[v + 1] as number)) {
        callEdge[callTop - 1] = k + 1;
        const w = (outList[k] as number) >> 1;
        if (order[w] === UNVISITED) enter(w);
        else if (onStack[w] === 1 && (order[w] as number) < (low[v] as number)) low[v] = order[w] as number;
        continue;
      }
      callTop--;
      if (low[v] === order[v]) {
        let w: number;
        do {
          w = stack[--stackTop] as number;
          onStack[w] = 0;
          componentOf[w] = components;
        } while (w !== v);
        components++;
      }
      if (callTop > 0) {
        const parent = callNode[callTop - 1] as number;
        if ((low[v] as number) < (low[parent] as number)) low[parent] = low[v] as number;
      }
    }
  }
  return { componentOf, components };
}

/**
 * Whether every edge leads to a lower id, i.e. (ids being ranks in descending version order) to a
 * newer release, as updates do. Then the graph has no cycle and every node is its own component,
 * already numbered as `stronglyConnectedComponents` would: successors first.
 */
function edgesGoToLowerIds(size: number, outStart: Int32Array, outList: Int32Array): boolean {
  for (let v = 0; v < size; v++) {
    const end = outStart[v + 1] as number;
    // Neighbours are sorted by ascending id: the last one is the highest.
    if (end > (outStart[v] as number) && (outList[end - 1] as number) >> 1 >= v) return false;
  }
  return true;
}

function eachNodeItsOwnComponent(size: number) {
  const componentOf = new Int32Array(size);
  for (let v = 0; v < size; v++) componentOf[v] = v;
  return { componentOf, components: size };
}

/**
 * The closure over every edge, conditional ones included (it serves searches with and without
 * them: nothing outside it is reachable either way); null when the graph has more than `maxNodes`
 * nodes.
 */
export function buildReachability(
  size: number,
  outStart: Int32Array,
  outList: Int32Array,
  maxNodes: number = REACHABILITY_MAX_NODES,
): Reachability | null {
  if (size > maxNodes) return null;
  const { componentOf, components } = edgesGoToLowerIds(size, outStart, outList)
    ? eachNodeItsOwnComponent(size)
    : stronglyConnectedComponents(size, outStart, outList);
  const words = (size + 31) >>> 5;
  const rows = new Int32Array(components * words);

  // Members of each component, contiguous (counting sort by component).
  const memberStart = new Int32Array(components + 1);
  for (let v = 0; v < size; v++) memberStart[(componentOf[v] as number) + 1]! += 1;
  for (let c = 0; c < components; c++) memberStart[c + 1]! += memberStart[c] as number;
  const fill = memberStart.slice(0, components);
  const members = new Int32Array(size);
  for (let v = 0; v < size; v++) members[fill[componentOf[v] as number]!++] = v;

  // Successor components are numbered lower, so their rows are complete when read. A successor
  // whose bit is already in the row adds nothing (whatever put it there reaches all it reaches), so
  // successors are taken lowest version first: that one usually reaches the others, and most rows
  // are then or-ed only once or twice instead of once per edge.
  for (let c = 0; c < components; c++) {
    const row = c * words;
    for (let m = memberStart[c] as number; m < (memberStart[c + 1] as number); m++) {
      const v = members[m] as number;
      rows[row + (v >>> 5)]! |= 1 << (v & 31);
    }
    for (let m = memberStart[c] as number; m < (memberStart[c + 1] as number); m++) {
      const v = members[m] as number;
      for (let k = (outStart[v + 1] as number) - 1; k >= (outStart[v] as number); k--) {
        const w = (outList[k] as number) >> 1;
        if ((((rows[row + (w >>> 5)] as number) >>> (w & 31)) & 1) === 1) continue;
        const from = (componentOf[w] as number) * words;
        for (let i = 0; i < words; i++) rows[row + i]! |= rows[from + i] as number;
      }
    }
  }
  return { componentOf, words, rows };
}

/** Whether `to` is reachable from `from` (every node reaches itself). */
export function canReach(reach: Reachability, from: number, to: number): boolean {
  const row = (reach.componentOf[from] as number) * reach.words;
  return (((reach.rows[row + (to >>> 5)] as number) >>> (to & 31)) & 1) === 1;
}
