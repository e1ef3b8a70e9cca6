'use client';
// One table for every list: typed columns (header, cell, sort value, CSV value, hidden by default),
// a column chooser remembered per table in localStorage, CSV/JSON download of the rows the filters
// keep (all pages of a server-paged table when it passes `exportRows`),
// and either client-side sort/filter/paging (small lists) or a controlled mode where the server
// sorts and pages (Fleet, Activity): pass `sort` + `onSort` and/or `paging`.
import { useEffect, useMemo, useRef, useState, type HTMLAttributes, type ReactNode } from 'react';
import { Pager } from './pager';
import { useDismiss } from './use-dismiss';
import { clampOffset, filterRows, hiddenColumns, nextSort, sortRows, toCsv, type CellValue, type SortState } from './table-model';

export interface Column<Row> {
  id: string;
  /** Column title; also the column chooser's label and the CSV header. */
  header: string;
  /** A longer explanation of the header, shown on hover. */
  headerTitle?: string;
  cell: (row: Row) => ReactNode;
  /** Makes the column sortable (client mode) and searchable, and is its CSV value unless `csv` says otherwise. */
  value?: (row: Row) => CellValue;
  /** Controlled mode: the server's sort key for this column (the column is sortable when set). */
  sortKey?: string;
  csv?: (row: Row) => CellValue;
  /** Hidden until chosen in the column chooser. */
  hidden?: boolean;
  /** The header is read by screen readers but not shown (a column of buttons). */
  headerHidden?: boolean;
  /** Cannot be hidden (the row's name). */
  required?: boolean;
  className?: string;
  headerClassName?: string;
}

export interface ServerPaging {
  offset: number;
  limit: number;
  total: number;
  onOffset: (offset: number) => void;
  busy?: boolean;
}

type RowAttributes = HTMLAttributes<HTMLTableRowElement> & Record<`data-${string}`, string | number | undefined>;

export interface DataTableProps<Row> {
  /** Names the table's remembered columns (localStorage) and its CSV file. */
  id: string;
  label: string;
  rows: readonly Row[];
  columns: readonly Column<Row>[];
  rowKey: (row: Row) => string | number;
  rowProps?: (row: Row) => RowAttributes;
  /** Client mode: show a text filter over the columns' values. */
  filterable?: boolean;
  filterPlaceholder?: string;
  /** Client mode: rows per page (no paging when absent). */
  pageSize?: number;
  initialSort?: SortState;
  /** Controlled sort: the rows come sorted; clicks call `onSort` with the column's `sortKey`. */
  sort?: SortState | null;
  onSort?: (sort: SortState) => void;
  /** Controlled paging: the rows are one page of `total`. */
  paging?: ServerPaging;
  /**
   * Controlled paging: every row the current filters keep (all pages), for the CSV/JSON download;
   * without it the download holds the rows the table has.
   */
  exportRows?: () => Promise<readonly Row[]>;
  noun?: string;
  /** Shown instead of the table when there are no rows (after filtering). */
  empty?: ReactNode;
  /** More toolbar content (filters), before the table's own controls. */
  toolbar?: ReactNode;
  /** A live count or note at the toolbar's end ("120 clusters"). */
  status?: ReactNode;
  /** Hide the chooser/CSV toolbar (tiny tables). */
  bare?: boolean;
  className?: string;
}

const storageKey = (id: string) => `fleetplan.table.${id}.columns`;

function useColumnChoice<Row>(id: string, columns: readonly Column<Row>[]) {
  const [stored, setStored] = useState<string | null>(null);
  useEffect(() => {
    try {
      setStored(window.localStorage.getItem(storageKey(id)));
    } catch {
      setStored(null);
    }
  }, [id]);
  const hidden = useMemo(() => hiddenColumns(columns, stored), [columns, stored]);
  const toggle = (columnId: string) => {
    const choice: Record<string, boolean> = {};
    for (const c of columns) choice[c.id] = c.id === columnId ? hidden.has(c.id) : !hidden.has(c.id);
    const text = JSON.stringify(choice);
    setStored(text);
    try {
      window.localStorage.setItem(storageKey(id), text);
    } catch {
      // storage full or blocked: the choice lasts for this page view
    }
  };
  return { hidden, toggle };
}

export function download(fileName: string, text: string, type = 'text/csv;charset=utf-8') {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = fileName;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 0);
}

export function DataTable<Row>(props: DataTableProps<Row>) {
  const { id, label, rows, columns, rowKey, rowProps, pageSize, paging, noun = 'rows' } = props;
  const controlledSort = props.onSort !== undefined;
  const [localSort, setLocalSort] = useState<SortState | null>(props.initialSort ?? null);
  const [query, setQuery] = useState('');
  const [offset, setOffset] = useState(0);
  const [chooserOpen, setChooserOpen] = useState(false);
  const chooserRef = useRef<HTMLDetailsElement>(null);
  // closing the <details> fires its toggle event, which clears chooserOpen; Escape returns focus to its summary
  useDismiss(chooserRef, chooserOpen, (reason) => {
    const details = chooserRef.current;
    if (!details) return;
    details.open = false;
    if (reason === 'escape') details.querySelector('summary')?.focus();
  });
  const { hidden, toggle } = useColumnChoice(id, columns);
  const visible = columns.filter((c) => !hidden.has(c.id));
  const sort = controlledSort ? (props.sort ?? null) : localSort;

  const shown = useMemo(() => {
    let out = props.filterable ? filterRows(rows, query, (r) => columns.map((c) => (c.value ?? c.csv)?.(r))) : [...rows];
    const sortColumn = !controlledSort && sort ? columns.find((c) => c.id === sort.id) : undefined;
    if (sortColumn?.value) out = sortRows(out, sortColumn.value, sort!.direction);
    return out;
  }, [rows, columns, query, props.filterable, controlledSort, sort]);

  const pageOffset = pageSize ? clampOffset(offset, pageSize, shown.length) : 0;
  const pageRows = pageSize && !paging ? shown.slice(pageOffset, pageOffset + pageSize) : shown;

  const sortable = (c: Column<Row>) => (controlledSort ? c.sortKey !== undefined : c.value !== undefined);
  const sortId = (c: Column<Row>) => (controlledSort ? c.sortKey! : c.id);
  const onHeader = (c: Column<Row>) => {
    const next = nextSort(sort, sortId(c));
    if (controlledSort) props.onSort!(next);
    else setLocalSort(next);
  };

  const [exporting, setExporting] = useState<string | null>(null);
  const exportAs = async (format: 'csv' | 'json') => {
    setExporting(null);
    let rows: readonly Row[] = shown;
    if (props.exportRows) {
      setExporting('reading every page…');
      try {
        rows = await props.exportRows();
      } catch (err) {
        setExporting(`download failed: ${err instanceof Error ? err.message : String(err)}`);
        return;
      }
      setExporting(null);
    }
    const cols = visible.filter((c) => c.csv ?? c.value);
    const cells = rows.map((r) => cols.map((c) => (c.csv ?? c.value)!(r)));
    if (format === 'csv')
      download(
        `${id}.csv`,
        toCsv(
          cols.map((c) => c.header),
          cells,
        ),
      );
    else {
      // the shown columns by id, as the CSV has them (the rows' raw fields are the API's)
      const objects = cells.map((row) => Object.fromEntries(cols.map((c, i) => [c.id, row[i] ?? null])));
      download(`${id}.json`, `${JSON.stringify(objects, null, 2)}\n`, 'application/json');
    }
  };

  return (
    <div className={props.className}>
      {(!props.bare || props.toolbar || props.filterable) && (
        <div className={props.toolbar || props.filterable || props.status !== undefined ? 'toolbar' : 'toolbar slim'}>
          {props.toolbar}
          {props.filterable && (
            <input
              type="search"
              aria-label={`Filter ${label.toLowerCase()}`}
              placeholder={props.filterPlaceholder ?? 'Filter…'}
              value={query}
              onChange={(e) => setQuery(e.target.value)}
            />
          )}
          {!props.bare && (
            <span className="table-tools">
              {props.status !== undefined && (
                <span className="muted small" aria-live="polite">
                  {props.status}
                </span>
              )}
              <details ref={chooserRef} className="column-chooser" onToggle={(e) => setChooserOpen(e.currentTarget.open)}>
                <summary className="btn">Columns</summary>
                {/* rendered only while open, so its checkboxes never share a label with the page's own filters */}
                {chooserOpen && (
                  <fieldset>
                    <legend className="small muted">Columns of {label.toLowerCase()}</legend>
                    {columns.map((c) => (
                      <label key={c.id} className="small">
                        <input type="checkbox" checked={!hidden.has(c.id)} disabled={c.required} onChange={() => toggle(c.id)} /> {c.header}
                      </label>
                    ))}
                  </fieldset>
                )}
              </details>
              {exporting && (
                <span className="small muted" role="status">
                  {exporting}
                </span>
              )}
              <button
                type="button"
                className="btn"
                onClick={() => void exportAs('csv')}
                disabled={shown.length === 0 || exporting === 'reading every page…'}
                title={props.exportRows ? 'Every row these filters keep, all pages' : undefined}
              >
                CSV
              </button>
              <button
                type="button"
                className="btn"
                onClick={() => void exportAs('json')}
                disabled={shown.length === 0 || exporting === 'reading every page…'}
                title={props.exportRows ? 'Every row these filters keep, all pages' : undefined}
              >
                JSON
              </button>
            </span>
          )}
        </div>
      )}
      {shown.length === 0 && props.empty ? (
        props.empty
      ) : (
        <div className="table-scroll">
          {/* busy while the server fetches another page or filter: screen readers (and tests) wait for it */}
          <table className="data" aria-label={label} aria-busy={props.paging?.busy || undefined}>
            <thead>
              <tr>
                {visible.map((c) => {
                  const active = sort !== null && sortable(c) && sort.id === sortId(c);
                  return (
                    <th
                      key={c.id}
                      scope="col"
                      className={c.headerClassName}
                      title={c.headerTitle}
                      aria-sort={active ? (sort.direction === 'asc' ? 'ascending' : 'descending') : undefined}
                    >
                      {sortable(c) ? (
                        <button type="button" onClick={() => onHeader(c)}>
                          {c.header} {active ? (sort.direction === 'asc' ? '▲' : '▼') : ''}
                        </button>
                      ) : c.headerHidden ? (
                        <span className="sr-only">{c.header}</span>
                      ) : (
                        c.header
                      )}
                    </th>
                  );
                })}
              </tr>
            </thead>
            <tbody>
              {pageRows.map((r) => (
                <tr key={rowKey(r)} {...rowProps?.(r)}>
                  {visible.map((c) => (
                    <td key={c.id} className={c.className}>
                      {c.cell(r)}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {paging ? (
        <Pager {...paging} noun={noun} />
      ) : pageSize && shown.length > pageSize ? (
        <Pager offset={pageOffset} limit={pageSize} total={shown.length} onOffset={setOffset} noun={noun} />
      ) : null}
    </div>
  );
}
