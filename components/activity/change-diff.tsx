'use client';
// A compact before → after view of one change: only changed keys, created/removed values,
// the unchanged ones counted; the server's cut summaries are marked as such.
import { useState } from 'react';
import { diffSides, parseSide } from './change-summary';

const SHOWN = 5;

export function ChangeDiff({ before, after }: { before: string | null; after: string | null }) {
  const [open, setOpen] = useState(false);
  const { rows, truncated } = diffSides(parseSide(before), parseSide(after));
  const changed = rows.filter((r) => r.op !== 'same');
  const same = rows.length - changed.length;
  if (rows.length === 0) return <span className="muted">—</span>;
  // nothing changed at key level (e.g. both sides cut before the change): list what we know
  const list = changed.length ? changed : rows;
  const visible = open ? list : list.slice(0, SHOWN);
  return (
    <div className="act-diff">
      {visible.map((r) => (
        <div className="row" key={`${r.op}:${r.key}`}>
          <span className={`sign ${r.op}`} aria-hidden="true">
            {r.op === 'add' ? '+' : r.op === 'del' ? '−' : r.op === 'mod' ? '~' : ' '}
          </span>
          {r.key && (
            <span className="key" title={r.key}>
              {r.key}
            </span>
          )}
          <span>
            {r.op === 'mod' ? (
              <>
                <span className="old">{r.before}</span> → <span className="new">{r.after}</span>
              </>
            ) : r.op === 'add' ? (
              <span className="new">{r.after}</span>
            ) : r.op === 'del' ? (
              <span className="old">{r.before}</span>
            ) : (
              <span>{r.after ?? r.before}</span>
            )}
          </span>
        </div>
      ))}
      {(list.length > SHOWN || (changed.length > 0 && same > 0) || truncated) && (
        <div className="muted">
          {list.length > SHOWN && (
            <button type="button" onClick={() => setOpen((v) => !v)} aria-expanded={open}>
              {open ? 'show less' : `+${list.length - SHOWN} more`}
            </button>
          )}
          {list.length > SHOWN && ((changed.length > 0 && same > 0) || truncated) ? ' · ' : ''}
          {changed.length > 0 && same > 0 ? `${same} unchanged` : ''}
          {changed.length > 0 && same > 0 && truncated ? ' · ' : ''}
          {truncated && <span title="The server sends a shortened summary of large values">summary shortened</span>}
        </div>
      )}
    </div>
  );
}
