/**
 * The changes of one audited value (a policy revision, an exclusion, a webhook…) as a list the
 * Activity page shows without parsing: path, before, after, built on diffJson. Absent sides
 * (a creation, a deletion) diff against an empty object, so a new webhook reads as its fields;
 * values are scalars (long text clipped, lists of scalars joined, deeper values summarized), and
 * the list stops at `limit` with the rest counted.
 */
import { diffJson, keyPath, type JsonChangeKind } from '@/lib/json-diff';

export type FieldValue = string | number | boolean | null;

export type FieldChange = {
  kind: JsonChangeKind;
  path: string;
  /** absent when the field was added */
  before?: FieldValue;
  /** absent when the field was removed */
  after?: FieldValue;
};

export type FieldChanges = { changes: FieldChange[]; omitted: number };

const MAX_TEXT = 200;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function clip(text: string): string {
  return text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT - 1)}…` : text;
}

/** A leaf as a scalar: text clipped, lists of scalars as "[a, b]", anything deeper counted. */
export function fieldValue(v: unknown): FieldValue {
  if (v === null || typeof v === 'number' || typeof v === 'boolean') return v;
  if (typeof v === 'string') return clip(v);
  if (Array.isArray(v)) {
    if (v.every((x) => x === null || typeof x !== 'object')) return clip(`[${v.map((x) => String(x)).join(', ')}]`);
    return `[${v.length} item${v.length === 1 ? '' : 's'}]`;
  }
  if (isObject(v)) {
    const n = Object.keys(v).length;
    return `{${n} field${n === 1 ? '' : 's'}}`;
  }
  if (typeof v === 'bigint') return String(v);
  // undefined, or what JSON never holds (symbol, function: its kind, never its source text)
  return typeof v;
}

/** An added or removed object spelled out as its fields, one level deep at a time, at diffJson's paths. */
function spread(kind: 'added' | 'removed', path: string, value: unknown, out: FieldChange[]): void {
  if (isObject(value) && Object.keys(value).length > 0) {
    for (const [k, v] of Object.entries(value)) spread(kind, keyPath(path === '(root)' ? '' : path, k), v, out);
    return;
  }
  out.push(kind === 'added' ? { kind, path, after: fieldValue(value) } : { kind, path, before: fieldValue(value) });
}

export function fieldChanges(before: unknown, after: unknown, limit = 40): FieldChanges {
  const b = before ?? undefined;
  const a = after ?? undefined;
  if (b === undefined && a === undefined) return { changes: [], omitted: 0 };
  const raw = diffJson(b ?? (isObject(a) ? {} : undefined), a ?? (isObject(b) ? {} : undefined));
  const out: FieldChange[] = [];
  for (const c of raw) {
    if (c.kind === 'changed') out.push({ kind: 'changed', path: c.path, before: fieldValue(c.before), after: fieldValue(c.after) });
    else spread(c.kind, c.path, c.kind === 'added' ? c.after : c.before, out);
  }
  return { changes: out.slice(0, limit), omitted: Math.max(0, out.length - limit) };
}
