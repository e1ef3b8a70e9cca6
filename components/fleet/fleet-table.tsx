'use client';
// The fleet list: server-side filters, search, sort and paging, so it stays fast at 10k clusters.
import Link from 'next/link';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import type { inferRouterInputs, inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '@/server/api/root';
import { useTRPC } from '@/components/trpc/client';
import { DecisionBadge, HealthBadge, StateBadge } from '@/components/ui/badges';
import { formatDays, formatUtc } from '@/components/ui/format';
import { EmptyState, ErrorState, LoadingRows } from '@/components/ui/states';

type ListInput = inferRouterInputs<AppRouter>['clusters']['list'];
type Cluster = inferRouterOutputs<AppRouter>['clusters']['list']['items'][number];
type SortKey = NonNullable<ListInput['sort']>;

const PAGE_SIZE = 50;

function useDebounced<T>(value: T, ms: number): T {
  const [debounced, setDebounced] = useState(value);
  useEffect(() => {
    const id = setTimeout(() => setDebounced(value), ms);
    return () => clearTimeout(id);
  }, [value, ms]);
  return debounced;
}

export function FleetTable() {
  const trpc = useTRPC();
  const [search, setSearch] = useState('');
  const [filter, setFilter] = useState<{ sector?: string; workload?: string; state?: string; version?: string; reason?: string }>({});
  const [sort, setSort] = useState<{ key: SortKey; direction: 'asc' | 'desc' }>({ key: 'name', direction: 'asc' });
  const [page, setPage] = useState(0);
  const debouncedSearch = useDebounced(search, 250);
  useEffect(() => setPage(0), [debouncedSearch, filter, sort]);

  const facets = useQuery(trpc.clusters.facets.queryOptions());
  const list = useQuery({
    ...trpc.clusters.list.queryOptions({
      filter: { ...filter, search: debouncedSearch || undefined },
      sort: sort.key,
      direction: sort.direction,
      offset: page * PAGE_SIZE,
      limit: PAGE_SIZE,
    }),
    placeholderData: keepPreviousData,
  });

  const select = (key: keyof typeof filter, label: string, options: string[] | undefined) => (
    <select aria-label={label} value={filter[key] ?? ''} onChange={(e) => setFilter((f) => ({ ...f, [key]: e.target.value || undefined }))}>
      <option value="">{label}: all</option>
      {options?.map((o) => (
        <option key={o} value={key === 'version' ? `${o}.` : o}>
          {o}
        </option>
      ))}
    </select>
  );

  const header = (key: SortKey | null, label: string) => (
    <th scope="col" aria-sort={key && sort.key === key ? (sort.direction === 'asc' ? 'ascending' : 'descending') : undefined}>
      {key ? (
        <button onClick={() => setSort((s) => ({ key, direction: s.key === key && s.direction === 'asc' ? 'desc' : 'asc' }))}>
          {label} {sort.key === key ? (sort.direction === 'asc' ? '▲' : '▼') : ''}
        </button>
      ) : (
        label
      )}
    </th>
  );

  const total = list.data?.total ?? 0;
  const pages = Math.max(1, Math.ceil(total / PAGE_SIZE));
  return (
    <section className="panel flush" aria-label="Clusters">
      <div className="toolbar">
        <input
          type="search"
          placeholder="Search name, id, region…"
          aria-label="Search clusters"
          value={search}
          onChange={(e) => setSearch(e.target.value)}
          style={{ minWidth: 220 }}
        />
        {select('sector', 'Sector', facets.data?.sectors)}
        {select('workload', 'Workload', facets.data?.workloads)}
        {select('state', 'State', facets.data?.states)}
        {select('version', 'Minor', facets.data?.minors)}
        {select('reason', 'Reason', facets.data?.reasons)}
        <span className="muted small" style={{ marginLeft: 'auto' }} aria-live="polite">
          {list.data ? `${total} cluster${total === 1 ? '' : 's'}` : ''}
        </span>
      </div>
      {list.isPending ? (
        <LoadingRows />
      ) : list.isError ? (
        <ErrorState error={list.error} onRetry={() => list.refetch()} />
      ) : list.data.items.length === 0 ? (
        <EmptyState title="No cluster matches these filters">Clear the search or a filter to see more.</EmptyState>
      ) : (
        <div className="table-scroll">
          <table className="data">
            <thead>
              <tr>
                {header('name', 'Cluster')}
                {header('version', 'Version / channel')}
                {header('sector', 'Sector')}
                {header(null, 'Workloads')}
                {header('state', 'State')}
                {header(null, 'Soaking upgrades')}
                {header(null, 'Decision')}
                {header('nextRun', 'Next run')}
              </tr>
            </thead>
            <tbody>
              {list.data.items.map((c) => (
                <ClusterRow key={c.name} cluster={c} />
              ))}
            </tbody>
          </table>
        </div>
      )}
      <div className="pager">
        <button className="btn" disabled={page === 0} onClick={() => setPage((p) => p - 1)}>
          Previous
        </button>
        <span className="small muted">
          Page {page + 1} of {pages}
        </span>
        <button className="btn" disabled={page + 1 >= pages} onClick={() => setPage((p) => p + 1)}>
          Next
        </button>
      </div>
    </section>
  );
}

function ClusterRow({ cluster: c }: { cluster: Cluster }) {
  return (
    <tr data-cluster={c.name}>
      <td className="nowrap">
        <Link href={`/clusters/${encodeURIComponent(c.name)}`}>{c.name}</Link>
        {!c.healthy && (
          <>
            {' '}
            <HealthBadge healthy={c.healthy} issues={c.healthIssues} />
          </>
        )}
        <div className="muted small">{c.region}</div>
      </td>
      <td className="nowrap">
        <span className="mono">{c.version}</span>
        <div className="muted small">{c.channel}</div>
      </td>
      <td className="nowrap">{c.sector ?? <span className="muted">unmanaged</span>}</td>
      <td>
        <div className="chips">
          {c.workloads.map((w) => (
            <span key={w} className="badge">
              {w}
            </span>
          ))}
        </div>
      </td>
      <td className="nowrap">
        <StateBadge state={c.upgradeState} progress={c.currentUpgrade?.progress} />
        {c.currentUpgrade && <div className="small muted mono">→ {c.currentUpgrade.version}</div>}
      </td>
      <td className="small">
        {c.soakingUpgrades.length === 0 ? (
          <span className="muted">—</span>
        ) : (
          c.soakingUpgrades.slice(0, 2).map((s) => (
            <div
              key={s.version}
              className="mono nowrap"
              title={`${s.version} has soaked ${s.soakDays.toFixed(2)} of ${s.requiredDays} days`}
            >
              {s.version} ({formatDays(s.soakDays)}/{s.requiredDays} d)
            </div>
          ))
        )}
      </td>
      <td>
        {c.decision ? (
          <>
            <DecisionBadge action={c.decision.action} reason={c.decision.reason} />
            {c.decision.version && c.decision.action === 'upgrade' && <span className="mono small"> → {c.decision.version}</span>}
            <div className="small muted truncate" style={{ maxWidth: 260 }} title={c.decision.message ?? undefined}>
              {c.decision.message}
            </div>
          </>
        ) : (
          <span className="muted small">{c.managed ? 'not planned yet' : 'no policy'}</span>
        )}
      </td>
      <td className="small nowrap">{formatUtc(c.nextRun ?? c.currentUpgrade?.nextRun)}</td>
    </tr>
  );
}
