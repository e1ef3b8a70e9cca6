/**
 * YAML for bounded-parse.ts (its limits and problems apply): read by js-yaml (YAML 1.2 core
 * schema: no timestamps, no `<<` merges, no custom tags) at about 100 ms of CPU per MB
 * (bench/parse-bench.ts); it finds duplicate keys with one property look-up per key. A module
 * of its own so that only readers of YAML load js-yaml: `fleetplan plan` on a JSON document
 * starts without it.
 */
import { CORE_SCHEMA, load, YAMLException } from 'js-yaml';
import {
  DOCUMENT_LIMITS,
  DOCUMENT_PATH,
  limitProblem,
  sizeProblem,
  withLimitsChecked,
  type ParseLimits,
  type ParseProblem,
  type ParsedText,
} from './bounded-parse';

/**
 * Parses YAML (JSON is YAML too) into plain data, or problems: syntax errors and duplicate
 * keys at their line (`line 12`), limits at `(document)` naming the limit and where. An empty
 * document is null.
 */
export function parseYamlText(text: string, limits: ParseLimits = DOCUMENT_LIMITS): ParsedText {
  const tooBig = sizeProblem(text, limits);
  if (tooBig) return { ok: false, problems: [tooBig] };
  let value: unknown;
  try {
    // js-yaml counts the document's root as one level: the root plus maxDepth nested levels
    value = load(text, { schema: CORE_SCHEMA, maxDepth: limits.maxDepth + 1 });
  } catch (err) {
    if (!(err instanceof YAMLException)) throw err;
    return { ok: false, problems: [yamlProblem(err, text, limits)] };
  }
  return withLimitsChecked(value ?? null, text, limits);
}

/** The key written at `offset` (where js-yaml marks a duplicate key), for the message. */
function keyTextAt(text: string, offset: number): string {
  const rest = text.slice(offset, offset + 200);
  const key = /^(?:"(?:[^"\\]|\\.)*"|'(?:[^']|'')*'|[^:,{}[\]\n]*?)(?=\s*:(?:\s|$))/.exec(rest)?.[0] ?? rest.split(/[\n:]/)[0] ?? '';
  return key.trim();
}

function yamlProblem(err: YAMLException, text: string, limits: ParseLimits): ParseProblem {
  const line = err.mark ? err.mark.line + 1 : undefined;
  let message = err.reason;
  if (/^nesting exceeded maxDepth/.test(message)) {
    return limitProblem(`lists and mappings nested deeper than ${limits.maxDepth} levels (the limit)`, `line ${line ?? 1}`);
  } else if (message === 'duplicated mapping key') {
    const key = err.mark ? keyTextAt(text, err.mark.position) : '';
    message = `duplicate key${key ? ` ${key}` : ''} (the keys of a mapping must be unique)`;
  } else if (/^unidentified alias/.test(message)) {
    // the alias names an anchor not (yet) defined: a problem of the document, found at a line
    return { path: DOCUMENT_PATH, message: `invalid YAML: ${message}${line === undefined ? '' : ` at line ${line}`}` };
  }
  if (line === undefined) return { path: DOCUMENT_PATH, message: `invalid YAML: ${message}` };
  return { path: `line ${line}`, line, message: `invalid YAML: ${message}` };
}
