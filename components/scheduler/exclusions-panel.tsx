'use client';
// Maintenance exclusions: windows in which the scheduler starts no upgrade for the whole
// organization, a sector, one cluster or every cluster a label selector matches (previewed before
// saving). List, create (problems shown at their fields), delete.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ClusterLink } from '@/components/ui/cluster-link';
import { useState } from 'react';
import { useTRPC } from '@/components/trpc/client';
import { DataTable, type Column } from '@/components/ui/data-table';
import { QueryState } from '@/components/ui/query-state';
import { ActionError } from '@/components/ui/states';
import type { inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '@/server/api/root';
import { mergeProblems, problemsOf } from './field-problems';
import { FormError, FormField } from './form-field';
import { OPERATOR_ONLY, useRole } from './use-role';
import { formatUtc, fromUtcInput, isoOf, toUtcInput } from '@/components/ui/zoned-time';
import { ZonedTime } from '@/components/ui/zoned-time-view';
import { SelectorPreview } from '@/components/ui/selector-preview';

type Exclusion = inferRouterOutputs<AppRouter>['exclusions']['list'][number];
type Scope = 'organization' | 'sector' | 'cluster' | 'selector';
interface Draft {
  scope: Scope;
  subject: string;
  startsAt: string;
  endsAt: string;
  reason: string;
}

const HOUR = 3_600_000;

/** What the Subject field asks for under each scope (the organization scope has no subject). */
const SUBJECT: Record<Scope, { hint: string; placeholder: string; missing: string; list?: string }> = {
  organization: { hint: 'whole organization', placeholder: '—', missing: '' },
  sector: { hint: 'sector name', placeholder: 'e.g. prod-green', missing: 'name the sector', list: 'excl-sectors' },
  cluster: { hint: 'cluster name', placeholder: 'e.g. hive-prod-01', missing: 'name the cluster', list: 'excl-clusters' },
  selector: { hint: 'label selector, as kubectl -l', placeholder: 'e.g. env=stage,team in (payments)', missing: 'write a label selector' },
};

function defaultDraft(fleetNowIso: string | undefined): Draft {
  const base = fleetNowIso ? Date.parse(fleetNowIso) : Date.now();
  const start = Math.ceil(base / HOUR) * HOUR;
  return {
    scope: 'cluster',
    subject: '',
    startsAt: toUtcInput(new Date(start).toISOString()),
    endsAt: toUtcInput(new Date(start + 4 * HOUR).toISOString()),
    reason: '',
  };
}

/** Checks the browser can make before asking the server (which checks everything again). */
function checkDraft(d: Draft): Record<string, string[]> {
  const p: Record<string, string[]> = {};
  const add = (k: string, m: string) => (p[k] ??= []).push(m);
  if (d.scope !== 'organization' && !d.subject.trim()) add('subject', SUBJECT[d.scope].missing);
  const s = fromUtcInput(d.startsAt);
  const e = fromUtcInput(d.endsAt);
  if (!s) add('startsAt', 'enter a date and time (UTC)');
  if (!e) add('endsAt', 'enter a date and time (UTC)');
  if (s && e && Date.parse(e) <= Date.parse(s)) add('endsAt', 'must be after the start');
  if (!d.reason.trim()) add('reason', 'say why');
  return p;
}

export function ExclusionsPanel() {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const { canOperate } = useRole();
  const [includePast, setIncludePast] = useState(false);
  const list = useQuery(trpc.exclusions.list.queryOptions({ includePast }));
  const fleet = useQuery(trpc.fleet.status.queryOptions());
  const facets = useQuery(trpc.clusters.facets.queryOptions());
  const [draft, setDraft] = useState<Draft | null>(null);
  const [local, setLocal] = useState<Record<string, string[]>>({});
  const clusterSearch = draft?.scope === 'cluster' ? draft.subject.trim() : '';
  const suggestions = useQuery({
    ...trpc.clusters.list.queryOptions({ filter: { search: clusterSearch }, limit: 10 }),
    enabled: clusterSearch.length >= 2,
  });

  const invalidate = () => {
    void qc.invalidateQueries({ queryKey: trpc.exclusions.pathKey() });
    void qc.invalidateQueries({ queryKey: trpc.activity.pathKey() });
  };
  const create = useMutation(
    trpc.exclusions.create.mutationOptions({
      onSuccess: () => {
        setDraft(null);
        setLocal({});
      },
      onSettled: invalidate,
    }),
  );
  const remove = useMutation(trpc.exclusions.delete.mutationOptions({ onSettled: invalidate }));

  const server = problemsOf(create.error);
  const problems = mergeProblems(local, server.byField);
  const set = (patch: Partial<Draft>) => setDraft((d) => (d ? { ...d, ...patch } : d));

  const submit = (e: React.FormEvent) => {
    e.preventDefault();
    if (!draft) return;
    const p = checkDraft(draft);
    setLocal(p);
    create.reset();
    if (Object.keys(p).length) return;
    create.mutate({
      scope: draft.scope,
      subject: draft.scope === 'organization' ? null : draft.subject.trim(),
      startsAt: fromUtcInput(draft.startsAt)!,
      endsAt: fromUtcInput(draft.endsAt)!,
      reason: draft.reason.trim(),
    });
  };

  const fleetNow = fleet.data?.now;
  const stateOf = (x: Exclusion) => {
    const ends = isoOf(x.endsAt);
    if (x.active) return 'active';
    return ends !== null && fleetNow !== undefined && Date.parse(ends) <= Date.parse(fleetNow) ? 'ended' : 'upcoming';
  };
  const columns: Column<Exclusion>[] = [
    { id: 'scope', header: 'Scope', value: (x) => x.scope, cell: (x) => x.scope },
    {
      id: 'subject',
      header: 'Subject',
      className: 'nowrap',
      value: (x) => x.subject,
      cell: (x) =>
        x.scope === 'cluster' && x.subject ? (
          <ClusterLink name={x.subject} />
        ) : x.scope === 'selector' ? (
          <>
            <code>{x.subject}</code>
            <div className="muted small">
              {x.matching?.count ?? 0} cluster{x.matching?.count === 1 ? '' : 's'} now
            </div>
          </>
        ) : (
          (x.subject ?? <span className="muted">all clusters</span>)
        ),
    },
    {
      id: 'starts',
      header: 'Starts',
      className: 'nowrap small',
      value: (x) => isoOf(x.startsAt),
      cell: (x) => <ZonedTime iso={x.startsAt} />,
    },
    { id: 'ends', header: 'Ends', className: 'nowrap small', value: (x) => isoOf(x.endsAt), cell: (x) => formatUtc(isoOf(x.endsAt)) },
    {
      id: 'state',
      header: 'State',
      value: stateOf,
      cell: (x) => {
        const state = stateOf(x);
        return <span className={`badge ${state === 'active' ? 'bad' : state === 'upcoming' ? 'info' : ''}`}>{state}</span>;
      },
    },
    {
      id: 'reason',
      header: 'Reason',
      className: 'sch-wrap exclusion-reason',
      value: (x) => x.reason,
      cell: (x) => x.reason,
    },
    {
      id: 'created',
      header: 'Created',
      className: 'small nowrap',
      value: (x) => isoOf(x.createdAt),
      csv: (x) => `${isoOf(x.createdAt) ?? ''} by ${x.createdBy}`,
      cell: (x) => (
        <>
          <ZonedTime iso={x.createdAt} />
          <div className="muted">by {x.createdBy}</div>
        </>
      ),
    },
    {
      id: 'actions',
      header: 'Actions',
      headerHidden: true,
      required: true,
      cell: (x) => (
        <button
          type="button"
          className="btn danger"
          disabled={!canOperate || (remove.isPending && remove.variables?.id === x.id)}
          title={canOperate ? undefined : OPERATOR_ONLY}
          aria-label={`Delete exclusion ${x.id} (${x.scope}${x.subject ? ` ${x.subject}` : ''})`}
          onClick={() => {
            if (window.confirm(`Delete this ${x.scope} exclusion${x.subject ? ` for ${x.subject}` : ''}?`)) remove.mutate({ id: x.id });
          }}
        >
          Delete
        </button>
      ),
    },
  ];

  return (
    <section className="panel flush" aria-labelledby="excl-h">
      <div className="toolbar">
        <h2 id="excl-h" style={{ margin: 0 }}>
          Maintenance exclusions
        </h2>
        <span className="small muted">no upgrade starts inside these windows</span>
        <label className="small" style={{ marginLeft: 'auto', display: 'inline-flex', gap: 4, alignItems: 'center' }}>
          <input type="checkbox" checked={includePast} onChange={(e) => setIncludePast(e.target.checked)} /> show ended
        </label>
        {!draft && (
          <button
            type="button"
            className="btn primary"
            disabled={!canOperate}
            title={canOperate ? undefined : OPERATOR_ONLY}
            onClick={() => setDraft(defaultDraft(fleet.data?.now))}
          >
            New exclusion
          </button>
        )}
      </div>

      {draft && (
        <form className="sch-form" onSubmit={submit} aria-label="New exclusion" noValidate>
          <FormField label="Scope" problems={problems.scope}>
            {(p) => (
              <select {...p} value={draft.scope} onChange={(e) => set({ scope: e.target.value as Scope })}>
                <option value="organization">organization</option>
                <option value="sector">sector</option>
                <option value="cluster">cluster</option>
                <option value="selector">label selector</option>
              </select>
            )}
          </FormField>
          <FormField label="Subject" hint={SUBJECT[draft.scope].hint} problems={problems.subject}>
            {(p) => (
              <>
                <input
                  {...p}
                  type="text"
                  value={draft.scope === 'organization' ? '' : draft.subject}
                  disabled={draft.scope === 'organization'}
                  list={SUBJECT[draft.scope].list}
                  placeholder={SUBJECT[draft.scope].placeholder}
                  maxLength={draft.scope === 'selector' ? 4096 : 200}
                  onChange={(e) => set({ subject: e.target.value })}
                  style={{ width: draft.scope === 'selector' ? 300 : 220 }}
                />
                {draft.scope === 'selector' && <SelectorPreview selector={draft.subject} />}
                <datalist id="excl-sectors">
                  {facets.data?.sectors.map((s) => (
                    <option key={s} value={s} />
                  ))}
                </datalist>
                <datalist id="excl-clusters">
                  {suggestions.data?.items.map((c) => (
                    <option key={c.name} value={c.name} />
                  ))}
                </datalist>
              </>
            )}
          </FormField>
          <FormField label="Starts" hint="UTC" problems={problems.startsAt}>
            {(p) => <input {...p} type="datetime-local" value={draft.startsAt} onChange={(e) => set({ startsAt: e.target.value })} />}
          </FormField>
          <FormField label="Ends" hint="UTC" problems={problems.endsAt}>
            {(p) => <input {...p} type="datetime-local" value={draft.endsAt} onChange={(e) => set({ endsAt: e.target.value })} />}
          </FormField>
          <FormField label="Reason" problems={problems.reason} grow>
            {(p) => (
              <input
                {...p}
                type="text"
                value={draft.reason}
                maxLength={500}
                placeholder="e.g. quarter-end freeze for payments"
                onChange={(e) => set({ reason: e.target.value })}
              />
            )}
          </FormField>
          <div className="sch-submit" style={{ display: 'flex', gap: 8 }}>
            <button type="submit" className="btn primary" disabled={create.isPending}>
              {create.isPending ? 'Saving…' : 'Create exclusion'}
            </button>
            <button
              type="button"
              className="btn"
              onClick={() => {
                setDraft(null);
                setLocal({});
                create.reset();
              }}
            >
              Cancel
            </button>
          </div>
          <FormError message={server.general} />
        </form>
      )}

      <ActionError error={remove.error} />
      <QueryState
        query={list}
        isEmpty={(rows) => rows.length === 0}
        empty={{
          title: includePast ? 'No exclusion has ever been set' : 'No current or upcoming exclusion',
          hint: 'Upgrades may start whenever policies allow.',
        }}
        loadingRows={3}
      >
        {(rows) => (
          <DataTable
            id="scheduler-exclusions"
            label="Maintenance exclusions"
            noun="exclusions"
            rows={rows}
            rowKey={(x) => x.id}
            rowProps={(x) => ({ 'data-exclusion': x.id })}
            pageSize={25}
            columns={columns}
            className="exclusions-table"
          />
        )}
      </QueryState>
    </section>
  );
}
