/** Types of the upgrade-path domain (contracts/path.md). Pure data; no behaviour. */

/** Node metadata key listing the channels a release is in (comma-separated). */
export const CHANNELS_METADATA_KEY = 'io.openshift.upgrades.graph.release.channels';

/** A risk attached to a conditional edge, as printed (PromQL matching rules are dropped). */
export interface Risk {
  readonly name: string;
  readonly message: string;
  readonly url: string;
}

/** One release node of a parsed graph document; `version` carries no build suffix. */
export interface GraphNode {
  readonly version: string;
  readonly payload: string;
  /** Channels from the node metadata, in document order, without duplicates. */
  readonly channels: readonly string[];
  /** Whether the node had the channels metadata key at all. */
  readonly hasChannelMetadata: boolean;
}

/** A conditional (version) pair with its risks, as read from `conditionalEdges`. */
export interface ConditionalPair {
  readonly from: string;
  readonly to: string;
  readonly risks: readonly Risk[];
}

/** A validated Cincinnati v1 document, versions normalized. */
export interface ParsedGraph {
  /** Where it came from (file name), for messages. */
  readonly source: string;
  readonly nodes: readonly GraphNode[];
  /** Unconditional edges as [fromIndex, toIndex] into `nodes`. */
  readonly edges: readonly (readonly [number, number])[];
  readonly conditionalPairs: readonly ConditionalPair[];
}

/** An edge of the merged graph between two versions. */
export interface MergedEdge {
  readonly from: string;
  readonly to: string;
  /** Listed in `conditionalEdges` of any document (possibly also in `edges`). */
  readonly conditional: boolean;
  /** Risks of the pair, de-duplicated by name, first appearance first. */
  readonly risks: readonly Risk[];
}

/** Several documents merged: nodes by version, edges by (from, to) pair. */
export interface MergedGraph {
  readonly sources: readonly string[];
  readonly nodes: readonly GraphNode[];
  readonly edges: readonly MergedEdge[];
}

export type GraphParseResult =
  { readonly ok: true; readonly graph: ParsedGraph } | { readonly ok: false; readonly source: string; readonly error: string };

/** One release of a path: what a mirror must hold. */
export interface PathRelease {
  readonly version: string;
  readonly payload: string;
}

/** Risks accepted by one conditional hop of a path. */
export interface HopRisks {
  readonly from: string;
  readonly to: string;
  readonly risks: readonly Risk[];
}

export type NoPathReason = 'SOURCE_NOT_IN_CHANNEL' | 'TARGET_NOT_IN_CHANNEL' | 'ONLY_CONDITIONAL' | 'UNREACHABLE';

export const NO_PATH_REASONS: readonly NoPathReason[] = [
  'SOURCE_NOT_IN_CHANNEL',
  'TARGET_NOT_IN_CHANNEL',
  'ONLY_CONDITIONAL',
  'UNREACHABLE',
];

export interface PathQuery {
  /** Source version (build suffix allowed). */
  readonly from: string;
  /** Target version; default: the highest version of the (filtered) graph. */
  readonly to?: string | null;
  /** Keep only nodes in this channel (ignored when no node has channel metadata). */
  readonly channel?: string | null;
  /** Walk conditional edges too, reporting the risks of each conditional hop taken. */
  readonly allowConditional: boolean;
}

/** A path was found (exit 0). Field order is the JSON output order. */
export interface PathFound {
  readonly from: string;
  readonly to: string;
  readonly channel: string | null;
  readonly path: readonly string[];
  readonly hops: number;
  readonly releases: readonly PathRelease[];
  readonly risks: readonly HopRisks[];
}

/** No path (exit 3). `conditionalPath` only with reason ONLY_CONDITIONAL. */
export interface PathNotFound {
  readonly from: string;
  /** The explicit target, else the default target (null when the source check failed first or the graph is empty). */
  readonly to: string | null;
  readonly channel: string | null;
  readonly path: null;
  readonly hops: null;
  readonly releases: readonly [];
  readonly risks: readonly HopRisks[];
  readonly reason: NoPathReason;
  readonly message: string;
  readonly conditionalPath?: readonly string[];
}

/** The contract's JSON answer as a value; discriminate with `path === null` or `isPathFound`. */
export type PathAnswer = PathFound | PathNotFound;

export function isPathFound(answer: PathAnswer): answer is PathFound {
  return answer.path !== null;
}
