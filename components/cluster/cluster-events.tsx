'use client';
// Recent engine decisions and provider actions for one cluster.
import { useMemo } from 'react';
import type { inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '@/server/api/root';
import { DecisionBadge } from '@/components/ui/badges';
import { DataTable, type Column } from '@/components/ui/data-table';
import { QueryState, type QueryLike } from '@/components/ui/query-state';
import { formatUtc } from '@/components/ui/zoned-time';
import { ZonedTime } from '@/components/ui/zoned-time-view';

type Explain = inferRouterOutputs<AppRouter>['clusters']['explain'];

interface EventRow {
  id: string;
  at: string;
  kind: 'decision' | 'action';
  /** the badge's text, for sorting and CSV */
  label: string;
  badge: React.ReactNode;
  text: string;
}

const COLUMNS: Column<EventRow>[] = [
  { id: 'at', header: 'When', className: 'small', value: (r) => r.at, cell: (r) => <ZonedTime iso={r.at} /> },
  { id: 'what', header: 'What', value: (r) => r.label, cell: (r) => r.badge },
  { id: 'details', header: 'Details', className: 'small', value: (r) => r.text, cell: (r) => r.text },
];

function eventRows({ decisions, actions }: Explain['events']): EventRow[] {
  return [
    ...decisions.map<EventRow>((d, i) => ({
      id: `decision-${i}`,
      at: d.at,
      label: d.reason ?? d.action,
      kind: 'decision',
      badge: <DecisionBadge action={d.action} reason={d.reason} />,
      text: [d.version && d.action !== 'skip' ? `→ ${d.version}` : '', d.message ?? ''].filter(Boolean).join(' '),
    })),
    ...actions.map<EventRow>((a, i) => ({
      id: `action-${i}`,
      at: a.at,
      label: a.kind,
      kind: 'action',
      badge: <span className={`badge ${a.status === 'done' ? 'ok' : a.status === 'failed' ? 'bad' : 'info'}`}>{a.kind}</span>,
      text: `${a.version} ${a.status}${a.nextRun ? ` for ${formatUtc(a.nextRun)}` : ''}${a.error ? `: ${a.error}` : ''}`,
    })),
  ];
}

export function ClusterEvents({ explain }: { explain: QueryLike<Explain> }) {
  // one list of both kinds; the table orders it (newest first) and re-sorts on a header click
  const events = explain.data?.events;
  const rows = useMemo(() => (events ? eventRows(events) : []), [events]);
  return (
    <section className="panel flush" aria-labelledby="events-h">
      <div className="toolbar">
        <h2 id="events-h" style={{ margin: 0 }}>
          Events
        </h2>
        <span className="small muted">recent scheduler decisions and actions</span>
      </div>
      <QueryState
        query={explain}
        loadingRows={4}
        isEmpty={() => rows.length === 0}
        empty={{ title: 'No events yet', hint: 'The scheduler records its decisions and actions here once it runs.' }}
      >
        {() => (
          <DataTable
            id="cluster-events"
            label="Events"
            rows={rows}
            columns={COLUMNS}
            rowKey={(r) => r.id}
            initialSort={{ id: 'at', direction: 'desc' }}
            noun="events"
            pageSize={50}
          />
        )}
      </QueryState>
    </section>
  );
}
