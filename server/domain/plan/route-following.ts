/**
 * Multi-minor runs follow the path solver (beyond the reference upgrade service). When a cluster's
 * effective target (its lowest `targetVersion`, version-bounds.ts) is more than one minor ahead of
 * it — or one minor ahead while its channel ends below the target's minor, the last hop of such a
 * run — the engine does not climb greedily: the only candidate is the next hop of the solver's route
 * (server/domain/path/solve-upgrade-path.ts) from the cluster's version to the target over the
 * stored update graph — so a run never lands on a dead-end intermediate from which the target is
 * unreachable. A target one minor away or less, a cluster without a target, or no stored graph:
 * nothing changes.
 *
 * The route is solved over the whole stored graph (every channel): crossing minors usually needs
 * another channel (`stable-4.15`, `eus-4.16`), and the hop names the channel to switch to when the
 * cluster's own channel does not hold the hop's release. Pure: the graph index comes in.
 *
 * Blocked releases (the cluster's merged blocked versions, blocked-versions.ts) are avoided as one
 * would by hand: the route passes none of them and ends on an unblocked release when such a route
 * exists, however much longer. Only when every route passes one does the cluster wait
 * (VERSION_BLOCKED) on the best route over the whole graph, naming its first blocked release
 * (`blockedHop`): it does not climb onto a route it could not finish.
 */
import { solveUpgradePath } from '@/server/domain/path/solve-upgrade-path';
import { isPathFound } from '@/server/domain/path/types';
import type { GraphIndex, NodeBits } from '@/server/domain/path/update-graph-index';
import { parseChannelName } from '../version/channel-names';
import { compareVersions, parseVersion } from '../version/version';
import { withinBound, type AppliedBound, type VersionBound } from './version-bounds';

/** The route a cluster follows: from its version to its target, and the hop the engine may take now. */
export type Route = {
  kind: 'route';
  /** the solver's path, the cluster's version first, the target last */
  path: readonly string[];
  target: string;
  /** the only candidate the engine may choose this run */
  nextHop: string;
  /** the channel to switch the cluster to before the hop; null when its own channel holds the hop */
  channel: string | null;
  /**
   * Every route to the target passes a blocked release: this is the best one over the whole graph
   * and its first blocked release (with the pattern that blocks it). Nothing is taken meanwhile.
   */
  blockedHop?: { version: string; by: string };
};

/** The releases blocked for a cluster (blocked-versions.ts `blockedReleasesFor`): routes avoid them. */
export type BlockedReleases = {
  /** what the blocks depend on (their patterns): routes are memoized per key */
  readonly key: string;
  /** the pattern that blocks `version`, described; undefined when none does */
  by: (version: string) => string | undefined;
};

/** The target is more than one minor away but the stored graph has no way there: nothing is taken. */
export type NoRoute = { kind: 'no-route'; target: string; message: string };

export type RouteVerdict = Route | NoRoute;

/** Per cluster (version, channel, bounds): its route, or null when route-following does not apply. */
export interface RouteFinder {
  (cluster: { version: string; channel?: string }, bounds: readonly AppliedBound[], blocked?: BlockedReleases): RouteVerdict | null;
  /**
   * The releases the graph recommends from `version` (its unconditional successors, highest
   * first), or null when the graph does not hold it: what a cluster that took a hop into another
   * channel is offered next (the forecast's stand-in for the provider's list).
   */
  successors(version: string): string[] | null;
}

/** `4.14.38 → 4.15.45 → 4.16.20` */
export function describeRoutePath(path: readonly string[]): string {
  return path.join(' → ');
}

/** The why-not line of a route: `on the route 4.14.38 → 4.15.45 → 4.16.20; next hop 4.15.45` (and its channel switch). */
export function describeRoute(route: Route): string {
  if (route.blockedHop) return describeBlockedRoute(route, route.blockedHop);
  const channel = route.channel ? ` (switching the channel to ${route.channel} first)` : '';
  return `on the route ${describeRoutePath(route.path)}; next hop ${route.nextHop}${channel}`;
}

/** Why a cluster whose every route passes a blocked release waits: the best route and its blocked release. */
function describeBlockedRoute(route: Route, blocked: { version: string; by: string }): string {
  return `every route to ${route.target} passes a blocked release: ${blocked.version} is blocked (${blocked.by}) on the best route ${describeRoutePath(route.path)}`;
}

/** The lowest of the target bounds (they all apply, the lowest wins), or undefined without one. */
export function effectiveTarget(bounds: readonly AppliedBound[]): VersionBound | undefined {
  return lowestOf(bounds.filter((b) => b.kind === 'targetVersion'));
}

/**
 * Where a cluster with a target stops: its lowest bound, targets and caps alike (a cap below the
 * target stops it first, as the engine never passes a cap); undefined without a target.
 */
export function effectiveStop(bounds: readonly AppliedBound[]): VersionBound | undefined {
  return effectiveTarget(bounds) === undefined ? undefined : lowestOf(bounds);
}

function lowestOf(bounds: readonly AppliedBound[]): VersionBound | undefined {
  let best: VersionBound | undefined;
  for (const b of bounds) if (best === undefined || lowerBound(b.bound, best)) best = b.bound;
  return best;
}

/** Whether bound `a` stops lower than bound `b` (a minor bound stops at its last release). */
function lowerBound(a: VersionBound, b: VersionBound): boolean {
  const [am, an] = minorOfBound(a);
  const [bm, bn] = minorOfBound(b);
  if (am !== bm || an !== bn) return am < bm || (am === bm && an < bn);
  if (a.kind === 'release' && b.kind === 'release') return compareVersions(a.version, b.version) < 0;
  return a.kind === 'release';
}

function minorOfBound(b: VersionBound): [number, number] {
  if (b.kind === 'minor') return [b.major, b.minor];
  const v = parseVersion(b.version)!;
  return [v.major, v.minor];
}

/** Minors from `version` to the bound (same major only; null across majors or for a non-release). */
export function minorsAway(version: string, bound: VersionBound): number | null {
  const v = parseVersion(version);
  if (!v) return null;
  const [major, minor] = minorOfBound(bound);
  return major === v.major ? minor - v.minor : null;
}

/**
 * The channel to be on for a hop to `hop`: none when the cluster's channel holds it; otherwise one
 * of the hop's channels of the cluster's own kind (eus stays eus, fast stays fast; stable when the
 * cluster names none), the nearest minor at or above the hop's (`stable-4.15` for 4.15.45,
 * `eus-4.16` for an EUS cluster's 4.15 hop); else the nearest channel of any kind. Null when the
 * graph carries no channel metadata (nothing to switch to).
 */
export function channelForHop(hopChannels: readonly string[], hop: string, current: string | undefined): string | null {
  if (hopChannels.length === 0) return null;
  if (current !== undefined && hopChannels.includes(current)) return null;
  const v = parseVersion(hop);
  if (!v) return null;
  const kind = (current !== undefined ? parseChannelName(current)?.prefix : undefined) ?? 'stable';
  const ranked = hopChannels
    .map((name) => ({ name, parsed: parseChannelName(name) }))
    .filter((c) => c.parsed !== null && c.parsed.major === v.major && c.parsed.minor >= v.minor)
    .sort(
      (a, b) =>
        Number(a.parsed!.prefix !== kind) - Number(b.parsed!.prefix !== kind) ||
        a.parsed!.minor - b.parsed!.minor ||
        (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
    );
  return ranked[0]?.name ?? null;
}

/**
 * Whether the cluster's channel ends below the stop's minor (`stable-4.14` for a 4.15 target): then
 * even a target one minor away is never offered without a switch, so the last hop of a route
 * follows the route too. An unnamed or unknown channel: no.
 */
function channelBelow(channel: string | undefined, stop: VersionBound): boolean {
  const c = channel === undefined ? null : parseChannelName(channel);
  if (!c) return false;
  const [major, minor] = minorOfBound(stop);
  return c.major === major && c.minor < minor;
}

/** How many of the target minor's releases are tried (highest first) before giving up: a dead end at the top of the minor is rare. */
const TARGET_TRIES = 25;

/**
 * A route finder over one stored graph. Memoized per (version, channel, bounds): a fleet has few
 * distinct versions, and the index is immutable, so the finder can live as long as the graph set.
 */
export function routeFinder(index: GraphIndex): RouteFinder {
  const memo = new Map<string, RouteVerdict | null>();
  const avoidMemo = new Map<string, NodeBits | null>();
  /** The graph's releases blocked for the cluster as bits (null: none of them is). */
  const avoidOf = (blocked: BlockedReleases): NodeBits | null => {
    if (avoidMemo.has(blocked.key)) return avoidMemo.get(blocked.key)!;
    const bits = new Int32Array((index.size + 31) >>> 5);
    let any = false;
    for (let id = 0; id < index.size; id++) {
      if (blocked.by(index.versions[id]!) === undefined) continue;
      bits[id >>> 5]! |= 1 << (id & 31);
      any = true;
    }
    // bounded: the keys follow the blocked-version lists operators edit
    if (avoidMemo.size > 1000) avoidMemo.clear();
    avoidMemo.set(blocked.key, any ? bits : null);
    return any ? bits : null;
  };
  const successors = (version: string): string[] | null => {
    const id = index.idOf.get(version);
    if (id === undefined) return null;
    const out: string[] = [];
    for (let k = index.outStart[id]!; k < index.outStart[id + 1]!; k++) {
      const entry = index.outList[k]!;
      if ((entry & 1) === 0) out.push(index.versions[entry >> 1]!);
    }
    return out;
  };
  const find = (
    cluster: { version: string; channel?: string },
    bounds: readonly AppliedBound[],
    blocked?: BlockedReleases,
  ): RouteVerdict | null => {
    const stop = effectiveStop(bounds);
    if (!stop) return null;
    const away = minorsAway(cluster.version, stop);
    if (away === null || away < 1 || (away === 1 && !channelBelow(cluster.channel, stop))) return null;
    const key = `${cluster.version}\u0000${cluster.channel ?? ''}\u0000${bounds.map((b) => `${b.kind}=${b.bound.raw}`).join(',')}\u0000${blocked?.key ?? ''}`;
    if (memo.has(key)) return memo.get(key)!;
    const avoid = blocked ? avoidOf(blocked) : null;
    const verdict = solveRoute(index, cluster, stop, bounds, avoid === null ? null : { bits: avoid, by: blocked!.by });
    if (memo.size > 100_000) memo.clear();
    memo.set(key, verdict);
    return verdict;
  };
  return Object.assign(find, { successors });
}

function solveRoute(
  index: GraphIndex,
  cluster: { version: string; channel?: string },
  stop: VersionBound,
  bounds: readonly AppliedBound[],
  blocked: { bits: NodeBits; by: BlockedReleases['by'] } | null,
): RouteVerdict | null {
  // a cluster whose own version the graph does not know is not routed (a graph of other channels, or none yet)
  if (!index.idOf.has(cluster.version)) return null;
  // the releases the route may end on: the target release itself when it is where the cluster
  // stops, else the stop's minor within every bound, highest first (ids ascend as versions descend)
  const exact = stop.kind === 'release' && bounds.some((b) => b.kind === 'targetVersion' && b.bound === stop);
  const [major, minor] = minorOfBound(stop);
  const targets: string[] = [];
  for (let id = 0; id < index.size && targets.length < TARGET_TRIES; id++) {
    const v = index.versions[id]!;
    const p = index.parsed[id]!;
    // a pre-release is never a place to stop (an exact target names one explicitly)
    if (p.major !== major || p.minor !== minor || (p.prerelease.length > 0 && !exact)) continue;
    if (!bounds.every((b) => withinBound(v, b.bound))) continue;
    if (exact && v !== (stop as { version: string }).version) continue;
    targets.push(v);
  }
  if (targets.length === 0) {
    return {
      kind: 'no-route',
      target: stop.raw,
      message: `the stored update graph holds no release of ${stop.raw} within the cluster's bounds`,
    };
  }
  const routeOver = (path: readonly string[], to: string): Route => {
    const nextHop = path[1]!;
    const hopId = index.idOf.get(nextHop)!;
    return { kind: 'route', path, target: to, nextHop, channel: channelForHop(index.channels[hopId] ?? [], nextHop, cluster.channel) };
  };
  // first around the blocked releases, to an unblocked target
  if (blocked) {
    for (const to of targets) {
      if (blocked.by(to) !== undefined) continue;
      const answer = solveUpgradePath(index, { from: cluster.version, to, channel: null, allowConditional: false }, blocked.bits);
      if (isPathFound(answer)) return routeOver(answer.path, to);
    }
  }
  // every route passes a blocked release (or none is blocked): the best route over the whole graph
  let firstFailure: string | undefined;
  for (const to of targets) {
    const answer = solveUpgradePath(index, { from: cluster.version, to, channel: null, allowConditional: false });
    if (isPathFound(answer)) {
      const route = routeOver(answer.path, to);
      if (!blocked) return route;
      for (const v of answer.path.slice(1)) {
        const by = blocked.by(v);
        if (by !== undefined) return { ...route, blockedHop: { version: v, by } };
      }
      return route;
    }
    firstFailure ??= answer.message;
  }
  return { kind: 'no-route', target: targets[0]!, message: firstFailure ?? `no update path from ${cluster.version} to ${stop.raw}` };
}
