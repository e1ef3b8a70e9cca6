'use client';
// Offset paging for server-paged tables: first / previous / next / last, with the range shown.

const nf = new Intl.NumberFormat('en-US');

export function Pager({
  offset,
  limit,
  total,
  onOffset,
  busy,
  noun = 'rows',
}: {
  offset: number;
  limit: number;
  total: number;
  onOffset: (offset: number) => void;
  busy?: boolean;
  noun?: string;
}) {
  const pages = Math.max(1, Math.ceil(total / limit));
  const page = Math.floor(offset / limit);
  const last = (pages - 1) * limit;
  return (
    <div className="pager" role="navigation" aria-label={`Pages of ${noun}`}>
      <span className="small muted" aria-live="polite">
        {total === 0
          ? `no ${noun}`
          : `${nf.format(offset + 1)}–${nf.format(Math.min(offset + limit, total))} of ${nf.format(total)} ${noun} · page ${nf.format(page + 1)} of ${nf.format(pages)}`}
        {busy ? ' · loading…' : ''}
      </span>
      <button type="button" className="btn" disabled={offset === 0} onClick={() => onOffset(0)} aria-label="First page">
        «
      </button>
      <button type="button" className="btn" disabled={offset === 0} onClick={() => onOffset(Math.max(0, offset - limit))}>
        Previous
      </button>
      <button type="button" className="btn" disabled={offset + limit >= total} onClick={() => onOffset(offset + limit)}>
        Next
      </button>
      <button type="button" className="btn" disabled={offset >= last} onClick={() => onOffset(last)} aria-label="Last page">
        »
      </button>
    </div>
  );
}
