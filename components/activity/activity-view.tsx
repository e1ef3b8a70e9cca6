'use client';
// The Activity page: decisions, actions and policy/admin changes in tabs, filtered and paged on
// the server (offset + limit), so it stays fast with 10k clusters and 100k decisions.
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useSearchParams } from 'next/navigation';
import { useEffect, useState } from 'react';
import { useTRPC, useTRPCClient } from '@/components/trpc/client';
import { fetchAllPages } from '@/components/ui/table-model';
import { writeUrlState } from '@/components/ui/url-state';
import { QueryState } from '@/components/ui/query-state';
import { fromUtcInput, toUtcInput } from '@/components/ui/zoned-time';
import { ActionsTable, ChangesTable, DecisionsTable, UpgradesTable } from './activity-tables';
import '@/components/scheduler/scheduler.css';
import { useDebounced } from '@/components/ui/use-debounced';
import { useRole } from '@/components/scheduler/use-role';

type Tab = 'decisions' | 'actions' | 'upgrades' | 'changes';
const TABS: { id: Tab; label: string; noun: string }[] = [
  { id: 'decisions', label: 'Decisions', noun: 'decisions' },
  { id: 'actions', label: 'Actions', noun: 'actions' },
  { id: 'upgrades', label: 'Upgrades', noun: 'upgrade transitions' },
  { id: 'changes', label: 'Policy & admin changes', noun: 'changes' },
];
const PAGE = 50;

// Mirrors DECISION_REASONS (server/domain/plan/types.ts) + GATE_REASONS (apply-gates.ts): client code imports no server values.
const REASONS = [
  'UPGRADE_PENDING',
  'NOT_SOAKED',
  'SECTOR_BEHIND',
  'MUTEX_LOCKED',
  'MAX_PARALLEL_UPGRADES',
  'MAX_CONCURRENT_UPGRADES',
  'AT_TARGET',
  'ABOVE_CAP',
  'OUTSIDE_WINDOW',
  'VERSION_BLOCKED',
  'SUSPENDED',
  'NO_AVAILABLE_UPGRADES',
  'NO_ROUTE',
  'FROZEN',
  'EXCLUDED',
  'UNHEALTHY',
  'VERSION_GATE',
  'OPERATOR_INCOMPATIBLE',
  'REMOVED_API_IN_USE',
  'AWAITING_APPROVAL',
  'NOT_BEFORE',
  'AWAITING_CANARY',
  'CANARY_FAILED',
];
const CHANGE_AREAS = [
  'policy',
  'approval',
  'exclusion',
  'organization',
  'scheduler',
  'simulator',
  'webhook',
  'graph',
  'user',
  'token',
  'auth',
];
const RANGES = [
  { id: 'all', label: 'any time', ms: 0 },
  { id: '1h', label: 'last hour', ms: 3_600_000 },
  { id: '24h', label: 'last 24 h', ms: 86_400_000 },
  { id: '7d', label: 'last 7 days', ms: 7 * 86_400_000 },
  { id: '30d', label: 'last 30 days', ms: 30 * 86_400_000 },
  { id: 'custom', label: 'custom range…', ms: 0 },
] as const;
type RangeId = (typeof RANGES)[number]['id'];

interface Filters {
  cluster: string;
  range: RangeId;
  /** UTC datetime-local values */
  from: string;
  to: string;
  action: string;
  reason: string;
  status: string;
}

/** The view's part of the address (`?tab=changes&cluster=…&orgs=all`); defaults are left out. */
const ADDRESS_DEFAULTS = { tab: 'decisions', cluster: '', orgs: '' };

function isTab(v: string | null): v is Tab {
  return v === 'decisions' || v === 'actions' || v === 'upgrades' || v === 'changes';
}

export function ActivityView() {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const params = useSearchParams();
  const [tab, setTab] = useState<Tab>(() => (isTab(params.get('tab')) ? (params.get('tab') as Tab) : 'decisions'));
  const [f, setF] = useState<Filters>(() => ({
    cluster: params.get('cluster') ?? '',
    range: 'all',
    from: '',
    to: '',
    action: '',
    reason: '',
    status: '',
  }));
  const [offset, setOffset] = useState(0);
  // a global admin may list every organization's changes (the server refuses anyone else)
  const { isInstanceAdmin } = useRole();
  const [allOrganizations, setAllOrganizations] = useState(() => params.get('orgs') === 'all');
  const everyOrganization = allOrganizations && isInstanceAdmin;
  const cluster = useDebounced(f.cluster.trim(), 300);
  const fleet = useQuery(trpc.fleet.status.queryOptions());
  const suggestions = useQuery({
    ...trpc.clusters.list.queryOptions({ filter: { search: cluster }, limit: 10 }),
    enabled: cluster.length >= 2,
  });

  // keep the tab and cluster in the address, so a view can be shared or linked to; parameters
  // that are not the page's own (the organization's ?org=) stay as they are
  useEffect(() => {
    const values = { tab, cluster, orgs: allOrganizations ? 'all' : '' };
    const query = writeUrlState(new URLSearchParams(window.location.search), ADDRESS_DEFAULTS, values);
    window.history.replaceState(null, '', query || window.location.pathname);
  }, [tab, cluster, allOrganizations]);

  const from = fromUtcInput(f.from);
  const to = fromUtcInput(f.to);
  const rangeError = from && to && Date.parse(to) < Date.parse(from) ? 'the end is before the start' : null;
  const base = { cluster: cluster || undefined, from, to, offset, limit: PAGE };
  const opts = { placeholderData: keepPreviousData, refetchInterval: offset === 0 ? 15_000 : (false as const) };
  const decisionsInput = { ...base, action: f.action || undefined, reason: f.reason || undefined };
  const actionsInput = { ...base, action: f.action || undefined, status: f.status || undefined };
  const changesInput = { ...base, action: f.action || undefined, ...(everyOrganization ? { allOrganizations: true } : {}) };
  const upgradesInput = { ...base, action: f.action || undefined, reason: f.reason || undefined };
  const decisions = useQuery({
    ...trpc.activity.decisions.queryOptions(decisionsInput),
    ...opts,
    enabled: tab === 'decisions' && !rangeError,
  });
  const actions = useQuery({
    ...trpc.activity.actions.queryOptions(actionsInput),
    ...opts,
    enabled: tab === 'actions' && !rangeError,
  });
  const changes = useQuery({
    ...trpc.activity.changes.queryOptions(changesInput),
    ...opts,
    enabled: tab === 'changes' && !rangeError,
  });
  const upgrades = useQuery({
    ...trpc.activity.upgrades.queryOptions(upgradesInput),
    ...opts,
    enabled: tab === 'upgrades' && !rangeError,
  });
  const current = tab === 'decisions' ? decisions : tab === 'actions' ? actions : tab === 'upgrades' ? upgrades : changes;

  useEffect(() => setOffset(0), [cluster, f.from, f.to, f.action, f.reason, f.status, tab, everyOrganization]);

  const set = (patch: Partial<Filters>) => setF((x) => ({ ...x, ...patch }));
  const chooseRange = (range: RangeId) => {
    const spec = RANGES.find((r) => r.id === range)!;
    if (range === 'all') return set({ range, from: '', to: '' });
    if (range === 'custom') {
      const now = fleet.data?.now ?? new Date().toISOString();
      return set({
        range,
        from: f.from || toUtcInput(new Date(Date.parse(now) - 86_400_000).toISOString()),
        to: f.to || toUtcInput(new Date(Date.parse(now) + 60_000).toISOString()),
      });
    }
    // relative to the fleet's clock (the simulator's when it runs), fixed when chosen
    const now = Date.parse(fleet.data?.now ?? new Date().toISOString());
    set({ range, from: toUtcInput(new Date(now - spec.ms).toISOString()), to: '' });
  };
  const filtered = !!(cluster || f.from || f.to || f.action || f.reason || f.status);
  const clear = () => setF({ cluster: '', range: 'all', from: '', to: '', action: '', reason: '', status: '' });
  const noun = TABS.find((t) => t.id === tab)!.noun;
  const paging = (total: number) => ({ offset, limit: PAGE, total, onOffset: setOffset, busy: current.isFetching });

  return (
    <section className="panel flush" aria-label="Activity">
      <div className="act-tabs" role="tablist" aria-label="Activity kind">
        {TABS.map((t) => (
          <button
            key={t.id}
            type="button"
            role="tab"
            id={`act-tab-${t.id}`}
            aria-selected={tab === t.id}
            aria-controls="act-panel"
            className="act-tab"
            onClick={() => {
              setTab(t.id);
              set({ action: '', reason: '', status: '' });
            }}
          >
            {t.label}
          </button>
        ))}
      </div>
      <div className="toolbar">
        <input
          type="search"
          aria-label="Cluster"
          placeholder="Cluster name (exact)"
          list="act-clusters"
          value={f.cluster}
          maxLength={200}
          onChange={(e) => set({ cluster: e.target.value })}
          style={{ minWidth: 200 }}
        />
        <datalist id="act-clusters">
          {suggestions.data?.items.map((c) => (
            <option key={c.name} value={c.name} />
          ))}
        </datalist>
        {tab === 'decisions' && (
          <>
            <select aria-label="Decision" value={f.action} onChange={(e) => set({ action: e.target.value })}>
              <option value="">decision: all</option>
              <option value="upgrade">upgrade</option>
              <option value="skip">skip</option>
              <option value="cancel">cancel</option>
            </select>
            <select aria-label="Reason" value={f.reason} onChange={(e) => set({ reason: e.target.value })}>
              <option value="">reason: all</option>
              {REASONS.map((r) => (
                <option key={r} value={r}>
                  {r}
                </option>
              ))}
            </select>
          </>
        )}
        {tab === 'actions' && (
          <>
            <select aria-label="Action kind" value={f.action} onChange={(e) => set({ action: e.target.value })}>
              <option value="">kind: all</option>
              <option value="schedule-upgrade">schedule upgrade</option>
              <option value="cancel-upgrade">cancel upgrade</option>
              <option value="set-channel">switch channel</option>
              <option value="pause-pool">pause worker pool</option>
              <option value="unpause-pool">unpause worker pool</option>
              <option value="admin-ack">acknowledge admin gate</option>
            </select>
            <select aria-label="Status" value={f.status} onChange={(e) => set({ status: e.target.value })}>
              <option value="">status: all</option>
              <option value="pending">pending</option>
              <option value="done">done</option>
              <option value="failed">failed</option>
            </select>
          </>
        )}
        {tab === 'upgrades' && (
          <>
            <select aria-label="State" value={f.action} onChange={(e) => set({ action: e.target.value })}>
              <option value="">moved to: any state</option>
              {upgrades.data?.states.map((st) => (
                <option key={st} value={st}>
                  {st}
                </option>
              ))}
            </select>
            <select aria-label="Reason" value={f.reason} onChange={(e) => set({ reason: e.target.value })}>
              <option value="">reason: all</option>
              {upgrades.data?.reasons.map((r) => (
                <option key={r.code} value={r.code} title={r.text}>
                  {r.code}
                </option>
              ))}
            </select>
          </>
        )}
        {tab === 'changes' && (
          <select
            aria-label="Area"
            value={f.action}
            onChange={(e) => set({ action: e.target.value })}
            title="Audit entries whose action starts with this area (policy revisions are always listed)"
          >
            <option value="">area: all</option>
            {CHANGE_AREAS.map((a) => (
              <option key={a} value={a}>
                {a}
              </option>
            ))}
          </select>
        )}
        {tab === 'changes' && isInstanceAdmin && (
          <label className="small" title="Global admins: every organization's changes, with an Organization column">
            <input type="checkbox" checked={allOrganizations} onChange={(e) => setAllOrganizations(e.target.checked)} /> all organizations
          </label>
        )}
        <select aria-label="Time range" value={f.range} onChange={(e) => chooseRange(e.target.value as RangeId)}>
          {RANGES.map((r) => (
            <option key={r.id} value={r.id}>
              {r.label}
            </option>
          ))}
        </select>
        {f.range === 'custom' && (
          <span className="act-range small">
            <label>
              from{' '}
              <input
                type="datetime-local"
                aria-label="From (UTC)"
                value={f.from}
                onChange={(e) => set({ from: e.target.value })}
                aria-invalid={!!rangeError || undefined}
                className={rangeError ? 'sch-invalid' : undefined}
              />
            </label>
            <label>
              to{' '}
              <input
                type="datetime-local"
                aria-label="To (UTC)"
                value={f.to}
                onChange={(e) => set({ to: e.target.value })}
                aria-invalid={!!rangeError || undefined}
                className={rangeError ? 'sch-invalid' : undefined}
              />
            </label>
            UTC
          </span>
        )}
        {filtered && (
          <button type="button" className="btn" onClick={clear}>
            Clear filters
          </button>
        )}
        <span className="small muted" style={{ marginLeft: 'auto' }}>
          times by the fleet clock{f.range === 'custom' ? '; the range is in UTC' : ''}
        </span>
      </div>
      {rangeError && (
        <div className="banner bad small" role="alert" style={{ margin: 12 }}>
          Time range: {rangeError}.
        </div>
      )}
      <div id="act-panel" role="tabpanel" aria-labelledby={`act-tab-${tab}`}>
        {rangeError ? null : (
          <QueryState<{ total: number }>
            query={current}
            loadingRows={8}
            isEmpty={(data) => data.total === 0}
            empty={{
              title: filtered ? `No ${noun} match these filters` : `No ${noun} yet`,
              hint: filtered
                ? 'Widen the time range or clear the filters. The cluster filter needs the exact name.'
                : tab === 'changes'
                  ? 'Policy edits, exclusions, scheduler and admin changes are listed here.'
                  : tab === 'upgrades'
                    ? 'Every step of every upgrade (scheduled, started, completed, skipped, failed …) is listed here as the scheduler takes it.'
                    : 'They are recorded by scheduler ticks: run one from the Scheduler page.',
            }}
          >
            {() => (
              <div style={{ opacity: current.isPlaceholderData ? 0.6 : 1 }}>
                {tab === 'decisions' && decisions.data && (
                  <DecisionsTable
                    rows={decisions.data.rows}
                    paging={paging(decisions.data.total)}
                    noun={noun}
                    exportRows={() =>
                      fetchAllPages(
                        (o, l) =>
                          client.activity.decisions
                            .query({ ...decisionsInput, offset: o, limit: l })
                            .then((r) => ({ items: r.rows, total: r.total })),
                        200,
                      )
                    }
                  />
                )}
                {tab === 'actions' && actions.data && (
                  <ActionsTable
                    rows={actions.data.rows}
                    paging={paging(actions.data.total)}
                    noun={noun}
                    exportRows={() =>
                      fetchAllPages(
                        (o, l) =>
                          client.activity.actions
                            .query({ ...actionsInput, offset: o, limit: l })
                            .then((r) => ({ items: r.rows, total: r.total })),
                        200,
                      )
                    }
                  />
                )}
                {tab === 'upgrades' && upgrades.data && (
                  <UpgradesTable
                    rows={upgrades.data.rows}
                    paging={paging(upgrades.data.total)}
                    noun={noun}
                    exportRows={() =>
                      fetchAllPages(
                        (o, l) =>
                          client.activity.upgrades
                            .query({ ...upgradesInput, offset: o, limit: l })
                            .then((r) => ({ items: r.rows, total: r.total })),
                        200,
                      )
                    }
                  />
                )}
                {tab === 'changes' && changes.data && (
                  <ChangesTable
                    showOrganization={everyOrganization}
                    rows={changes.data.rows}
                    paging={paging(changes.data.total)}
                    noun={noun}
                    exportRows={() =>
                      fetchAllPages(
                        (o, l) =>
                          client.activity.changes
                            .query({ ...changesInput, offset: o, limit: l })
                            .then((r) => ({ items: r.rows, total: r.total })),
                        200,
                      )
                    }
                  />
                )}
              </div>
            )}
          </QueryState>
        )}
      </div>
    </section>
  );
}
