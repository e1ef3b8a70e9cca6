'use client';
// Offset paging: first / previous / next / last and a page number to jump to, with the range shown.
import { useEffect, useState } from 'react';

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
  const [typed, setTyped] = useState(String(page + 1));
  useEffect(() => setTyped(String(page + 1)), [page]);
  const jump = () => {
    const n = Math.round(Number(typed));
    if (!Number.isFinite(n) || typed.trim() === '') return setTyped(String(page + 1));
    const target = Math.min(pages, Math.max(1, n));
    setTyped(String(target));
    if (target !== page + 1) onOffset((target - 1) * limit);
  };
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
      {pages > 1 && (
        <form
          className="pager-jump small"
          // a page past the end is clamped by jump(), not refused by the browser's max check
          noValidate
          onSubmit={(e) => {
            e.preventDefault();
            jump();
          }}
        >
          <label>
            Page{' '}
            <input
              type="number"
              min={1}
              max={pages}
              value={typed}
              aria-label={`Page number of ${noun}`}
              onChange={(e) => setTyped(e.target.value)}
              onBlur={jump}
            />
          </label>
        </form>
      )}
      <button type="button" className="btn" disabled={offset + limit >= total} onClick={() => onOffset(offset + limit)}>
        Next
      </button>
      <button type="button" className="btn" disabled={offset >= last} onClick={() => onOffset(last)} aria-label="Last page">
        »
      </button>
    </div>
  );
}
