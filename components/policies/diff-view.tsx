'use client';
// A change as a list of field-level differences (added / removed / changed, with values).
import type { JsonChange } from '@/lib/json-diff';

function show(v: unknown): string {
  if (v === undefined) return '';
  return typeof v === 'string' ? v : JSON.stringify(v);
}

export function DiffView({ changes, empty = 'No changes' }: { changes: JsonChange[]; empty?: string }) {
  if (changes.length === 0)
    return (
      <p className="muted small" style={{ margin: 0 }}>
        {empty}
      </p>
    );
  return (
    <table className="data" aria-label="Changes">
      <thead>
        <tr>
          <th scope="col">Field</th>
          <th scope="col">Before</th>
          <th scope="col">After</th>
        </tr>
      </thead>
      <tbody>
        {changes.map((c) => (
          <tr key={c.kind + c.path}>
            <td className="mono small" style={{ overflowWrap: 'anywhere' }}>
              <span className={`badge ${c.kind === 'added' ? 'ok' : c.kind === 'removed' ? 'bad' : 'warn'}`}>{c.kind}</span> {c.path}
            </td>
            <td className="mono small" style={{ color: 'var(--bad)', overflowWrap: 'anywhere' }}>
              {c.kind !== 'added' && <del>{show(c.before)}</del>}
            </td>
            <td className="mono small" style={{ color: 'var(--ok)', overflowWrap: 'anywhere' }}>
              {c.kind !== 'removed' && <ins style={{ textDecoration: 'none' }}>{show(c.after)}</ins>}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
