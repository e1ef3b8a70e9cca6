'use client';
// The most recent scheduler ticks: status, duration, what they decided and did, errors.
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTRPC } from '@/components/trpc/client';
import type { inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '@/server/api/root';
import { DataTable, type Column } from '@/components/ui/data-table';
import { QueryState } from '@/components/ui/query-state';
import { TICK_TONE, tickDurationMs } from './scheduler-status';
import { formatDuration, isoOf } from '@/components/ui/zoned-time';
import { ZonedTime } from '@/components/ui/zoned-time-view';

type Tick = inferRouterOutputs<AppRouter>['scheduler']['recentTicks'][number];

const count = (t: Tick, key: string) => (t.summary ? (t.summary[key] ?? 0) : null);
const numeric = (key: string, header: string, extra: Partial<Column<Tick>> = {}): Column<Tick> => ({
  id: key,
  header,
  className: 'sch-num',
  headerClassName: 'sch-num',
  value: (t) => count(t, key),
  cell: (t) => count(t, key) ?? '—',
  ...extra,
});

const COLUMNS: Column<Tick>[] = [
  { id: 'id', header: '#', className: 'mono', required: true, value: (t) => t.id, cell: (t) => t.id },
  {
    id: 'started',
    header: 'Started',
    className: 'nowrap small',
    value: (t) => isoOf(t.startedAt),
    cell: (t) => <ZonedTime iso={t.startedAt} />,
  },
  {
    id: 'status',
    header: 'Status',
    className: 'nowrap',
    value: (t) => t.status,
    csv: (t) => (t.dryRun ? `${t.status} (dry run)` : t.status),
    cell: (t) => (
      <>
        <span className={`badge ${TICK_TONE[t.status] ?? ''}`}>{t.status}</span> {t.dryRun && <span className="badge info">dry run</span>}
      </>
    ),
  },
  {
    id: 'duration',
    header: 'Duration',
    className: 'sch-num nowrap',
    headerClassName: 'sch-num',
    value: (t) => tickDurationMs(t),
    cell: (t) => formatDuration(tickDurationMs(t)),
  },
  numeric('clusters', 'Clusters'),
  numeric('upgrades', 'Upgrades'),
  numeric('skips', 'Skips'),
  numeric('cancels', 'Cancels'),
  {
    id: 'actions',
    header: 'Actions c/d/f',
    headerTitle: 'actions created / done / failed',
    className: 'sch-num nowrap',
    headerClassName: 'sch-num',
    value: (t) => count(t, 'intentsCreated'),
    csv: (t) => (t.summary ? `${count(t, 'intentsCreated')}/${count(t, 'intentsDone')}/${count(t, 'intentsFailed')}` : null),
    cell: (t) => (t.summary ? `${count(t, 'intentsCreated')} / ${count(t, 'intentsDone')} / ${count(t, 'intentsFailed')}` : '—'),
  },
  numeric('events', 'Events'),
  {
    id: 'holder',
    header: 'Holder · error',
    className: 'small',
    csv: (t) => [t.holder, t.error].filter(Boolean).join(' · '),
    cell: (t) => (
      <div style={{ maxWidth: 380 }}>
        <span className="muted mono">{t.holder}</span>
        {t.error && (
          <div className="sch-wrap" style={{ color: 'var(--bad)' }}>
            {t.error}
          </div>
        )}
      </div>
    ),
  },
];

export function TicksTable() {
  const trpc = useTRPC();
  const [limit, setLimit] = useState(20);
  const ticks = useQuery({ ...trpc.scheduler.recentTicks.queryOptions({ limit }), refetchInterval: 10_000 });

  return (
    <section className="panel flush" aria-labelledby="ticks-h">
      <div className="toolbar">
        <h2 id="ticks-h" style={{ margin: 0 }}>
          Recent ticks
        </h2>
        <select aria-label="How many ticks" value={limit} onChange={(e) => setLimit(Number(e.target.value))}>
          {[20, 50, 200].map((n) => (
            <option key={n} value={n}>
              last {n}
            </option>
          ))}
        </select>
        <span className="small muted" style={{ marginLeft: 'auto' }}>
          times in fleet time
        </span>
      </div>
      <QueryState
        query={ticks}
        loadingRows={5}
        isEmpty={(data) => data.length === 0}
        empty={{ title: 'No tick yet', hint: 'Use “Run now” or “Dry run” above, or start the server with the scheduler loop on.' }}
      >
        {(data) => (
          <DataTable
            id="scheduler-ticks"
            label="Recent ticks"
            rows={data}
            columns={COLUMNS}
            rowKey={(t) => t.id}
            rowProps={(t) => ({ 'data-tick': t.id })}
            initialSort={{ id: 'id', direction: 'desc' }}
            noun="ticks"
          />
        )}
      </QueryState>
    </section>
  );
}
