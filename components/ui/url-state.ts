// The pure half of page state kept in the address (components/ui/use-url-state.ts is the hook):
// each field has a default of its type, the query string holds only the fields that differ from
// it, and a malformed value reads as the default, so a hand-edited or stale link still opens.
export type UrlFieldValue = string | number | boolean;
export type UrlFields = Record<string, UrlFieldValue>;

/** Reads `defaults`' fields from `params`, each as the type of its default. */
export function readUrlState<T extends UrlFields>(params: URLSearchParams, defaults: T): T {
  const out: UrlFields = { ...defaults };
  for (const [key, fallback] of Object.entries(defaults)) {
    const raw = params.get(key);
    if (raw === null) continue;
    if (typeof fallback === 'number') {
      const n = Number(raw);
      out[key] = raw.trim() !== '' && Number.isFinite(n) ? n : fallback;
    } else if (typeof fallback === 'boolean') {
      out[key] = raw === '1' || raw === 'true' ? true : raw === '0' || raw === 'false' ? false : fallback;
    } else {
      out[key] = raw;
    }
  }
  return out as T;
}

/**
 * The query string ("" or "?a=1&b=x") for `values` over `current`: fields equal to their default
 * are left out, and parameters that are not fields of `defaults` are kept (another component's).
 */
export function writeUrlState<T extends UrlFields>(current: URLSearchParams, defaults: T, values: T): string {
  const next = new URLSearchParams(current);
  for (const key of Object.keys(defaults)) {
    const value = values[key];
    if (value === undefined || value === defaults[key] || value === '') next.delete(key);
    else next.set(key, typeof value === 'boolean' ? (value ? '1' : '0') : String(value));
  }
  const text = next.toString();
  return text ? `?${text}` : '';
}

/** A link to `path` with `params` as its query (empty and undefined values left out). */
export function hrefWith(path: string, params: Record<string, string | number | undefined | null>): string {
  const q = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value !== undefined && value !== null && value !== '') q.set(key, String(value));
  const text = q.toString();
  return text ? `${path}?${text}` : path;
}
