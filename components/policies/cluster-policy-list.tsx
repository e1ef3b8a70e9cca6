'use client';
// Pick a cluster to edit: server-side search and paging (fine at 10,000 clusters).
import Link from 'next/link';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTRPC } from '@/components/trpc/client';
import { EmptyState, ErrorState, LoadingRows } from '@/components/ui/states';
import { useDebounced } from '@/components/ui/use-debounced';
import { BadgeList } from '@/components/ui/badges';

const PAGE = 50;

export function ClusterPolicyList() {
  const trpc = useTRPC();
  const [search, setSearch] = useState('');
  const [page, setPage] = useState(0);
  const q = useDebounced(search, 250);
  const list = useQuery({
    ...trpc.clusters.list.queryOptions({
      filter: { search: q || undefined },
      sort: 'name',
      direction: 'asc',
      offset: page * PAGE,
      limit: PAGE,
    }),
    placeholderData: keepPreviousData,
  });
  const total = list.data?.total ?? 0;
  const pages = Math.max(1, Math.ceil(total / PAGE));
  return (
    <section className="panel flush" aria-label="Cluster policies">
      <div className="toolbar">
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
        <span className="small muted" style={{ marginLeft: 'auto' }} aria-live="polite">
          {list.data ? `${total} cluster${total === 1 ? '' : 's'}` : ''}
        </span>
      </div>
      {list.isPending ? (
        <LoadingRows />
      ) : list.isError ? (
        <ErrorState error={list.error} onRetry={() => list.refetch()} />
      ) : list.data.items.length === 0 ? (
        <EmptyState title="No cluster matches" />
      ) : (
        <div className="table-scroll">
          <table className="data">
            <thead>
              <tr>
                <th scope="col">Cluster</th>
                <th scope="col">Sector</th>
                <th scope="col">Workloads</th>
                <th scope="col">Policy</th>
              </tr>
            </thead>
            <tbody>
              {list.data.items.map((c) => (
                <tr key={c.name} data-cluster={c.name}>
                  <td className="nowrap">
                    <Link href={`/policies/clusters/${encodeURIComponent(c.name)}`}>{c.name}</Link>
                  </td>
                  <td>{c.sector ?? <span className="muted">—</span>}</td>
                  <td>
                    <BadgeList items={c.workloads} />
                  </td>
                  <td>{c.managed ? <span className="badge ok">managed</span> : <span className="badge">no policy</span>}</td>
                </tr>
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
