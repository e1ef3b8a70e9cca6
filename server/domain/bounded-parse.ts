/**
 * The one place where text from outside (uploaded policy and plan files, graph documents, the
 * CLI's files) becomes data. Parsing runs on the server's only thread, so it must cost time in
 * proportion to the text and stay bounded:
 * - size: the text's UTF-8 bytes (`maxBytes`);
 * - depth: lists and mappings nested in each other (`maxDepth`), checked while parsing (the
 *   parsers recurse) and again after aliases are expanded;
 * - values: scalars, lists and mappings once aliases are expanded (`maxNodes`);
 * - aliases: `*name` uses of a list or mapping (`maxAliases`), and what they expand to: values
 *   and characters at most `maxExpansion` times the text's length, so a few hundred bytes cannot
 *   stand for a billion values ("billion laughs") for the code that reads the data.
 * YAML is read in bounded-parse-yaml.ts, by js-yaml: a module of its own, so that reading JSON
 * (`fleetplan plan` on a JSON document) does not load js-yaml. JSON is read here by the engine's
 * JSON.parse after one linear scan of the text (nesting depth and values, no allocation).
 * Problems name the limit and where it was reached; syntax errors their line.
 */

export type ParseLimits = {
  /** UTF-8 bytes of the text */
  maxBytes: number;
  /** lists and mappings nested in each other (the values of a top-level mapping are at depth 1) */
  maxDepth: number;
  /** values (scalars, lists, mappings) once aliases are expanded */
  maxNodes: number;
  /** aliases of lists and mappings */
  maxAliases: number;
  /** values and characters, aliases expanded, per character of the text (plus EXPANSION_FLOOR) */
  maxExpansion: number;
};

/** Policy files and plan documents: a 5,000-cluster organization file is about 1.2 MB. */
export const DOCUMENT_LIMITS: ParseLimits = {
  maxBytes: 5 * 1024 * 1024,
  maxDepth: 64,
  maxNodes: 1_000_000,
  maxAliases: 10_000,
  maxExpansion: 5,
};

/** The expanded size any document may have, however short (room for a few shared schedules). */
export const EXPANSION_FLOOR = 100_000;

export type ParseProblem = { path: string; message: string; line?: number };
export type ParsedText = { ok: true; value: unknown } | { ok: false; problems: ParseProblem[] };

/** Where a problem of the whole document (a limit, a syntax error without a line) is reported. */
export const DOCUMENT_PATH = '(document)';

function lineOfOffset(text: string, offset: number): number {
  let line = 1;
  const end = Math.min(offset, text.length);
  for (let i = 0; i < end; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

function formatCount(n: number): string {
  return n.toLocaleString('en-US');
}

function formatSize(bytes: number): string {
  return bytes < 1048576 ? `${formatCount(bytes)} bytes` : `${(bytes / 1048576).toFixed(1)} MB (${formatCount(bytes)} bytes)`;
}

const NON_ASCII = /[\u0080-\uffff]/; // any UTF-16 unit outside ASCII (surrogates included)

/** UTF-8 length of `text`, counted only as far as needed to compare with `limit`. */
function utf8LengthOver(text: string, limit: number): number | null {
  if (text.length > limit) return text.length; // at least one byte per UTF-16 unit
  if (text.length * 3 <= limit) return null; // at most three bytes per UTF-16 unit
  // ASCII up to the first other character: one byte each, found by the regex engine (a 3.5 MB
  // plan document: ~3 ms, where this loop over every character took ~15 ms in a cold CLI)
  const firstNonAscii = text.search(NON_ASCII);
  if (firstNonAscii === -1) return null; // all ASCII: text.length bytes, within the limit (above)
  let bytes = firstNonAscii;
  for (let i = firstNonAscii; i < text.length; i++) {
    const c = text.charCodeAt(i);
    bytes += c < 0x80 ? 1 : c < 0x800 ? 2 : 3; // a surrogate pair: 3 + 3 >= its 4 bytes
  }
  return bytes > limit ? bytes : null;
}

export function sizeProblem(text: string, limits: ParseLimits): ParseProblem | null {
  const bytes = utf8LengthOver(text, limits.maxBytes);
  if (bytes === null) return null;
  return { path: DOCUMENT_PATH, message: `the text is ${formatSize(bytes)}, over the limit of ${formatSize(limits.maxBytes)}` };
}

/** `a.b[2]`: the contract's path notation (dots for keys, `[i]` for list items). */
function pathOf(segments: readonly (string | number)[]): string {
  let out = '';
  for (const s of segments) out += typeof s === 'number' ? `[${s}]` : out === '' ? s : `.${s}`;
  return out === '' ? DOCUMENT_PATH : out;
}

class LimitExceeded extends Error {
  constructor(readonly problem: ParseProblem) {
    super(problem.message);
  }
}

/** A problem with a limit: of the whole document, saying where in it the limit was reached. */
export function limitProblem(message: string, where: string): ParseProblem {
  return { path: DOCUMENT_PATH, message: `${message}, at ${where}` };
}

type Measured = { nodes: number; size: number; height: number };

/**
 * Measures the parsed value as the code reading it will see it (aliases expanded), in time
 * proportional to the value as parsed: a list or mapping met again (an alias) reuses its
 * measure. A value's size is 1, plus its characters for a string, plus its keys' characters for
 * a mapping; without aliases the total stays below twice the text's length. Throws
 * LimitExceeded at the first limit reached, saying where.
 */
function checkValue(value: unknown, textLength: number, limits: ParseLimits): void {
  const measured = new Map<object, Measured>();
  const open = new Set<object>();
  const path: (string | number)[] = [];
  const sizeBudget = EXPANSION_FLOOR + limits.maxExpansion * textLength;
  let nodes = 0;
  let size = 0;
  let aliases = 0;
  const exceed = (message: string): never => {
    throw new LimitExceeded(limitProblem(message, pathOf(path)));
  };
  const count = (n: number, s: number) => {
    nodes += n;
    size += s;
    if (nodes > limits.maxNodes) exceed(`more than ${formatCount(limits.maxNodes)} values, aliases expanded (the limit)`);
    if (size > sizeBudget) {
      exceed(
        `aliases expand the document to more than ${formatCount(sizeBudget)} values and characters ` +
          `(the limit: ${limits.maxExpansion} per character of its text, plus ${formatCount(EXPANSION_FLOOR)})`,
      );
    }
  };
  const visit = (v: unknown, depth: number): Measured => {
    if (typeof v !== 'object' || v === null) {
      const m = { nodes: 1, size: typeof v === 'string' ? 1 + v.length : 1, height: 0 };
      count(m.nodes, m.size);
      return m;
    }
    if (open.has(v)) exceed('an alias refers to a list or mapping that contains it (a recursive alias)');
    const seen = measured.get(v);
    if (seen) {
      aliases++;
      if (aliases > limits.maxAliases) exceed(`more than ${formatCount(limits.maxAliases)} aliases of lists and mappings (the limit)`);
      if (depth + seen.height > limits.maxDepth)
        exceed(`an alias nests lists and mappings deeper than ${limits.maxDepth} levels (the limit)`);
      count(seen.nodes, seen.size);
      return seen;
    }
    if (depth >= limits.maxDepth) exceed(`lists and mappings nested deeper than ${limits.maxDepth} levels (the limit)`);
    count(1, 1);
    open.add(v);
    const total: Measured = { nodes: 1, size: 1, height: 0 };
    const add = (m: Measured) => {
      total.nodes += m.nodes;
      total.size += m.size;
      if (m.height + 1 > total.height) total.height = m.height + 1;
    };
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        path.push(i);
        add(visit(v[i], depth + 1));
        path.pop();
      }
    } else {
      for (const key of Object.keys(v)) {
        path.push(key);
        count(0, key.length);
        total.size += key.length;
        add(visit((v as Record<string, unknown>)[key], depth + 1));
        path.pop();
      }
    }
    open.delete(v);
    measured.set(v, total);
    return total;
  };
  visit(value, 0);
}

type Tally = { nodes: number; size: number };

/**
 * checkValue's measure for a value in which no list or mapping appears twice (text without
 * anchors), without its bookkeeping for aliases and paths: true when within the limits. About
 * a third of parseYamlText's time otherwise went to that bookkeeping.
 */
function withinLimitsUnshared(v: unknown, depth: number, limits: ParseLimits, sizeBudget: number, tally: Tally): boolean {
  if (typeof v !== 'object' || v === null) {
    tally.nodes++;
    tally.size += typeof v === 'string' ? 1 + v.length : 1;
    return tally.nodes <= limits.maxNodes && tally.size <= sizeBudget;
  }
  if (depth >= limits.maxDepth) return false;
  tally.nodes++;
  tally.size++;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) if (!withinLimitsUnshared(v[i], depth + 1, limits, sizeBudget, tally)) return false;
  } else {
    const record = v as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      tally.size += key.length;
      if (!withinLimitsUnshared(record[key], depth + 1, limits, sizeBudget, tally)) return false;
    }
  }
  return tally.nodes <= limits.maxNodes && tally.size <= sizeBudget;
}

/** The parsed value of `text` when within the limits (aliases expanded), else the first limit reached. */
export function withLimitsChecked(value: unknown, text: string, limits: ParseLimits): ParsedText {
  // `&` starts every anchor: without one, nothing is shared, and the plain count decides; a
  // refusal is measured again by checkValue, which says which limit and where
  if (!text.includes('&')) {
    const sizeBudget = EXPANSION_FLOOR + limits.maxExpansion * text.length;
    if (withinLimitsUnshared(value, 0, limits, sizeBudget, { nodes: 0, size: 0 })) return { ok: true, value };
  }
  try {
    checkValue(value, text.length, limits);
  } catch (err) {
    if (err instanceof LimitExceeded) return { ok: false, problems: [err.problem] };
    throw err;
  }
  return { ok: true, value };
}

/** Thrown from deep in findJsonErrorOffset's recursive scan back to its top; carries the offset. */
class JsonErrorAt extends Error {
  constructor(readonly offset: number) {
    super(`invalid JSON at offset ${offset}`);
  }
}

/**
 * Offset of the first JSON syntax error (the engine's message does not always carry one): a
 * minimal recursive-descent scan of RFC 8259 JSON. Only called on text whose nesting depth is
 * already known to be within the limits, so its recursion is bounded.
 */
export function findJsonErrorOffset(text: string): number {
  let i = 0;
  const ws = () => {
    while (i < text.length && ' \t\r\n'.includes(text[i] as string)) i++;
  };
  const fail = (): never => {
    throw new JsonErrorAt(i);
  };
  const literal = (word: string) => {
    if (text.startsWith(word, i)) i += word.length;
    else fail();
  };
  const string = () => {
    if (text[i] !== '"') fail();
    i++;
    while (i < text.length && text[i] !== '"') {
      const ch = text.charCodeAt(i);
      if (ch < 0x20) fail();
      if (text[i] === '\\') {
        i++;
        if (text[i] === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 1, i + 5))) fail();
          i += 4;
        } else if (!'"\\/bfnrt'.includes(text[i] ?? 'x')) fail();
      }
      i++;
    }
    if (text[i] !== '"') fail();
    i++;
  };
  const value = (): void => {
    ws();
    const ch = text[i];
    if (ch === '{') {
      i++;
      ws();
      if (text[i] === '}') {
        i++;
        return;
      }
      for (;;) {
        ws();
        string();
        ws();
        if (text[i] !== ':') fail();
        i++;
        value();
        ws();
        if (text[i] === ',') i++;
        else if (text[i] === '}') {
          i++;
          return;
        } else fail();
      }
    } else if (ch === '[') {
      i++;
      ws();
      if (text[i] === ']') {
        i++;
        return;
      }
      for (;;) {
        value();
        ws();
        if (text[i] === ',') i++;
        else if (text[i] === ']') {
          i++;
          return;
        } else fail();
      }
    } else if (ch === '"') string();
    else if (ch === 't') literal('true');
    else if (ch === 'f') literal('false');
    else if (ch === 'n') literal('null');
    else {
      const m = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i, i + 400));
      if (!m) fail();
      else i += m[0].length;
    }
  };
  try {
    value();
    ws();
    if (i < text.length) fail();
  } catch (err) {
    if (err instanceof JsonErrorAt) return err.offset;
    throw err;
  }
  return text.length;
}

export type JsonScan = { ok: true } | { ok: false; limit: 'depth' | 'values'; offset: number };

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** Offset of the `"` that ends the string whose opening `"` is at `open`, or -1 (unterminated). */
function stringEnd(text: string, open: number): number {
  let close = text.indexOf('"', open + 1);
  while (close !== -1) {
    // the quote is escaped when an odd number of backslashes precede it: `\"` but not `\\"`
    let slashes = 0;
    while (text.charCodeAt(close - 1 - slashes) === BACKSLASH) slashes++;
    if (slashes % 2 === 0) return close;
    close = text.indexOf('"', close + 1);
  }
  return -1;
}

/** Digits, `.`, `-`, `+`, and letters (`e`, `E`, `true`, `false`, `null`); NaN past the end is not. */
function isScalarPart(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x7a) || c === 0x2e || c === 0x2d || c === 0x2b || c === 0x45;
}

/**
 * What one linear pass over JSON text finds before JSON.parse is trusted with it: the offset
 * where `[`/`{` nesting first goes deeper than `maxDepth`, or where the value that is one more
 * than `maxValues` starts. Values are counted as JSON.parse will make them (the top-level value,
 * each list item, each member's value; keys are not values), for text that is valid JSON;
 * invalid text may be counted differently, and JSON.parse refuses it anyway. Reads character
 * codes only and jumps over string contents with indexOf, so it allocates nothing and costs a
 * fraction of JSON.parse (bench/parse-bench.ts).
 */
export function scanJson(text: string, maxDepth: number, maxValues: number): JsonScan {
  // inArray[d]: whether the list or object open at depth d (1-based) is a list
  const inArray = new Uint8Array(maxDepth + 1);
  let depth = 0;
  let values = 0;
  let expectValue = true; // at the start, after `[`, `:`, and `,` in a list
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) continue;
    if (expectValue && c !== 0x5d) {
      if (++values > maxValues) return { ok: false, limit: 'values', offset: i };
      expectValue = false;
    }
    if (c === QUOTE) {
      const end = stringEnd(text, i);
      if (end === -1) return { ok: true }; // unterminated: JSON.parse says so
      i = end;
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > maxDepth) return { ok: false, limit: 'depth', offset: i };
      const isArray = c === 0x5b;
      inArray[depth] = isArray ? 1 : 0;
      expectValue = isArray;
    } else if (c === 0x5d || c === 0x7d) {
      if (depth > 0) depth--;
      expectValue = false;
    } else if (c === 0x3a) expectValue = true;
    else if (c === 0x2c) expectValue = depth > 0 && inArray[depth] === 1;
    else {
      // a number, true, false or null: its other characters at once (edge lists are mostly digits)
      while (isScalarPart(text.charCodeAt(i + 1))) i++;
    }
  }
  return { ok: true };
}

/**
 * The path (`a.b[2]`) of the value that starts at `offset` of JSON text, found by scanning
 * again, keeping the keys and list positions that lead there. For messages only (a refusal):
 * it allocates the keys on the way. The nesting up to `offset` is known to be within the limit.
 */
export function jsonPathAt(text: string, offset: number): string {
  type Frame = { isArray: boolean; index: number; key: string };
  const frames: Frame[] = [];
  let expectValue = true;
  let expectKey = false;
  for (let i = 0; i < offset; i++) {
    const c = text.charCodeAt(i);
    const top = frames[frames.length - 1];
    if (expectValue && c !== 0x5d && c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) {
      if (top?.isArray) top.index++;
      expectValue = false;
    }
    if (c === QUOTE) {
      const end = stringEnd(text, i);
      if (end === -1) break;
      if (expectKey && top) {
        const raw = text.slice(i, end + 1);
        try {
          top.key = JSON.parse(raw) as string;
        } catch {
          top.key = raw.slice(1, -1);
        }
        expectKey = false;
      }
      i = end;
    } else if (c === 0x5b || c === 0x7b) {
      frames.push({ isArray: c === 0x5b, index: -1, key: '' });
      expectValue = c === 0x5b;
      expectKey = c === 0x7b;
    } else if (c === 0x5d || c === 0x7d) {
      frames.pop();
      expectValue = expectKey = false;
    } else if (c === 0x3a) expectValue = true;
    else if (c === 0x2c) {
      expectValue = top?.isArray === true;
      expectKey = top?.isArray === false;
    }
  }
  const top = frames[frames.length - 1];
  if (expectValue && top?.isArray) top.index++;
  return pathOf(frames.map((f) => (f.isArray ? f.index : f.key)));
}

/**
 * Parses JSON into plain data, or problems: a syntax error at its line, limits at `(document)`.
 * The limits are checked on the text, before JSON.parse builds anything (JSON has no aliases,
 * so the text's nesting and values are the data's); duplicate keys count once per occurrence.
 */
export function parseJsonText(text: string, limits: ParseLimits = DOCUMENT_LIMITS): ParsedText {
  const tooBig = sizeProblem(text, limits);
  if (tooBig) return { ok: false, problems: [tooBig] };
  const scan = scanJson(text, limits.maxDepth, limits.maxNodes);
  if (!scan.ok) {
    const problem =
      scan.limit === 'depth'
        ? limitProblem(
            `lists and objects nested deeper than ${limits.maxDepth} levels (the limit)`,
            `line ${lineOfOffset(text, scan.offset)}`,
          )
        : limitProblem(`more than ${formatCount(limits.maxNodes)} values (the limit)`, jsonPathAt(text, scan.offset));
    return { ok: false, problems: [problem] };
  }
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    const lc = /line (\d+) column (\d+)/.exec(message);
    const pos = /position (\d+)/.exec(message);
    const line = lc ? Number(lc[1]) : lineOfOffset(text, pos ? Number(pos[1]) : findJsonErrorOffset(text));
    return { ok: false, problems: [{ path: `line ${line}`, line, message: `invalid JSON: ${message}` }] };
  }
}

/** True when the text is JSON by the plan contract's rule: its first non-blank character is `{` or `[`. */
export function looksLikeJson(text: string): boolean {
  const first = /\S/.exec(text)?.[0];
  return first === '{' || first === '[';
}
