// Builders for tests: small Cincinnati documents and ready-made indexes.
import { buildGraphIndex, type GraphIndex } from './update-graph-index';
import { mergeGraphs } from './merge-graphs';
import { parseGraphDocument } from './parse-graph';
import { CHANNELS_METADATA_KEY, type ParsedGraph } from './types';

export interface GraphSpec {
  /** `version` or `[version, channels]`; channels `null` = no metadata. */
  nodes: (string | [string, string[] | null])[];
  /** Unconditional edges by version. */
  edges?: [string, string][];
  /** Conditional pairs by version with risk names. */
  conditional?: { from: string; to: string; risks: string[] }[];
  payloadPrefix?: string;
}

export function makeGraphText(spec: GraphSpec): string {
  const nodes = spec.nodes.map((n) => {
    const [version, channels] = typeof n === 'string' ? [n, null] : n;
    return {
      version,
      payload: `${spec.payloadPrefix ?? 'quay.io/x'}@${version}`,
      metadata: channels ? { [CHANNELS_METADATA_KEY]: channels.join(',') } : {},
    };
  });
  const idx = (v: string) => {
    const i = nodes.findIndex((n) => n.version === v);
    if (i < 0) throw new Error(`no node ${v}`);
    return i;
  };
  return JSON.stringify({
    version: 1,
    nodes,
    edges: (spec.edges ?? []).map(([a, b]) => [idx(a), idx(b)]),
    conditionalEdges: (spec.conditional ?? []).map((c) => ({
      edges: [{ from: c.from, to: c.to }],
      risks: c.risks.map((name) => ({ name, message: `${name} message`, url: `https://example.com/${name}`, matchingRules: [] })),
    })),
  });
}

export function makeParsed(spec: GraphSpec, source = 'test.json'): ParsedGraph {
  const r = parseGraphDocument(makeGraphText(spec), source);
  if (!r.ok) throw new Error(r.error);
  return r.graph;
}

export function makeIndex(...specs: GraphSpec[]): GraphIndex {
  return buildGraphIndex(mergeGraphs(specs.map((s, i) => makeParsed(s, `g${i}.json`))));
}
