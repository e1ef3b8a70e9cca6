// Turns the before/after summaries of a change into a compact key-level diff. The server sends
// each side as JSON text cut at 160 characters ("…" at the end), so the parser is lenient: it
// keeps every complete top-level entry of a cut object and marks the side as truncated.

export type Side =
  | { kind: 'empty' }
  | { kind: 'value'; text: string; truncated: boolean }
  | { kind: 'object'; entries: Map<string, string>; truncated: boolean };

export interface DiffRow {
  key: string;
  op: 'add' | 'del' | 'mod' | 'same';
  before?: string;
  after?: string;
}

const MAX_VALUE = 60;
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?Z$/;

function clip(text: string): string {
  return text.length > MAX_VALUE ? `${text.slice(0, MAX_VALUE - 1)}…` : text;
}

function compact(v: unknown): string {
  if (v === null) return 'null';
  if (typeof v === 'string') return v === '' ? '""' : ISO_INSTANT.test(v) ? `${v.slice(0, 10)} ${v.slice(11, 16)} UTC` : clip(v);
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) {
    if (v.length === 0) return '[]';
    if (v.every((x) => x === null || typeof x !== 'object')) return clip(`[${v.map((x) => (x === null ? 'null' : String(x))).join(', ')}]`);
    return `[${v.length} items]`;
  }
  if (typeof v === 'object') {
    const keys = Object.keys(v);
    return keys.length === 0 ? '{}' : clip(`{${keys.join(', ')}}`);
  }
  return String(v);
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** One level of nesting is spelled out as dotted keys; deeper values are summarized. */
function flatten(obj: Record<string, unknown>, into: Map<string, string>, prefix = '', depth = 0): void {
  for (const [k, v] of Object.entries(obj)) {
    const key = prefix + k;
    if (isPlainObject(v) && depth < 1 && Object.keys(v).length > 0 && Object.keys(v).length <= 8) flatten(v, into, `${key}.`, depth + 1);
    else into.set(key, compact(v));
  }
}

function tryParse(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

/** Reads `"key": value` pairs of a (possibly cut) top-level JSON object. */
function scanObject(body: string, out = new Map<string, string>(), prefix = ''): Map<string, string> {
  let i = 1;
  const n = body.length;
  const skipWs = () => {
    while (i < n && /\s/.test(body[i]!)) i++;
  };
  while (i < n) {
    skipWs();
    if (body[i] === ',') {
      i++;
      skipWs();
    }
    if (body[i] !== '"') break;
    // key
    let j = i + 1;
    while (j < n && body[j] !== '"') j += body[j] === '\\' ? 2 : 1;
    if (j >= n) break;
    const keyParsed = tryParse(body.slice(i, j + 1));
    const key = prefix + (keyParsed.ok ? String(keyParsed.value) : body.slice(i + 1, j));
    i = j + 1;
    skipWs();
    if (body[i] !== ':') break;
    i++;
    skipWs();
    // value: up to a top-level ',' or '}'
    const start = i;
    let depth = 0;
    let inString = false;
    for (; i < n; i++) {
      const c = body[i]!;
      if (inString) {
        if (c === '\\') i++;
        else if (c === '"') inString = false;
      } else if (c === '"') inString = true;
      else if (c === '{' || c === '[') depth++;
      else if (c === '}' || c === ']') {
        if (depth === 0) break;
        depth--;
      } else if (c === ',' && depth === 0) break;
    }
    const raw = body.slice(start, i).trim();
    if (i >= n) {
      // cut inside this value: keep what is readable
      if (raw.startsWith('{') && !prefix) scanObject(raw, out, `${key}.`);
      else if (raw !== '') out.set(key, `${clip(raw.startsWith('"') ? raw.slice(1) : raw)}…`);
      break;
    }
    const parsed = tryParse(raw);
    if (
      parsed.ok &&
      isPlainObject(parsed.value) &&
      !prefix &&
      Object.keys(parsed.value).length > 0 &&
      Object.keys(parsed.value).length <= 8
    )
      flatten(parsed.value, out, `${key}.`, 1);
    else out.set(key, parsed.ok ? compact(parsed.value) : clip(raw));
    if (body[i] === '}') break;
    i++;
  }
  return out;
}

export function parseSide(text: string | null | undefined): Side {
  if (text === null || text === undefined) return { kind: 'empty' };
  const t = text.trim();
  if (t === '' || t === '—' || t === 'null') return { kind: 'empty' };
  const truncated = t.endsWith('…');
  const body = truncated ? t.slice(0, -1) : t;
  const parsed = tryParse(body);
  if (parsed.ok) {
    const v = parsed.value;
    if (v === null) return { kind: 'empty' };
    if (isPlainObject(v)) {
      const entries = new Map<string, string>();
      flatten(v, entries);
      return { kind: 'object', entries, truncated };
    }
    return { kind: 'value', text: compact(v), truncated };
  }
  if (body.startsWith('{')) return { kind: 'object', entries: scanObject(body), truncated: true };
  return { kind: 'value', text: clip(body), truncated };
}

/**
 * Key-level rows. A key missing on a side that was cut is unknown there, not added/removed, so it
 * is only listed with the value we know.
 */
export function diffSides(before: Side, after: Side): { rows: DiffRow[]; truncated: boolean } {
  const truncated = (before.kind !== 'empty' && before.truncated) || (after.kind !== 'empty' && after.truncated);
  if (before.kind === 'object' || after.kind === 'object') {
    const b = before.kind === 'object' ? before.entries : new Map<string, string>();
    const a = after.kind === 'object' ? after.entries : new Map<string, string>();
    const bCut = before.kind === 'object' && before.truncated;
    const aCut = after.kind === 'object' && after.truncated;
    const rows: DiffRow[] = [];
    for (const key of new Set([...b.keys(), ...a.keys()])) {
      const bv = b.get(key);
      const av = a.get(key);
      if (bv !== undefined && av !== undefined) rows.push({ key, op: bv === av ? 'same' : 'mod', before: bv, after: av });
      else if (av !== undefined)
        rows.push(
          before.kind === 'empty' || (!bCut && before.kind === 'object') ? { key, op: 'add', after: av } : { key, op: 'same', after: av },
        );
      else if (bv !== undefined)
        rows.push(
          after.kind === 'empty' || (!aCut && after.kind === 'object') ? { key, op: 'del', before: bv } : { key, op: 'same', before: bv },
        );
    }
    // a scalar on the other side (rare): show it as a whole-value change
    if (before.kind === 'value') rows.unshift({ key: '', op: 'del', before: before.text });
    if (after.kind === 'value') rows.unshift({ key: '', op: 'add', after: after.text });
    return { rows, truncated };
  }
  if (before.kind === 'value' && after.kind === 'value')
    return { rows: [{ key: '', op: before.text === after.text ? 'same' : 'mod', before: before.text, after: after.text }], truncated };
  if (after.kind === 'value') return { rows: [{ key: '', op: 'add', after: after.text }], truncated };
  if (before.kind === 'value') return { rows: [{ key: '', op: 'del', before: before.text }], truncated };
  return { rows: [], truncated };
}
