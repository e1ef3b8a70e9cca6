import { channelMask, edgeRisks, type GraphIndex } from './update-graph-index';
import { normalizeVersion } from './version';
import type { HopRisks, NoPathReason, PathAnswer, PathNotFound, PathQuery } from './types';

const UNSEEN = -1;

/**
 * Shortest path by ids over the allowed edges, or null.
 *
 * Rules (contracts/path.md): fewest hops; when conditional edges are walked, among those the
 * fewest conditional hops; among the paths left, the highest first intermediate version, then the
 * highest second, and so on (what a BFS visiting successors in descending SemVer order finds).
 *
 * Method: a breadth-first search *backwards* from the target gives each node its distance to the
 * target and the fewest conditional hops among its shortest paths; it stops once the source is
 * dequeued (every node one hop nearer is final by then). A forward walk from the source then takes,
 * at each step, the highest-version successor that keeps both numbers optimal. Cycles are harmless:
 * each node is enqueued once.
 */
function shortestPath(
  index: GraphIndex,
  source: number,
  target: number,
  mask: Uint8Array | null,
  allowConditional: boolean,
): number[] | null {
  if (source === target) return [source];
  const n = index.size;
  const dist = new Int32Array(n).fill(UNSEEN);
  const condHops = new Int32Array(n);
  const queue = new Int32Array(n);
  const { inStart, inList, outStart, outList } = index;
  let head = 0;
  let tail = 0;
  dist[target] = 0;
  queue[tail++] = target;
  let found = false;
  while (head < tail) {
    const v = queue[head++] as number;
    if (v === source) {
      found = true;
      break;
    }
    const dv = (dist[v] as number) + 1;
    const cv = condHops[v] as number;
    const end = inStart[v + 1] as number;
    for (let k = inStart[v] as number; k < end; k++) {
      const entry = inList[k] as number;
      const c = entry & 1;
      if (c === 1 && !allowConditional) continue;
      const p = entry >> 1;
      if (mask !== null && mask[p] === 0) continue;
      const dp = dist[p] as number;
      if (dp === UNSEEN) {
        dist[p] = dv;
        condHops[p] = cv + c;
        queue[tail++] = p;
      } else if (dp === dv && cv + c < (condHops[p] as number)) {
        condHops[p] = cv + c;
      }
    }
  }
  if (!found) return null;

  const path = [source];
  let v = source;
  while (v !== target) {
    const want = (dist[v] as number) - 1;
    const wantCond = condHops[v] as number;
    const end = outStart[v + 1] as number;
    let next = UNSEEN;
    for (let k = outStart[v] as number; k < end; k++) {
      const entry = outList[k] as number;
      const c = entry & 1;
      if (c === 1 && !allowConditional) continue;
      const w = entry >> 1;
      // Successors are sorted by descending version: the first that fits is the highest.
      if (dist[w] === want && (condHops[w] as number) + c === wantCond && (mask === null || mask[w] === 1)) {
        next = w;
        break;
      }
    }
    if (next === UNSEEN) throw new Error('solveUpgradePath: inconsistent search state');
    path.push(next);
    v = next;
  }
  return path;
}

function hopRisks(index: GraphIndex, ids: readonly number[]): HopRisks[] {
  const out: HopRisks[] = [];
  for (let i = 0; i + 1 < ids.length; i++) {
    const a = ids[i] as number;
    const b = ids[i + 1] as number;
    if (!index.risks.has(a * index.size + b)) continue;
    out.push({ from: index.versions[a] as string, to: index.versions[b] as string, risks: edgeRisks(index, a, b) });
  }
  return out;
}

/** Highest version of the (filtered) graph, or -1 when it is empty. */
function defaultTarget(index: GraphIndex, mask: Uint8Array | null): number {
  if (mask === null) return index.size > 0 ? 0 : -1;
  return mask.indexOf(1);
}

function listChannels(channels: readonly string[]): string {
  return channels.length ? channels.join(', ') : 'none';
}

function sourceMessage(index: GraphIndex, from: string, rawFrom: string, channel: string | null, sourceId: number | undefined): string {
  if (normalizeVersion(rawFrom) === null) return `${rawFrom} is not a SemVer version, so no graph holds it.`;
  if (sourceId === undefined) {
    return `${from} is not a release of the update graph (${index.sources.join(', ') || 'no documents'}); it may be a candidate-only or unreleased build.`;
  }
  const chans = index.channels[sourceId] ?? [];
  return `${from} is not in channel ${channel ?? '(none)'}; channels that contain ${from}: ${listChannels(chans)}.`;
}

/**
 * Solves an upgrade path through an indexed update graph (contracts/path.md) and returns the
 * contract's JSON answer as a value: a path (`path` is an array) or `path: null` with a reason,
 * checked in this order: SOURCE_NOT_IN_CHANNEL, TARGET_NOT_IN_CHANNEL, then — when no path uses
 * only the allowed edges — ONLY_CONDITIONAL (with `conditionalPath` chosen by the same rules and
 * its risks) or UNREACHABLE. Never throws for expected outcomes.
 *
 * Tie-breaks: fewest hops; with `allowConditional`, fewest conditional hops among those; then the
 * lexicographically highest sequence of intermediate versions.
 * @see https://github.com/openshift/oc-mirror (BFS over edges, successors in descending SemVer)
 */
export function solveUpgradePath(index: GraphIndex, query: PathQuery): PathAnswer {
  const channel = query.channel ?? null;
  const from = normalizeVersion(query.from) ?? query.from;
  const rawTo = query.to ?? null;
  const mask = channelMask(index, channel);
  const inGraph = (id: number | undefined): id is number => id !== undefined && (mask === null || mask[id] === 1);

  const sourceId = index.idOf.get(from);
  const defaultId = defaultTarget(index, mask);
  const to = rawTo === null ? (defaultId >= 0 ? (index.versions[defaultId] as string) : null) : (normalizeVersion(rawTo) ?? rawTo);

  const noPath = (reason: NoPathReason, message: string, extra: Partial<PathNotFound> = {}): PathNotFound => ({
    from,
    to,
    channel,
    path: null,
    hops: null,
    releases: [],
    risks: [],
    reason,
    message,
    ...extra,
  });

  if (!inGraph(sourceId)) {
    // Checked first: without an explicit --to no target is chosen.
    return { ...noPath('SOURCE_NOT_IN_CHANNEL', sourceMessage(index, from, query.from, channel, sourceId)), to: rawTo === null ? null : to };
  }
  const targetId = to === null ? undefined : index.idOf.get(to);
  if (to === null || !inGraph(targetId)) {
    const where = channel && index.hasChannelMetadata ? `channel ${channel}` : 'the update graph';
    const chans = targetId !== undefined ? ` Channels that contain ${to}: ${listChannels(index.channels[targetId] ?? [])}.` : '';
    return noPath('TARGET_NOT_IN_CHANNEL', `${to ?? 'The target'} is not in ${where}.${chans}`);
  }

  const ids = shortestPath(index, sourceId, targetId, mask, query.allowConditional);
  if (ids) {
    const path = ids.map((id) => index.versions[id] as string);
    return {
      from,
      to,
      channel,
      path,
      hops: ids.length - 1,
      releases: ids.map((id) => ({ version: index.versions[id] as string, payload: index.payloads[id] as string })),
      risks: hopRisks(index, ids),
    };
  }
  if (!query.allowConditional) {
    const condIds = shortestPath(index, sourceId, targetId, mask, true);
    if (condIds) {
      const risks = hopRisks(index, condIds);
      const names = [...new Set(risks.flatMap((h) => h.risks.map((r) => r.name)))];
      return noPath(
        'ONLY_CONDITIONAL',
        `No recommended path from ${from} to ${to}${channel ? ` in ${channel}` : ''}; one exists only through conditional (not recommended) updates with known risks: ${names.join(', ') || 'unnamed'}. Review them and allow conditional updates to take it.`,
        { conditionalPath: condIds.map((id) => index.versions[id] as string), risks },
      );
    }
  }
  const older = sourceId < targetId ? ` ${to} is older than ${from}; updates never go back.` : '';
  return noPath(
    'UNREACHABLE',
    `No update path from ${from} to ${to}${channel ? ` in ${channel}` : ''}${query.allowConditional ? ', even through conditional edges' : ''}.${older}`,
  );
}
