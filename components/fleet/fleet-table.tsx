'use client';
// The fleet list: server-side filters, search, sort and paging, so it stays fast at 10k clusters.
// All of them live in the address (?sector=prod&sort=version&page=3), so a view can be linked.
import { useMemo } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { inferRouterInputs, inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '@/server/api/root';
import { useTRPC, useTRPCClient } from '@/components/trpc/client';
import { fetchAllPages } from '@/components/ui/table-model';
import { BadgeList, DecisionBadge, HealthBadge, StateBadge } from '@/components/ui/badges';
import { ClusterLink } from '@/components/ui/cluster-link';
import { formatDays } from '@/components/ui/format';
import { isoOf } from '@/components/ui/zoned-time';
import { ZonedTime } from '@/components/ui/zoned-time-view';
import { DataTable, type Column } from '@/components/ui/data-table';
import { QueryState } from '@/components/ui/query-state';
import { EmptyState } from '@/components/ui/states';
import { useUrlState, useUrlText } from '@/components/ui/use-url-state';

type ListInput = inferRouterInputs<AppRouter>['clusters']['list'];
type Cluster = inferRouterOutputs<AppRouter>['clusters']['list']['items'][number];
type SortKey = NonNullable<ListInput['sort']>;

const PAGE_SIZE = 50;

/** The Fleet view in the address: filters, search (`q`), sort, direction and the 1-based page. */
export const FLEET_URL_DEFAULTS = {
  q: '',
  sector: '',
  workload: '',
  state: '',
  version: '',
  reason: '',
  /** a label, `key=value` (or `key`: the label is set) */
  label: '',
  /** a label selector as kubectl reads it (`env=prod,tier in (web)`) */
  selector: '',
  region: '',
  /** '1': only the clusters that will never upgrade as configured */
  never: '',
  sort: 'name',
  dir: 'asc',
  page: 1,
};
type FilterKey = 'sector' | 'workload' | 'state' | 'version' | 'reason' | 'label' | 'region';

/**
 * The address's label selector, checked by the server first: `selector` is what filters (only a
 * valid one: an invalid selector filters nothing), `error` the parser's message. The table and the
 * chart share the one cached check.
 */
export function useCheckedSelector(text: string): { selector: string | undefined; error: string | null } {
  const trpc = useTRPC();
  const check = useQuery({ ...trpc.clusters.previewSelector.queryOptions({ selector: text }), enabled: text.trim() !== '' });
  return {
    selector: text.trim() !== '' && check.data?.ok ? text : undefined,
    error: check.data && !check.data.ok ? check.data.message : null,
  };
}

export function FleetTable() {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const [url, setUrl] = useUrlState(FLEET_URL_DEFAULTS);
  const [search, setSearch] = useUrlText(url.q, (q) => setUrl({ q, page: 1 }, { replace: true }));
  const [selectorText, setSelectorText] = useUrlText(url.selector, (selector) => setUrl({ selector, page: 1 }, { replace: true }));
  const { selector, error: selectorError } = useCheckedSelector(url.selector);
  // a link may carry any text: only the table's own sort keys and directions reach the server
  const sort = {
    key: (SORT_KEYS.has(url.sort) ? url.sort : 'name') as SortKey,
    direction: url.dir === 'desc' ? ('desc' as const) : ('asc' as const),
  };
  const page = Math.max(0, Math.floor(url.page) - 1);
  const filter = {
    sector: url.sector || undefined,
    workload: url.workload || undefined,
    state: url.state || undefined,
    version: url.version || undefined,
    reason: url.reason || undefined,
    label: url.label || undefined,
    selector,
    region: url.region || undefined,
    neverUpgrades: url.never === '1' || undefined,
  };

  const facets = useQuery(trpc.clusters.facets.queryOptions());
  const input = { filter: { ...filter, search: url.q || undefined }, sort: sort.key, direction: sort.direction } satisfies ListInput;
  const list = useQuery({
    ...trpc.clusters.list.queryOptions({ ...input, offset: page * PAGE_SIZE, limit: PAGE_SIZE }),
    placeholderData: keepPreviousData,
  });

  const select = (key: FilterKey, label: string, options: string[] | undefined) => {
    const values = options?.map((o) => (key === 'version' ? `${o}.` : o)) ?? [];
    // a linked value the facets do not list (an exact version from the Versions page) stays choosable
    const linked = url[key] && !values.includes(url[key]) ? url[key] : null;
    return (
      <select aria-label={label} value={url[key]} onChange={(e) => setUrl({ [key]: e.target.value, page: 1 })}>
        <option value="">{label}: all</option>
        {linked && <option value={linked}>{linked}</option>}
        {options?.map((o, i) => (
          <option key={o} value={values[i]}>
            {o}
          </option>
        ))}
      </select>
    );
  };

  const filters = (
    <>
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
      {select('region', 'Region', facets.data?.regions)}
      {/* the provider's labels (a label chip on a cluster page links here too) */}
      {(url.label || (facets.data?.labels.length ?? 0) > 0) && select('label', 'Label', facets.data?.labels)}
      <span className="fleet-selector">
        <input
          type="text"
          placeholder="Label selector: env=prod,tier in (web)"
          aria-label="Label selector"
          aria-invalid={selectorError !== null || undefined}
          aria-describedby={selectorError ? 'fleet-selector-error' : undefined}
          value={selectorText}
          maxLength={4096}
          onChange={(e) => setSelectorText(e.target.value)}
          className={selectorError ? 'sch-invalid' : undefined}
          style={{ minWidth: 240 }}
        />
        {selectorError && (
          <span id="fleet-selector-error" className="small selector-invalid" role="alert">
            {selectorError}
          </span>
        )}
      </span>
      {(url.never === '1' || (facets.data?.neverUpgrades ?? 0) > 0) && (
        <label className="small" title="The clusters the engine says will never upgrade as configured, with the releases available now">
          <input type="checkbox" checked={url.never === '1'} onChange={(e) => setUrl({ never: e.target.checked ? '1' : '', page: 1 })} />{' '}
          never upgrades ({facets.data?.neverUpgrades ?? 0})
        </label>
      )}
    </>
  );

  const total = list.data?.total ?? 0;
  const labelled = url.selector.trim() !== '' || url.label !== '';
  const columns = useMemo(() => COLUMNS.map((c) => (c.id === 'labels' ? { ...c, hidden: !labelled } : c)), [labelled]);
  return (
    <section className="panel flush" aria-label="Clusters">
      <QueryState query={list}>
        {(data) => (
          <DataTable
            id="fleet"
            label="Clusters"
            rows={data.items}
            columns={columns}
            rowKey={(c) => c.name}
            rowProps={(c) => ({ 'data-cluster': c.name })}
            sort={{ id: sort.key, direction: sort.direction }}
            onSort={(next) => setUrl({ sort: next.id, dir: next.direction, page: 1 })}
            paging={{
              offset: page * PAGE_SIZE,
              limit: PAGE_SIZE,
              total,
              onOffset: (o) => setUrl({ page: Math.floor(o / PAGE_SIZE) + 1 }),
              busy: list.isFetching,
            }}
            exportRows={() => fetchAllPages((offset, limit) => client.clusters.list.query({ ...input, offset, limit }), 500)}
            noun="clusters"
            toolbar={filters}
            status={`${total} cluster${total === 1 ? '' : 's'}`}
            empty={<EmptyState title="No cluster matches these filters">Clear the search or a filter to see more.</EmptyState>}
          />
        )}
      </QueryState>
    </section>
  );
}

/** A cluster's labels (the provider's overlaid by fleetplan's) as `key=value` (as the Label filter takes them). */
const labelTexts = (c: Cluster) => Object.entries(c.labels).map(([k, v]) => `${k}=${v}`);

const COLUMNS: Column<Cluster>[] = [
  {
    id: 'name',
    header: 'Cluster',
    sortKey: 'name',
    required: true,
    className: 'nowrap',
    csv: (c) => c.name,
    cell: (c) => (
      <>
        <ClusterLink name={c.name} />
        {!c.healthy && (
          <>
            {' '}
            <HealthBadge healthy={c.healthy} issues={c.healthIssues} />
          </>
        )}
        <div className="muted small">{c.region}</div>
      </>
    ),
  },
  // hidden by default: the region already shows under the cluster's name (the table stays within 1440 px)
  { id: 'region', header: 'Region', hidden: true, sortKey: 'region', className: 'nowrap', csv: (c) => c.region, cell: (c) => c.region },
  {
    // hidden by default (the table stays within 1440 px); shown while a label filters the table
    id: 'labels',
    header: 'Labels',
    hidden: true,
    csv: (c) => labelTexts(c).join(' '),
    cell: (c) => <BadgeList items={labelTexts(c)} />,
  },
  {
    id: 'version',
    header: 'Version / channel',
    sortKey: 'version',
    className: 'nowrap',
    csv: (c) => c.version,
    cell: (c) => (
      <>
        <span className="mono">{c.version}</span>
        <div className="muted small">{c.channel}</div>
      </>
    ),
  },
  { id: 'channel', header: 'Channel', hidden: true, className: 'nowrap', csv: (c) => c.channel, cell: (c) => c.channel },
  {
    id: 'sector',
    header: 'Sector',
    sortKey: 'sector',
    className: 'nowrap',
    csv: (c) => c.sector,
    cell: (c) => c.sector ?? <span className="muted">unmanaged</span>,
  },
  {
    id: 'workloads',
    header: 'Workloads',
    csv: (c) => c.workloads.join(' '),
    cell: (c) => <BadgeList items={c.workloads} />,
  },
  {
    id: 'state',
    header: 'State',
    sortKey: 'state',
    className: 'nowrap',
    csv: (c) => c.upgradeState,
    cell: (c) => (
      <>
        <StateBadge state={c.upgradeState} progress={c.currentUpgrade?.progress} />
        {c.currentUpgrade && <div className="small muted mono">→ {c.currentUpgrade.version}</div>}
      </>
    ),
  },
  {
    id: 'soaking',
    header: 'Soaking upgrades',
    className: 'small',
    csv: (c) => c.soakingUpgrades.map((s) => `${s.version} (${formatDays(s.soakDays)}/${s.requiredDays} d)`).join(' '),
    cell: (c) =>
      c.soakingUpgrades.length === 0 ? (
        <span className="muted">—</span>
      ) : (
        c.soakingUpgrades.slice(0, 2).map((s) => (
          <div key={s.version} className="mono nowrap" title={`${s.version} has soaked ${s.soakDays.toFixed(2)} of ${s.requiredDays} days`}>
            {s.version} ({formatDays(s.soakDays)}/{s.requiredDays} d)
          </div>
        ))
      ),
  },
  {
    id: 'decision',
    header: 'Decision',
    csv: (c) =>
      [
        ...(c.decision ? [c.decision.action, c.decision.reason, c.decision.version, c.decision.message] : []),
        c.neverUpgrades ? `never upgrades as configured: ${c.neverUpgrades.join('; ')}` : null,
      ]
        .filter(Boolean)
        .join(' '),
    cell: (c) => (
      <>
        {c.decision ? (
          <>
            <DecisionBadge action={c.decision.action} reason={c.decision.reason} />
            {c.decision.version && c.decision.action === 'upgrade' && <span className="mono small"> → {c.decision.version}</span>}
          </>
        ) : (
          <span className="muted small">{c.managed ? 'not planned yet' : 'no policy'}</span>
        )}
        {c.neverUpgrades && (
          <>
            {' '}
            <span className="badge bad" title={`Will never upgrade as configured:\n${c.neverUpgrades.join('\n')}`}>
              never upgrades
            </span>
          </>
        )}
        {c.decision?.message && (
          <div className="small muted truncate" style={{ maxWidth: 210 }} title={c.decision.message}>
            {c.decision.message}
          </div>
        )}
      </>
    ),
  },
  {
    id: 'nextRun',
    header: 'Next run',
    sortKey: 'nextRun',
    className: 'small nowrap',
    csv: (c) => isoOf(c.nextRun ?? c.currentUpgrade?.nextRun),
    cell: (c) => <ZonedTime iso={c.nextRun ?? c.currentUpgrade?.nextRun} relative />,
  },
];

const SORT_KEYS = new Set(COLUMNS.flatMap((c) => (c.sortKey ? [c.sortKey] : [])));
