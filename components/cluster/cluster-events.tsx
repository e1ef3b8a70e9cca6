'use client';
// Recent engine decisions and provider actions for one cluster.
import type { inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '@/server/api/root';
import { DecisionBadge } from '@/components/ui/badges';
import { formatUtc } from '@/components/ui/format';
import { EmptyState, ErrorState, LoadingRows } from '@/components/ui/states';

type Explain = inferRouterOutputs<AppRouter>['clusters']['explain'];

interface EventRow {
  at: string;
  kind: 'decision' | 'action';
  badge: React.ReactNode;
  text: string;
}

export function ClusterEvents({
  explain,
}: {
  explain: { isPending: boolean; isError: boolean; data?: Explain; error: { message: string } | null };
}) {
  let rows: EventRow[] = [];
  if (explain.data) {
    const { decisions, actions } = explain.data.events;
    rows = [
      ...decisions.map<EventRow>((d) => ({
        at: d.at,
        kind: 'decision',
        badge: <DecisionBadge action={d.action} reason={d.reason} />,
        text: [d.version && d.action !== 'skip' ? `→ ${d.version}` : '', d.message ?? ''].filter(Boolean).join(' '),
      })),
      ...actions.map<EventRow>((a) => ({
        at: a.at,
        kind: 'action',
        badge: <span className={`badge ${a.status === 'done' ? 'ok' : a.status === 'failed' ? 'bad' : 'info'}`}>{a.kind}</span>,
        text: `${a.version} ${a.status}${a.nextRun ? ` for ${formatUtc(a.nextRun)}` : ''}${a.error ? `: ${a.error}` : ''}`,
      })),
    ].sort((x, y) => y.at.localeCompare(x.at));
  }
  return (
    <section className="panel flush" aria-labelledby="events-h">
      <div className="toolbar">
        <h2 id="events-h" style={{ margin: 0 }}>
          Events
        </h2>
        <span className="small muted">recent scheduler decisions and actions</span>
      </div>
      {explain.isPending ? (
        <LoadingRows rows={4} />
      ) : explain.isError ? (
        <ErrorState error={explain.error} />
      ) : rows.length === 0 ? (
        <EmptyState title="No events yet">The scheduler records its decisions and actions here once it runs.</EmptyState>
      ) : (
        <div className="table-scroll" style={{ maxHeight: 360 }}>
          <table className="data">
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">What</th>
                <th scope="col">Details</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((r, i) => (
                <tr key={`${r.at}-${i}`}>
                  <td className="small nowrap">{formatUtc(r.at)}</td>
                  <td>{r.badge}</td>
                  <td className="small">{r.text}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
