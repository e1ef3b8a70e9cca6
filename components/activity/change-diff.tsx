'use client';
// A compact before → after view of one change, from the field changes the server computed
// (activity.changes: path, before, after): the first few shown, the rest behind a button.
import { useState } from 'react';
import type { inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '@/server/api/root';
import { formatUtc } from '@/components/ui/zoned-time';

type FieldChange = inferRouterOutputs<AppRouter>['activity']['changes']['rows'][number]['changes'][number];

const SHOWN = 5;
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?Z$/;
const SIGN = { added: '+', removed: '−', changed: '~' } as const;
const OP = { added: 'add', removed: 'del', changed: 'mod' } as const;

/** A field value as text: instants in UTC, empty text visible as "". */
export function fieldText(value: FieldChange['before']): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return value === '' ? '""' : ISO_INSTANT.test(value) ? formatUtc(value) : value;
  return String(value);
}

export function ChangeDiff({ changes, omitted }: { changes: readonly FieldChange[]; omitted: number }) {
  const [open, setOpen] = useState(false);
  if (changes.length === 0) return <span className="muted">—</span>;
  const visible = open ? changes : changes.slice(0, SHOWN);
  return (
    <div className="act-diff">
      {visible.map((c) => (
        <div className="row" key={`${c.kind}:${c.path}`}>
          <span className={`sign ${OP[c.kind]}`} aria-hidden="true">
            {SIGN[c.kind]}
          </span>
          {c.path !== '(root)' && (
            <span className="key" title={c.path}>
              {c.path}
            </span>
          )}
          <span>
            {c.kind === 'changed' ? (
              <>
                <span className="old">{fieldText(c.before)}</span> → <span className="new">{fieldText(c.after)}</span>
              </>
            ) : c.kind === 'added' ? (
              <span className="new">{fieldText(c.after)}</span>
            ) : (
              <span className="old">{fieldText(c.before)}</span>
            )}
          </span>
        </div>
      ))}
      {(changes.length > SHOWN || omitted > 0) && (
        <div className="muted">
          {changes.length > SHOWN && (
            <button type="button" onClick={() => setOpen((v) => !v)} aria-expanded={open}>
              {open ? 'show less' : `+${changes.length - SHOWN} more`}
            </button>
          )}
          {changes.length > SHOWN && omitted > 0 ? ' · ' : ''}
          {omitted > 0 && `${omitted} more changes not listed`}
        </div>
      )}
    </div>
  );
}
