'use client';
// Panels shared by the organization and cluster editors: problems and lint warnings, the change
// as a diff, the engine's decisions now vs after the change, the conflict banner and history.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ClusterLink } from '@/components/ui/cluster-link';
import { useState } from 'react';
import type { inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '@/server/api/root';
import type { JsonChange } from '@/lib/json-diff';
import { useTRPC } from '@/components/trpc/client';
import { DecisionBadge } from '@/components/ui/badges';
import { formatUtc } from '@/components/ui/zoned-time';
import { EmptyState } from '@/components/ui/states';
import { DataTable, type Column } from '@/components/ui/data-table';
import { QueryState, type QueryLike } from '@/components/ui/query-state';
import './policies.css';
import { DiffView } from './diff-view';

type Outputs = inferRouterOutputs<AppRouter>;
type Problem = { path: string; message: string; cluster?: string; field?: string };
type Warning = Problem & { code: string };

export function ValidationPanel({
  pending,
  problems,
  warnings,
  yamlError,
}: {
  pending: boolean;
  problems: Problem[];
  warnings: Warning[];
  yamlError: string | null;
}) {
  const status = yamlError ? (
    <span className="badge bad">YAML does not parse</span>
  ) : pending ? (
    <span className="badge">checking…</span>
  ) : problems.length ? (
    <span className="badge bad">
      {problems.length} problem{problems.length === 1 ? '' : 's'}
    </span>
  ) : (
    <span className="badge ok">valid</span>
  );
  return (
    <section className="panel" aria-labelledby="val-h" aria-live="polite">
      <h2 id="val-h">Validation {status}</h2>
      {problems.length > 0 && (
        <ul className="small" style={{ margin: '0 0 8px', paddingLeft: 18 }}>
          {problems.map((p) => (
            <li key={p.path + p.message} style={{ color: 'var(--bad)' }}>
              <code>{p.path}</code>: {p.message}
            </li>
          ))}
        </ul>
      )}
      {warnings.length > 0 ? (
        <>
          <div className="small" style={{ fontWeight: 600 }}>
            Lint warnings
          </div>
          <ul className="small" style={{ margin: 0, paddingLeft: 18 }}>
            {warnings.map((w) => (
              <li key={w.code + w.path + w.message} style={{ color: 'var(--warn)' }}>
                <span className="badge warn">{w.code}</span> <code>{w.path}</code>: {w.message}
              </li>
            ))}
          </ul>
        </>
      ) : (
        !problems.length &&
        !yamlError &&
        !pending && (
          <p className="small muted" style={{ margin: 0 }}>
            No problems and no lint warnings.
          </p>
        )
      )}
    </section>
  );
}

export function ChangesPanel({ changes }: { changes: JsonChange[] }) {
  return (
    <section className="panel" aria-labelledby="diff-h">
      <h2 id="diff-h">
        Your change{' '}
        <span className="small muted">
          {changes.length} field{changes.length === 1 ? '' : 's'}
        </span>
      </h2>
      <DiffView changes={changes} empty="Nothing changed yet." />
    </section>
  );
}

type Impact = Outputs['policies']['previewImpact'];
type DecisionChange = Impact['changes'][number];
type Decision = DecisionChange['before'];

/** A decision as one line of text, for sorting, filtering and CSV. */
function decisionText(d: Decision): string {
  if (!d) return 'not managed';
  return [
    d.reason ?? d.action,
    d.version && d.action !== 'skip' ? `→ ${d.version}` : '',
    d.nextRun ? `at ${formatUtc(d.nextRun)}` : '',
    d.message,
  ]
    .filter(Boolean)
    .join(' ');
}

const IMPACT_COLUMNS: Column<DecisionChange>[] = [
  {
    id: 'cluster',
    header: 'Cluster',
    required: true,
    className: 'nowrap',
    value: (c) => c.cluster,
    cell: (c) => <ClusterLink name={c.cluster} />,
  },
  { id: 'before', header: 'Now', value: (c) => decisionText(c.before), cell: (c) => <DecisionCell d={c.before} /> },
  { id: 'after', header: 'After the change', value: (c) => decisionText(c.after), cell: (c) => <DecisionCell d={c.after} /> },
];

export function ImpactPanel({ impact }: { impact: QueryLike<Impact> | null }) {
  return (
    <section className="panel flush" aria-labelledby="impact-h">
      <div className="toolbar">
        <h2 id="impact-h" style={{ margin: 0 }}>
          Impact preview
        </h2>
        <span className="small muted">the engine's decisions now vs. with your change</span>
        {impact?.data?.ok && (
          <span className="small" style={{ marginLeft: 'auto' }} data-testid="impact-summary">
            {impact.data.changes.length} of {impact.data.evaluated} decisions change
          </span>
        )}
      </div>
      {!impact ? (
        <EmptyState title="Make a valid change to see its impact" />
      ) : (
        <QueryState
          query={impact}
          loadingRows={3}
          isEmpty={(data) => !data.ok || data.changes.length === 0}
          empty={(data) =>
            data.ok
              ? {
                  title: 'No decision changes',
                  hint: `The engine would decide the same for all ${data.evaluated} managed clusters right now.`,
                }
              : 'Fix the problems first'
          }
        >
          {(data) => (
            <DataTable
              id="policy-impact"
              label="Decision changes"
              noun="clusters"
              className="impact-table"
              pageSize={25}
              rows={data.changes}
              columns={IMPACT_COLUMNS}
              rowKey={(c) => c.cluster}
            />
          )}
        </QueryState>
      )}
    </section>
  );
}

function DecisionCell({ d }: { d: Decision }) {
  if (!d) return <span className="muted small">not managed</span>;
  return (
    <div>
      <DecisionBadge action={d.action} reason={d.reason} />
      {d.version && d.action !== 'skip' && <span className="mono small"> → {d.version}</span>}
      {d.nextRun && <span className="small"> at {formatUtc(d.nextRun)}</span>}
      <div className="small muted">{d.message}</div>
    </div>
  );
}

export function ConflictBanner({ message, onReload, onRebase }: { message: string; onReload: () => void; onRebase: () => void }) {
  return (
    <div className="banner warn" role="alert" data-testid="conflict">
      <strong>Someone else changed this policy while you edited it.</strong> {message}
      <div style={{ display: 'flex', gap: 8, marginTop: 8, flexWrap: 'wrap' }}>
        <button className="btn" onClick={onReload}>
          Reload theirs (discard my edit)
        </button>
        <button className="btn primary" onClick={onRebase}>
          Keep my edit on top of theirs (review the diff, then save)
        </button>
      </div>
    </div>
  );
}

type Revision = Outputs['policies']['history']['revisions'][number];

export function HistoryPanel({
  scope,
  subject,
  currentRevision,
  onReverted,
}: {
  scope: 'organization' | 'cluster';
  subject?: string;
  currentRevision: number | undefined;
  onReverted: () => void;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const history = useQuery(trpc.policies.history.queryOptions({ scope, subject, limit: 50 }));
  const [open, setOpen] = useState<number | null>(null);
  // a revert is confirmed with the changes it undoes in view, and may say why
  const [confirming, setConfirming] = useState<number | null>(null);
  const [reason, setReason] = useState('');
  const revert = useMutation(
    trpc.policies.revert.mutationOptions({
      onSuccess: async () => {
        setConfirming(null);
        setReason('');
        await queryClient.invalidateQueries({ queryKey: trpc.policies.pathKey() });
        onReverted();
      },
    }),
  );
  return (
    <section className="panel flush" aria-labelledby="hist-h">
      <div className="toolbar">
        <h2 id="hist-h" style={{ margin: 0 }}>
          History
        </h2>
        {history.data && (
          <span className="small muted">
            {history.data.total} revision{history.data.total === 1 ? '' : 's'}
          </span>
        )}
      </div>
      {revert.isError && (
        <div className="banner bad" role="alert" style={{ margin: 12 }}>
          Revert failed: {revert.error.message}
        </div>
      )}
      <QueryState
        query={history}
        loadingRows={3}
        isEmpty={(data) => data.revisions.length === 0}
        empty={{ title: 'No changes recorded yet', hint: 'Every saved change shows up here with its diff and a revert.' }}
      >
        {(data) => (
          <ol style={{ listStyle: 'none', margin: 0, padding: 0 }}>
            {data.revisions.map((r: Revision) => (
              <li key={r.id} style={{ borderBottom: '1px solid var(--border)', padding: '8px 12px' }} data-revision={r.id}>
                <div style={{ display: 'flex', gap: 8, alignItems: 'center', flexWrap: 'wrap' }}>
                  <span className="badge accent">rev {r.revision}</span>
                  <span className="small">{formatUtc(r.at)}</span>
                  <span className="small muted">by {r.actor}</span>
                  <span style={{ flex: 1, minWidth: 160 }}>{r.summary}</span>
                  <button className="btn" aria-expanded={open === r.id} onClick={() => setOpen(open === r.id ? null : r.id)}>
                    {open === r.id ? 'Hide diff' : `Diff (${r.changes.length})`}
                  </button>
                  <button
                    className="btn danger"
                    disabled={revert.isPending || currentRevision === undefined}
                    aria-expanded={confirming === r.id}
                    onClick={() => setConfirming(confirming === r.id ? null : r.id)}
                    title="Restore the state before this change (recorded as a new revision)"
                  >
                    Revert…
                  </button>
                </div>
                {confirming === r.id && (
                  <form
                    className="panel"
                    role="group"
                    aria-label={`Revert rev ${r.revision}`}
                    style={{ marginTop: 8, padding: 12 }}
                    onSubmit={(e) => {
                      e.preventDefault();
                      if (currentRevision !== undefined)
                        revert.mutate({ revisionId: r.id, expectedRevision: currentRevision, reason: reason.trim() || undefined });
                    }}
                  >
                    <p style={{ marginTop: 0 }}>
                      Reverting rev {r.revision} restores what it changed ({r.changes.length} field{r.changes.length === 1 ? '' : 's'}), as
                      a new revision; later revisions stay. It undoes:
                    </p>
                    <DiffView changes={r.changes} />
                    <label className="small" style={{ display: 'block', marginTop: 8 }}>
                      Reason (optional, kept in the history){' '}
                      <input
                        type="text"
                        value={reason}
                        maxLength={500}
                        onChange={(e) => setReason(e.target.value)}
                        style={{ minWidth: 280 }}
                        aria-label="Reason for the revert"
                      />
                    </label>
                    <div style={{ display: 'flex', gap: 8, marginTop: 8 }}>
                      <button type="submit" className="btn danger" disabled={revert.isPending || currentRevision === undefined}>
                        {revert.isPending ? 'Reverting…' : `Revert rev ${r.revision}`}
                      </button>
                      <button type="button" className="btn" onClick={() => setConfirming(null)}>
                        Cancel
                      </button>
                    </div>
                  </form>
                )}
                {open === r.id && (
                  <div style={{ marginTop: 8 }}>
                    <DiffView changes={r.changes} />
                  </div>
                )}
              </li>
            ))}
          </ol>
        )}
      </QueryState>
    </section>
  );
}

/** The editor toolbar's optional "why" for a save, kept in the revision's summary (history, Activity). */
export function SaveReasonInput({ value, onChange }: { value: string; onChange: (value: string) => void }) {
  return (
    <input
      type="text"
      className="save-reason"
      value={value}
      maxLength={500}
      placeholder="reason (optional)"
      aria-label="Reason for this change (optional, kept in the history)"
      title="Why you make this change: kept in the history and Activity"
      onChange={(e) => onChange(e.target.value)}
    />
  );
}
