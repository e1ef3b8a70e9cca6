// The pure half of the data table: sorting, text filtering, paging, CSV, and the remembered column
// choice. No React here, so each rule has a unit test (table-model.test.ts).

export type SortDirection = 'asc' | 'desc';
export type SortState = { id: string; direction: SortDirection };
export type CellValue = string | number | boolean | null | undefined;

const collator = new Intl.Collator('en', { numeric: true, sensitivity: 'base' });

const isEmptyCell = (value: CellValue) => value === null || value === undefined || value === '';

/** Ascending order of two cell values: numbers by value, text naturally ("node-2" before "node-10"); empty values last either way. */
export function compareCells(a: CellValue, b: CellValue): number {
  const aEmpty = isEmptyCell(a);
  const bEmpty = isEmptyCell(b);
  if (aEmpty || bEmpty) return aEmpty === bEmpty ? 0 : aEmpty ? 1 : -1;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'boolean' && typeof b === 'boolean') return a === b ? 0 : a ? 1 : -1;
  return collator.compare(String(a), String(b));
}

/** A stable sort of `rows` by `value`; descending reverses the order of values but keeps empty values last. */
export function sortRows<Row>(rows: readonly Row[], value: (row: Row) => CellValue, direction: SortDirection): Row[] {
  const sign = direction === 'asc' ? 1 : -1;
  return rows
    .map((row, index) => ({ row, index, key: value(row) }))
    .sort((x, y) => {
      // compareCells already puts empty values last; only an order between two values flips
      const flip = isEmptyCell(x.key) || isEmptyCell(y.key) ? 1 : sign;
      return flip * compareCells(x.key, y.key) || x.index - y.index;
    })
    .map((x) => x.row);
}

/** The next sort after a click on column `id`: a new column sorts ascending, the same one flips. */
export function nextSort(current: SortState | null, id: string): SortState {
  return current?.id === id && current.direction === 'asc' ? { id, direction: 'desc' } : { id, direction: 'asc' };
}

/** Rows any of whose `texts` contains every word of `query` (case-insensitive). */
export function filterRows<Row>(rows: readonly Row[], query: string, texts: (row: Row) => CellValue[]): Row[] {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return [...rows];
  return rows.filter((row) => {
    const haystack = texts(row)
      .filter((v) => v !== null && v !== undefined)
      .map((v) => String(v).toLowerCase())
      .join('\u0000');
    return words.every((w) => haystack.includes(w));
  });
}

/** The offset of the page holding `offset`, kept inside `total` (after a filter shrinks the list). */
export function clampOffset(offset: number, limit: number, total: number): number {
  if (total <= 0) return 0;
  const lastPage = Math.floor((total - 1) / limit) * limit;
  return Math.min(Math.max(0, Math.floor(offset / limit) * limit), lastPage);
}

const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * One CSV field (RFC 4180). Text a spreadsheet would run as a formula (starting with = + - @, tab
 * or CR) gets a leading apostrophe so it opens as text; numbers stay numbers (-3 is not a formula).
 */
export function csvField(value: CellValue): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : '';
  let text = String(value);
  if (typeof value === 'string' && FORMULA_START.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) || text !== text.trim() ? `"${text.replaceAll('"', '""')}"` : text;
}

/** A CSV document: a header line, then one line per row; CRLF line ends as RFC 4180 asks. */
export function toCsv(headers: readonly string[], rows: readonly (readonly CellValue[])[]): string {
  return [headers, ...rows].map((cells) => cells.map(csvField).join(',')).join('\r\n') + '\r\n';
}

/**
 * The hidden columns, from what was stored (a JSON object of column id → shown) over the defaults;
 * unknown ids and malformed storage are ignored, so a renamed column cannot break the page.
 */
export function hiddenColumns(columns: readonly { id: string; hidden?: boolean }[], stored: string | null): Set<string> {
  let choice: Record<string, unknown> = {};
  if (stored) {
    try {
      const parsed: unknown = JSON.parse(stored);
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) choice = parsed as Record<string, unknown>;
    } catch {
      choice = {};
    }
  }
  const hidden = new Set<string>();
  for (const c of columns) {
    const shown = choice[c.id];
    if (typeof shown === 'boolean' ? !shown : c.hidden) hidden.add(c.id);
  }
  return hidden;
}

/**
 * Every row of a server-paged list, page by page (`limit` rows a request) until `total` is read or
 * a page comes back short; for downloads of "all rows these filters keep", not just the page shown.
 */
export async function fetchAllPages<Row>(
  fetchPage: (offset: number, limit: number) => Promise<{ items: readonly Row[]; total: number }>,
  limit: number,
  maxRows = 100_000,
): Promise<Row[]> {
  const rows: Row[] = [];
  for (;;) {
    const page = await fetchPage(rows.length, limit);
    rows.push(...page.items);
    if (page.items.length < limit || rows.length >= Math.min(page.total, maxRows)) return rows.slice(0, maxRows);
  }
}
