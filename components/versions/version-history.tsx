'use client';
// The upgrade service's version history: version × workload → soak days and reporting clusters,
// clusters running each version now, and which regex (and why) blocks it.
import { useQuery } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { useTRPC } from '@/components/trpc/client';
import { formatUtc } from '@/components/ui/format';
import { EmptyState, ErrorState, LoadingRows } from '@/components/ui/states';

const PAGE = 100;

export function VersionHistory() {
  const trpc = useTRPC();
  const history = useQuery(trpc.versions.history.queryOptions());
  const [search, setSearch] = useState('');
  const [only, setOnly] = useState<'all' | 'running' | 'blocked'>('all');
  const [shown, setShown] = useState(PAGE);

  const rows = useMemo(() => {
    const all = history.data?.versions ?? [];
    return all.filter(
      (v) => v.version.includes(search.trim()) && (only === 'all' || (only === 'running' ? v.runningCount > 0 : v.blockedBy.length > 0)),
    );
  }, [history.data, search, only]);

  if (history.isPending)
    return (
      <div className="panel">
        <LoadingRows rows={8} />
      </div>
    );
  if (history.isError)
    return (
      <div className="panel">
        <ErrorState error={history.error} onRetry={() => history.refetch()} />
      </div>
    );
  const { workloads, blocked } = history.data;

  return (
    <>
      <section className="panel flush" aria-labelledby="blocked-h">
        <div className="toolbar">
          <h2 id="blocked-h" style={{ margin: 0 }}>
            Blocked versions
          </h2>
          <span className="small muted">organization-wide regexes (unanchored search); edit them on the Policies page</span>
        </div>
        {blocked.length === 0 ? (
          <EmptyState title="No version is blocked" />
        ) : (
          <table className="data">
            <thead>
              <tr>
                <th scope="col">Pattern</th>
                <th scope="col">Reason</th>
                <th scope="col">Matches (known versions)</th>
                <th scope="col">Added</th>
              </tr>
            </thead>
            <tbody>
              {blocked.map((b) => (
                <tr key={b.pattern} data-pattern={b.pattern}>
                  <td className="nowrap">
                    <code>{b.pattern}</code>
                  </td>
                  <td>{b.reason || <span className="muted">no reason given</span>}</td>
                  <td className="small">
                    {b.matches.length ? (
                      <span className="mono">
                        {b.matches.slice(0, 8).join(', ')}
                        {b.matches.length > 8 ? ` +${b.matches.length - 8}` : ''}
                      </span>
                    ) : (
                      <span className="muted">none yet</span>
                    )}
                  </td>
                  <td className="small nowrap">
                    {formatUtc(b.createdAt)}
                    <div className="muted">by {b.createdBy}</div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>

      <section className="panel flush" aria-labelledby="vh-h">
        <div className="toolbar">
          <h2 id="vh-h" style={{ margin: 0 }}>
            Version history
          </h2>
          <input
            type="search"
            aria-label="Filter versions"
            placeholder="Filter versions, e.g. 4.13."
            value={search}
            onChange={(e) => {
              setSearch(e.target.value);
              setShown(PAGE);
            }}
          />
          <select
            aria-label="Show"
            value={only}
            onChange={(e) => {
              setOnly(e.target.value as typeof only);
              setShown(PAGE);
            }}
          >
            <option value="all">all versions</option>
            <option value="running">running now</option>
            <option value="blocked">blocked</option>
          </select>
          <span className="small muted" style={{ marginLeft: 'auto' }} aria-live="polite">
            {rows.length} version{rows.length === 1 ? '' : 's'} · soak in cluster-days (reporting clusters)
          </span>
        </div>
        {rows.length === 0 ? (
          <EmptyState title={history.data.versions.length ? 'No version matches' : 'No version history yet'}>
            {history.data.versions.length
              ? 'Clear the filter to see more.'
              : 'Soak accumulates once the scheduler has seen clusters run a version.'}
          </EmptyState>
        ) : (
          <div className="table-scroll">
            <table className="data" aria-label="Version history">
              <thead>
                <tr>
                  <th scope="col">Version</th>
                  <th scope="col">Clusters now</th>
                  {workloads.map((w) => (
                    <th scope="col" key={w}>
                      {w}
                    </th>
                  ))}
                  <th scope="col">Blocked by</th>
                  <th scope="col">First seen</th>
                </tr>
              </thead>
              <tbody>
                {rows.slice(0, shown).map((v) => (
                  <tr key={v.version} data-version={v.version}>
                    <td className="mono nowrap">{v.version}</td>
                    <td>{v.runningCount || <span className="muted">0</span>}</td>
                    {workloads.map((w) => {
                      const s = v.workloads[w];
                      return (
                        <td
                          key={w}
                          className="nowrap small"
                          title={
                            s
                              ? `${s.soakDays.toFixed(2)} soak days from ${s.reportingCount} cluster(s): ${s.reporting.join(', ')}`
                              : undefined
                          }
                        >
                          {s ? (
                            <>
                              {s.soakDays.toFixed(2)} <span className="muted">({s.reportingCount})</span>
                            </>
                          ) : (
                            <span className="muted">—</span>
                          )}
                        </td>
                      );
                    })}
                    <td className="small">
                      {v.blockedBy.length === 0 ? (
                        <span className="muted">—</span>
                      ) : (
                        v.blockedBy.map((b) => (
                          <div key={b.pattern} title={b.reason || undefined}>
                            <span className="badge bad">blocked</span> <code className="nowrap">{b.pattern}</code>
                          </div>
                        ))
                      )}
                    </td>
                    <td className="small nowrap">{formatUtc(v.firstSeenAt)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
            {rows.length > shown && (
              <div className="pager">
                <span className="small muted">
                  Showing {shown} of {rows.length}
                </span>
                <button className="btn" onClick={() => setShown((n) => n + PAGE)}>
                  Show {Math.min(PAGE, rows.length - shown)} more
                </button>
              </div>
            )}
          </div>
        )}
      </section>
    </>
  );
}
