'use client';
// Pick a cluster to edit: server-side search, sort and paging (fine at 10,000 clusters).
import { OrgLink } from '@/components/shell/org-link';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import type { inferRouterInputs, inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '@/server/api/root';
import { useTRPC } from '@/components/trpc/client';
import { BadgeList } from '@/components/ui/badges';
import { DataTable, type Column } from '@/components/ui/data-table';
import { QueryState } from '@/components/ui/query-state';
import { EmptyState } from '@/components/ui/states';
import { useDebounced } from '@/components/ui/use-debounced';

type SortKey = NonNullable<inferRouterInputs<AppRouter>['clusters']['list']['sort']>;
type Cluster = inferRouterOutputs<AppRouter>['clusters']['list']['items'][number];

const PAGE_SIZE = 50;

const COLUMNS: Column<Cluster>[] = [
  {
    id: 'name',
    header: 'Cluster',
    sortKey: 'name',
    required: true,
    className: 'nowrap',
    csv: (c) => c.name,
    cell: (c) => <OrgLink href={`/policies/clusters/${encodeURIComponent(c.name)}`}>{c.name}</OrgLink>,
  },
  { id: 'sector', header: 'Sector', sortKey: 'sector', csv: (c) => c.sector, cell: (c) => c.sector ?? <span className="muted">—</span> },
  { id: 'workloads', header: 'Workloads', csv: (c) => c.workloads.join(' '), cell: (c) => <BadgeList items={c.workloads} /> },
  {
    id: 'policy',
    header: 'Policy',
    csv: (c) => (c.managed ? 'managed' : 'no policy'),
    cell: (c) => (c.managed ? <span className="badge ok">managed</span> : <span className="badge">no policy</span>),
  },
];

export function ClusterPolicyList() {
  const trpc = useTRPC();
  const [search, setSearch] = useState('');
  const [sort, setSort] = useState<{ key: SortKey; direction: 'asc' | 'desc' }>({ key: 'name', direction: 'asc' });
  const [page, setPage] = useState(0);
  const q = useDebounced(search, 250);
  const list = useQuery({
    ...trpc.clusters.list.queryOptions({
      filter: { search: q || undefined },
      sort: sort.key,
      direction: sort.direction,
      offset: page * PAGE_SIZE,
      limit: PAGE_SIZE,
    }),
    placeholderData: keepPreviousData,
  });
  const total = list.data?.total ?? 0;
  return (
    <section className="panel flush" aria-label="Cluster policies">
      <QueryState query={list}>
        {(data) => (
          <DataTable
            id="cluster-policies"
            label="Cluster policies"
            rows={data.items}
            columns={COLUMNS}
            rowKey={(c) => c.name}
            rowProps={(c) => ({ 'data-cluster': c.name })}
            sort={{ id: sort.key, direction: sort.direction }}
            onSort={(next) => {
              setSort({ key: next.id as SortKey, direction: next.direction });
              setPage(0);
            }}
            paging={{
              offset: page * PAGE_SIZE,
              limit: PAGE_SIZE,
              total,
              onOffset: (o) => setPage(Math.floor(o / PAGE_SIZE)),
              busy: list.isFetching,
            }}
            noun="clusters"
            toolbar={
              <input
                type="search"
                aria-label="Search clusters"
                placeholder="Search clusters…"
                value={search}
                onChange={(e) => {
                  setSearch(e.target.value);
                  setPage(0);
                }}
                style={{ minWidth: 240 }}
              />
            }
            status={`${total} cluster${total === 1 ? '' : 's'}`}
            empty={<EmptyState title="No cluster matches" />}
          />
        )}
      </QueryState>
    </section>
  );
}
