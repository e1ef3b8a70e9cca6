/**
 * Structural diff of two JSON values, for policy history: every added, removed or changed leaf
 * with its path (`sectors[1].maxParallelUpgrades`, dots for keys, `[i]` for list items). Lists
 * are compared item by item, so inserting in the middle reads as changes plus one addition;
 * good enough for policies, which are short lists edited in place.
 */

export type JsonChangeKind = 'added' | 'removed' | 'changed';

export type JsonChange = {
  kind: JsonChangeKind;
  /** `(root)` when the whole value changed type or appeared. */
  path: string;
  before?: unknown;
  after?: unknown;
};

export type JsonDiffSummary = { added: string[]; removed: string[]; changed: string[] };

type Obj = Record<string, unknown>;

function isObject(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const SIMPLE_KEY = /^[A-Za-z_$][\w$-]*$/;

/** `parent.key`, the key quoted when it would read ambiguously; `parent` '' is the root. */
export function keyPath(parent: string, key: string): string {
  // Keys that would read ambiguously (versions like 4.13.1, spaces) are quoted.
  const part = SIMPLE_KEY.test(key) ? key : JSON.stringify(key);
  return parent === '' ? part : `${parent}.${part}`;
}

function indexPath(parent: string, i: number): string {
  return `${parent}[${i}]`;
}

function walk(before: unknown, after: unknown, path: string, out: JsonChange[]): void {
  if (before === undefined && after === undefined) return;
  const at = path === '' ? '(root)' : path;
  if (before === undefined) {
    out.push({ kind: 'added', path: at, after });
    return;
  }
  if (after === undefined) {
    out.push({ kind: 'removed', path: at, before });
    return;
  }
  if (Array.isArray(before) && Array.isArray(after)) {
    const n = Math.max(before.length, after.length);
    for (let i = 0; i < n; i++) walk(before[i], after[i], indexPath(path, i), out);
    return;
  }
  if (isObject(before) && isObject(after)) {
    const keys = [...Object.keys(before), ...Object.keys(after).filter((k) => !(k in before))];
    for (const k of keys) walk(before[k], after[k], keyPath(path, k), out);
    return;
  }
  if (!Object.is(before, after)) out.push({ kind: 'changed', path: at, before, after });
}

/**
 * Differences from `before` to `after`. `null` counts as a value (a policy removed is
 * `changed` from an object to null, at `(root)`); `undefined` as absent.
 */
export function diffJson(before: unknown, after: unknown): JsonChange[] {
  const out: JsonChange[] = [];
  walk(before, after, '', out);
  return out;
}

export function summarizeChanges(changes: readonly JsonChange[]): JsonDiffSummary {
  const summary: JsonDiffSummary = { added: [], removed: [], changed: [] };
  for (const c of changes) summary[c.kind].push(c.path);
  return summary;
}

/** Deep equality of JSON values (key order ignored). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  return diffJson(a, b).length === 0;
}
