'use client';
// The most recent scheduler ticks: status, duration, what they decided and did, errors.
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTRPC } from '@/components/trpc/client';
import { formatUtc } from '@/components/ui/format';
import { EmptyState, ErrorState, LoadingRows } from '@/components/ui/states';
import { TICK_TONE, tickDurationMs } from './scheduler-status';
import { formatDuration, isoOf } from '@/components/ui/zoned-time';

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
          times in fleet time (UTC)
        </span>
      </div>
      {ticks.isPending ? (
        <LoadingRows rows={5} />
      ) : ticks.isError ? (
        <ErrorState error={ticks.error} onRetry={() => ticks.refetch()} />
      ) : ticks.data.length === 0 ? (
        <EmptyState title="No tick yet">Use “Run now” or “Dry run” above, or start the server with the scheduler loop on.</EmptyState>
      ) : (
        <div className="table-scroll" style={{ maxHeight: 420 }}>
          <table className="data" aria-label="Recent ticks">
            <thead>
              <tr>
                <th scope="col">#</th>
                <th scope="col">Started</th>
                <th scope="col">Status</th>
                <th scope="col" className="sch-num">
                  Duration
                </th>
                <th scope="col" className="sch-num">
                  Clusters
                </th>
                <th scope="col" className="sch-num">
                  Upgrades
                </th>
                <th scope="col" className="sch-num">
                  Skips
                </th>
                <th scope="col" className="sch-num">
                  Cancels
                </th>
                <th scope="col" className="sch-num" title="actions created / done / failed">
                  Actions c/d/f
                </th>
                <th scope="col" className="sch-num">
                  Events
                </th>
                <th scope="col">Holder · error</th>
              </tr>
            </thead>
            <tbody>
              {ticks.data.map((t) => {
                const s = t.summary ?? {};
                const n = (k: string) => (t.summary ? (s[k] ?? 0) : '—');
                return (
                  <tr key={t.id} data-tick={t.id}>
                    <td className="mono">{t.id}</td>
                    <td className="nowrap small">{formatUtc(isoOf(t.startedAt))}</td>
                    <td className="nowrap">
                      <span className={`badge ${TICK_TONE[t.status] ?? ''}`}>{t.status}</span>{' '}
                      {t.dryRun && <span className="badge info">dry run</span>}
                    </td>
                    <td className="sch-num nowrap">{formatDuration(tickDurationMs(t))}</td>
                    <td className="sch-num">{n('clusters')}</td>
                    <td className="sch-num">{n('upgrades')}</td>
                    <td className="sch-num">{n('skips')}</td>
                    <td className="sch-num">{n('cancels')}</td>
                    <td className="sch-num nowrap">
                      {t.summary ? `${n('intentsCreated')} / ${n('intentsDone')} / ${n('intentsFailed')}` : '—'}
                    </td>
                    <td className="sch-num">{n('events')}</td>
                    <td className="small" style={{ maxWidth: 380 }}>
                      <span className="muted mono">{t.holder}</span>
                      {t.error && (
                        <div className="sch-wrap" style={{ color: 'var(--bad)' }}>
                          {t.error}
                        </div>
                      )}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
