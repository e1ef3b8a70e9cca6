'use client';
// The upgrade service's version history: version × workload → soak days and reporting clusters,
// clusters running each version now, and which regex (and why) blocks it.
import { useQuery } from '@tanstack/react-query';
import { OrgLink } from '@/components/shell/org-link';
import { useMemo, useState } from 'react';
import { useTRPC } from '@/components/trpc/client';
import type { inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '@/server/api/root';
import { DataTable, type Column } from '@/components/ui/data-table';
import { EmptyState } from '@/components/ui/states';
import { QueryState } from '@/components/ui/query-state';
import { ZonedTime } from '@/components/ui/zoned-time-view';
import { hrefWith } from '@/components/ui/url-state';

const PAGE = 100;

type History = inferRouterOutputs<AppRouter>['versions']['history'];
type Blocked = History['blocked'][number];
type Version = History['versions'][number];
const dash = <span className="muted">—</span>;
/** The Fleet page filtered to the clusters running `version` (an exact version, not a minor). */
const fleetOf = (version: string) => hrefWith('/fleet', { version });

const BLOCKED_COLUMNS: Column<Blocked>[] = [
  { id: 'pattern', header: 'Pattern', required: true, className: 'nowrap', value: (b) => b.pattern, cell: (b) => <code>{b.pattern}</code> },
  { id: 'reason', header: 'Reason', value: (b) => b.reason, cell: (b) => b.reason || <span className="muted">no reason given</span> },
  {
    id: 'matches',
    header: 'Matches (known versions)',
    className: 'small',
    value: (b) => b.matches.length,
    csv: (b) => b.matches.join(' '),
    cell: (b) =>
      b.matches.length ? (
        <span className="mono">
          {b.matches.slice(0, 8).join(', ')}
          {b.matches.length > 8 ? ` +${b.matches.length - 8}` : ''}
        </span>
      ) : (
        <span className="muted">none yet</span>
      ),
  },
  {
    id: 'added',
    header: 'Added',
    className: 'small nowrap',
    value: (b) => b.createdAt,
    cell: (b) => (
      <>
        <ZonedTime iso={b.createdAt} />
        <div className="muted">by {b.createdBy}</div>
      </>
    ),
  },
];

function versionColumns(workloads: readonly string[]): Column<Version>[] {
  return [
    {
      id: 'version',
      header: 'Version',
      required: true,
      className: 'mono nowrap',
      value: (v) => v.version,
      cell: (v) => (v.runningCount ? <OrgLink href={fleetOf(v.version)}>{v.version}</OrgLink> : v.version),
    },
    {
      id: 'running',
      header: 'Clusters now',
      value: (v) => v.runningCount,
      cell: (v) =>
        v.runningCount ? (
          <OrgLink href={fleetOf(v.version)} title={`List the ${v.runningCount} clusters running ${v.version}`}>
            {v.runningCount}
          </OrgLink>
        ) : (
          <span className="muted">0</span>
        ),
    },
    ...workloads.map((w): Column<Version> => ({
      id: `workload:${w}`,
      header: w,
      className: 'nowrap small',
      value: (v) => v.workloads[w]?.soakDays ?? null,
      cell: (v) => {
        const s = v.workloads[w];
        return s ? (
          <span title={`${s.soakDays.toFixed(2)} soak days from ${s.reportingCount} cluster(s): ${s.reporting.join(', ')}`}>
            {s.soakDays.toFixed(2)} <span className="muted">({s.reportingCount})</span>
          </span>
        ) : (
          dash
        );
      },
    })),
    {
      id: 'blocked',
      header: 'Blocked by',
      className: 'small',
      value: (v) => v.blockedBy.map((b) => b.pattern).join(' '),
      cell: (v) =>
        v.blockedBy.length === 0
          ? dash
          : v.blockedBy.map((b) => (
              <div key={b.pattern} title={b.reason || undefined}>
                <span className="badge bad">blocked</span> <code className="nowrap">{b.pattern}</code>
              </div>
            )),
    },
    {
      id: 'firstSeen',
      header: 'First seen',
      className: 'small nowrap',
      value: (v) => v.firstSeenAt,
      cell: (v) => <ZonedTime iso={v.firstSeenAt} />,
    },
  ];
}

export function VersionHistory() {
  const trpc = useTRPC();
  const history = useQuery(trpc.versions.history.queryOptions());
  const [search, setSearch] = useState('');
  const [only, setOnly] = useState<'all' | 'running' | 'blocked'>('all');

  const rows = useMemo(() => {
    const all = history.data?.versions ?? [];
    return all.filter(
      (v) => v.version.includes(search.trim()) && (only === 'all' || (only === 'running' ? v.runningCount > 0 : v.blockedBy.length > 0)),
    );
  }, [history.data, search, only]);

  const historyColumns = useMemo(() => versionColumns(history.data?.workloads ?? []), [history.data?.workloads]);

  return (
    <QueryState query={history} loadingRows={8} frame={(state) => <div className="panel">{state}</div>}>
      {(data) => {
        const { blocked } = data;
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
                <DataTable
                  id="versions-blocked"
                  label="Blocked versions"
                  rows={blocked}
                  columns={BLOCKED_COLUMNS}
                  rowKey={(b) => b.pattern}
                  rowProps={(b) => ({ 'data-pattern': b.pattern })}
                  noun="patterns"
                />
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
                  }}
                />
                <select
                  aria-label="Show"
                  value={only}
                  onChange={(e) => {
                    setOnly(e.target.value as typeof only);
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
                <EmptyState title={data.versions.length ? 'No version matches' : 'No version history yet'}>
                  {data.versions.length
                    ? 'Clear the filter to see more.'
                    : 'Soak accumulates once the scheduler has seen clusters run a version.'}
                </EmptyState>
              ) : (
                <DataTable
                  id="versions-history"
                  label="Version history"
                  rows={rows}
                  columns={historyColumns}
                  rowKey={(v) => v.version}
                  rowProps={(v) => ({ 'data-version': v.version })}
                  pageSize={PAGE}
                  noun="versions"
                />
              )}
            </section>
          </>
        );
      }}
    </QueryState>
  );
}
