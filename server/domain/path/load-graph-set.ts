import { mergeGraphs } from './merge-graphs';
import { parseGraphDocument } from './parse-graph';
import { buildGraphIndex, type GraphIndex } from './update-graph-index';
import type { ParsedGraph } from './types';

export interface GraphDocumentText {
  readonly source: string;
  readonly text: string;
}

export type GraphSetResult =
  { readonly ok: true; readonly index: GraphIndex } | { readonly ok: false; readonly source: string; readonly error: string };

/**
 * Parses, merges (in the given order: the first document's payloads win) and indexes a set of
 * graph documents. Build once per stored graph set and cache the index; stops at the first
 * broken document.
 */
export function loadGraphSet(documents: readonly GraphDocumentText[]): GraphSetResult {
  const graphs: ParsedGraph[] = [];
  for (const doc of documents) {
    const r = parseGraphDocument(doc.text, doc.source);
    if (!r.ok) return r;
    graphs.push(r.graph);
  }
  return { ok: true, index: buildGraphIndex(mergeGraphs(graphs)) };
}
