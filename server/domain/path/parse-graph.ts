import { MAX_GRAPH_BYTES } from '@/lib/graph-document-limit';
import { parseJsonText, type ParseLimits } from '../bounded-parse';
import { normalizeVersion } from '../version/version';
import { CHANNELS_METADATA_KEY, type ConditionalPair, type GraphNode, type GraphParseResult, type Risk } from './types';

type Json = unknown;

function isObject(v: Json): v is Record<string, Json> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function describe(v: Json): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  return typeof v === 'object' ? 'an object' : `a ${typeof v}`;
}

function show(v: Json): string {
  const s = JSON.stringify(v) ?? String(v);
  return s.length > 80 ? `${s.slice(0, 77)}...` : s;
}

/** Splits the comma-separated channels metadata value: trimmed, empty names and duplicates dropped. */
export function splitChannels(value: string): string[] {
  const out: string[] = [];
  for (const raw of value.split(',')) {
    const name = raw.trim();
    if (name && !out.includes(name)) out.push(name);
  }
  return out;
}

class GraphError extends Error {}

function fail(message: string): never {
  throw new GraphError(message);
}

function parseRisk(v: Json, where: string): Risk {
  if (!isObject(v)) fail(`${where}: expected a risk object, got ${describe(v)}`);
  const { name, message, url } = v;
  if (typeof name !== 'string' || name === '') fail(`${where}: risk without a "name" string`);
  return {
    name,
    message: typeof message === 'string' ? message : '',
    url: typeof url === 'string' ? url : '',
  };
}

function parseConditionalGroups(v: Json): ConditionalPair[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) fail(`"conditionalEdges" is ${describe(v)}, expected an array`);
  const pairs: ConditionalPair[] = [];
  v.forEach((group: Json, g) => {
    const where = `conditionalEdges[${g}]`;
    if (!isObject(group)) fail(`${where}: expected an object, got ${describe(group)}`);
    const edges = group.edges ?? [];
    const risksJson = group.risks ?? [];
    if (!Array.isArray(edges)) fail(`${where}.edges is ${describe(edges)}, expected an array`);
    if (!Array.isArray(risksJson)) fail(`${where}.risks is ${describe(risksJson)}, expected an array`);
    const risks = risksJson.map((r: Json, i) => parseRisk(r, `${where}.risks[${i}]`));
    edges.forEach((e: Json, i) => {
      if (!isObject(e) || typeof e.from !== 'string' || typeof e.to !== 'string') {
        fail(`${where}.edges[${i}]: expected {"from": VERSION, "to": VERSION}, got ${show(e)}`);
      }
      const from = normalizeVersion(e.from);
      const to = normalizeVersion(e.to);
      // A pair naming something that is not a (SemVer) node is ignored, like any unknown version.
      if (from && to) pairs.push({ from, to, risks });
    });
  });
  return pairs;
}

function parseNodes(v: Json): GraphNode[] {
  if (!Array.isArray(v)) {
    fail(v === undefined ? 'not a graph document: no "nodes" array' : `"nodes" is ${describe(v)}, expected an array`);
  }
  return v.map((n: Json, i): GraphNode => {
    const where = `nodes[${i}]`;
    if (!isObject(n)) fail(`${where}: expected an object, got ${describe(n)}`);
    if (typeof n.version !== 'string') fail(`${where}: "version" is ${describe(n.version)}, expected a string`);
    const version = normalizeVersion(n.version);
    if (!version) fail(`${where}: version ${JSON.stringify(n.version)} is not SemVer (MAJOR.MINOR.PATCH[-PRE][+BUILD])`);
    if (n.payload !== undefined && n.payload !== null && typeof n.payload !== 'string') {
      fail(`${where} (${version}): "payload" is ${describe(n.payload)}, expected a string`);
    }
    const metadata = n.metadata ?? {};
    if (!isObject(metadata)) fail(`${where} (${version}): "metadata" is ${describe(metadata)}, expected an object`);
    const rawChannels = metadata[CHANNELS_METADATA_KEY];
    if (rawChannels !== undefined && typeof rawChannels !== 'string') {
      fail(`${where} (${version}): metadata ${CHANNELS_METADATA_KEY} is ${describe(rawChannels)}, expected a string`);
    }
    return {
      version,
      payload: typeof n.payload === 'string' ? n.payload : '',
      channels: rawChannels === undefined ? [] : splitChannels(rawChannels),
      hasChannelMetadata: rawChannels !== undefined,
    };
  });
}

function parseEdges(v: Json, nodeCount: number): [number, number][] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) fail(`"edges" is ${describe(v)}, expected an array`);
  const checkIndex = (x: Json, e: Json, i: number) => {
    if (typeof x !== 'number' || !Number.isInteger(x)) {
      fail(`edges[${i}] ${show(e)}: ${show(x)} is not an integer node index`);
    }
    if (x < 0 || x >= nodeCount) {
      fail(`edges[${i}] ${show(e)}: node index ${x} is out of range (the document has ${nodeCount} nodes, 0..${nodeCount - 1})`);
    }
  };
  const out = new Array<[number, number]>(v.length);
  for (let i = 0; i < v.length; i++) {
    const e: Json = v[i];
    if (!Array.isArray(e) || e.length !== 2) fail(`edges[${i}]: expected [FROM_INDEX, TO_INDEX], got ${show(e)}`);
    // Each end checked in turn, without a temporary array per edge (large graphs have 80k edges).
    checkIndex(e[0], e, i);
    checkIndex(e[1], e, i);
    out[i] = [e[0] as number, e[1] as number];
  }
  return out;
}

/**
 * Graph documents are big and flat: a real channel graph (thousands of releases, tens of
 * thousands of edges) is a few MB and under a million values; nothing in it nests deeply.
 */
export const GRAPH_LIMITS: ParseLimits = {
  maxBytes: MAX_GRAPH_BYTES,
  maxDepth: 32,
  maxNodes: 5_000_000,
  maxAliases: 0,
  maxExpansion: 5,
};

/**
 * Validates a Cincinnati v1 graph document (`{version, nodes, edges, conditionalEdges}`).
 * Build suffixes are stripped from every version; unknown top-level keys are ignored.
 * Never throws: a broken document yields `{ ok: false, error }` saying what is wrong.
 * @see https://github.com/openshift/cincinnati/blob/master/docs/design/cincinnati.md
 */
export function parseGraphDocument(text: string, source: string): GraphParseResult {
  if (text.trim() === '') return { ok: false, source, error: 'empty file, not a graph document' };
  const parsed = parseJsonText(text, GRAPH_LIMITS);
  if (!parsed.ok) {
    const { path, message } = parsed.problems[0] ?? { path: '(document)', message: 'unreadable' };
    const syntax = /^invalid JSON: /.exec(message);
    return { ok: false, source, error: syntax ? `not JSON (${path}): ${message.slice(syntax[0].length)}` : `refused: ${message}` };
  }
  return parseGraphValue(parsed.value, source);
}

/** Like `parseGraphDocument`, for a document already parsed from JSON (e.g. fetched). */
export function parseGraphValue(doc: Json, source: string): GraphParseResult {
  try {
    if (!isObject(doc)) fail(`not a graph document: the top level is ${describe(doc)}, expected an object`);
    if (doc.version !== undefined && doc.version !== 1) {
      fail(`unsupported graph document version ${show(doc.version)} (expected 1)`);
    }
    const nodes = parseNodes(doc.nodes);
    const edges = parseEdges(doc.edges, nodes.length);
    const conditionalPairs = parseConditionalGroups(doc.conditionalEdges);
    return { ok: true, graph: { source, nodes, edges, conditionalPairs } };
  } catch (err) {
    if (err instanceof GraphError) return { ok: false, source, error: err.message };
    throw err;
  }
}
