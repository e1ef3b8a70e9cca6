'use client';
// Blocking hooks: HTTP endpoints that must allow an upgrade before it starts (pre-upgrade) or
// confirm it healthy after (post-upgrade), with each hook's last answer. Everyone sees them (they
// explain why an upgrade waited or was skipped); admins add, pause and delete them.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '@/server/api/root';
import { useTRPC } from '@/components/trpc/client';
import { DataTable, type Column } from '@/components/ui/data-table';
import { QueryState } from '@/components/ui/query-state';
import { ActionError } from '@/components/ui/states';
import { isoOf } from '@/components/ui/zoned-time';
import { ZonedTime } from '@/components/ui/zoned-time-view';
import { mergeProblems, problemsOf } from './field-problems';
import { FormError, FormField, SelectorField } from './form-field';
import { SecretOnce } from './secret-once';
import { useRole } from './use-role';

// Mirrors HOOK_STAGES in server/services/hooks/hook-service.ts (client code imports no server values).
const STAGES = ['pre-upgrade', 'post-upgrade'] as const;
type Stage = (typeof STAGES)[number];
const ANSWER_TONE: Record<string, string> = { allowed: 'ok', refused: 'bad' };
const EXPECTED: Record<string, string> = { 'pre-upgrade': 'answers {"allow": true}', 'post-upgrade': 'answers {"healthy": true}' };

type Hook = inferRouterOutputs<AppRouter>['hooks']['list'][number];

const COLUMNS: Column<Hook>[] = [
  { id: 'name', header: 'Name', required: true, value: (h) => h.name, cell: (h) => <strong>{h.name}</strong> },
  {
    id: 'stage',
    header: 'Stage',
    className: 'nowrap',
    headerTitle: 'pre-upgrade: before the start, must allow it; post-upgrade: after completion, must confirm health',
    value: (h) => h.stage,
    cell: (h) => (
      <span className="badge info" title={`A 2xx that ${EXPECTED[h.stage] ?? ''} lets the upgrade go on; anything else stops it`}>
        {h.stage}
      </span>
    ),
  },
  {
    id: 'scope',
    header: 'Clusters',
    value: (h) => `${h.sector ?? ''} ${h.selector ?? ''}`,
    csv: (h) => [h.sector ? `sector ${h.sector}` : 'all sectors', h.selector ? `selector ${h.selector}` : ''].filter(Boolean).join('; '),
    cell: (h) => (
      <>
        {h.sector ? <>sector {h.sector}</> : <span className="muted">all sectors</span>}
        {h.selector && (
          <div className="small">
            matching <code>{h.selector}</code>
          </div>
        )}
      </>
    ),
  },
  { id: 'url', header: 'Target', className: 'mono small sch-wrap', value: (h) => h.url, cell: (h) => h.url },
  {
    id: 'timeout',
    header: 'Waits up to',
    className: 'sch-num nowrap',
    headerClassName: 'sch-num',
    value: (h) => h.timeoutSeconds,
    cell: (h) => (h.timeoutSeconds % 60 === 0 ? `${h.timeoutSeconds / 60} min` : `${h.timeoutSeconds} s`),
  },
  {
    id: 'enabled',
    header: 'State',
    value: (h) => (h.enabled ? 'enabled' : 'disabled'),
    cell: (h) => (
      <>
        {h.enabled ? <span className="badge ok">enabled</span> : <span className="badge">disabled</span>}{' '}
        {h.pendingCalls > 0 && <span className="badge info">{h.pendingCalls} waiting</span>}
      </>
    ),
  },
  {
    id: 'last',
    header: 'Last answer',
    className: 'sch-wrap',
    value: (h) => (h.lastAnswer ? isoOf(h.lastAnswer.answeredAt) : null),
    csv: (h) => (h.lastAnswer ? `${h.lastAnswer.status}${h.lastAnswer.reason ? `: ${h.lastAnswer.reason}` : ''}` : ''),
    cell: (h) =>
      h.lastAnswer ? (
        <div className="small">
          <span className={`badge ${ANSWER_TONE[h.lastAnswer.status] ?? ''}`}>{h.lastAnswer.status}</span>
          {typeof h.lastAnswer.cluster === 'string' && <> for {h.lastAnswer.cluster}</>}{' '}
          {h.lastAnswer.answeredAt && <ZonedTime iso={h.lastAnswer.answeredAt} />}
          {h.lastAnswer.reason && <div className="muted">{h.lastAnswer.reason}</div>}
        </div>
      ) : (
        <span className="muted">not called yet</span>
      ),
  },
];

function CreateHookForm({ onDone }: { onDone: (created: { name: string; secret: string }) => void }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const [name, setName] = useState('');
  const [url, setUrl] = useState('');
  const [stage, setStage] = useState<Stage>('pre-upgrade');
  const [sector, setSector] = useState('');
  const [selector, setSelector] = useState('');
  const [minutes, setMinutes] = useState('5');
  const [local, setLocal] = useState<Record<string, string[]>>({});
  const create = useMutation(
    trpc.hooks.create.mutationOptions({
      onSuccess: (h) => onDone({ name: h.name, secret: h.secret }),
      onSettled: () => void qc.invalidateQueries({ queryKey: trpc.hooks.pathKey() }),
    }),
  );
  const server = problemsOf(create.error);
  const problems = mergeProblems(local, server.byField);
  return (
    <form
      className="sch-form"
      aria-label="New hook"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        const p: Record<string, string[]> = {};
        const m = Number(minutes);
        if (!name.trim()) p.name = ['give it a name'];
        if (!url.trim()) p.url = ['enter the hook URL'];
        if (!Number.isFinite(m) || m <= 0 || m > 60 || !Number.isInteger(m * 60)) p.timeoutSeconds = ['1 second to 60 minutes'];
        setLocal(p);
        create.reset();
        if (Object.keys(p).length === 0)
          create.mutate({
            name: name.trim(),
            url: url.trim(),
            stage,
            sector: sector.trim() || null,
            selector: selector.trim() || null,
            timeoutSeconds: Math.round(m * 60),
          });
      }}
    >
      <FormField label="Name" problems={problems.name}>
        {(p) => (
          <input {...p} type="text" value={name} maxLength={100} onChange={(e) => setName(e.target.value)} placeholder="e.g. etcd-backup" />
        )}
      </FormField>
      <FormField label="URL" hint="http(s); private addresses are refused" problems={problems.url} grow>
        {(p) => (
          <input
            {...p}
            type="text"
            inputMode="url"
            value={url}
            maxLength={2000}
            onChange={(e) => setUrl(e.target.value)}
            placeholder="https://gate.example.com/fleetplan"
          />
        )}
      </FormField>
      <FormField label="Stage" problems={problems.stage}>
        {(p) => (
          <select {...p} value={stage} onChange={(e) => setStage(e.target.value as Stage)}>
            {STAGES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        )}
      </FormField>
      <FormField label="Sector" hint="empty = all" problems={problems.sector}>
        {(p) => (
          <input {...p} type="text" value={sector} maxLength={200} onChange={(e) => setSector(e.target.value)} style={{ width: 140 }} />
        )}
      </FormField>
      <SelectorField
        hint="empty = every cluster"
        placeholder="e.g. env=prod,tier=data"
        problems={problems.selector}
        value={selector}
        onChange={setSelector}
      />
      <FormField label="Wait (minutes)" problems={problems.timeoutSeconds}>
        {(p) => (
          <input {...p} type="number" min={1} max={60} value={minutes} onChange={(e) => setMinutes(e.target.value)} style={{ width: 90 }} />
        )}
      </FormField>
      <div className="sch-submit">
        <button type="submit" className="btn primary" disabled={create.isPending}>
          {create.isPending ? 'Creating…' : 'Create hook'}
        </button>
      </div>
      <FormError message={server.general} />
    </form>
  );
}

export function HooksPanel() {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const { isAdmin } = useRole();
  const [adding, setAdding] = useState(false);
  const [secret, setSecret] = useState<{ name: string; secret: string } | null>(null);
  const hooks = useQuery({ ...trpc.hooks.list.queryOptions(), refetchInterval: 15_000 });
  const refresh = () => void qc.invalidateQueries({ queryKey: trpc.hooks.pathKey() });
  const toggle = useMutation(trpc.hooks.setEnabled.mutationOptions({ onSettled: refresh }));
  const remove = useMutation(trpc.hooks.delete.mutationOptions({ onSettled: refresh }));
  const actionError = toggle.error ?? remove.error;

  const columns: Column<Hook>[] = isAdmin
    ? [
        ...COLUMNS,
        {
          id: 'actions',
          header: 'Actions',
          headerHidden: true,
          required: true,
          className: 'nowrap',
          cell: (h) => (
            <>
              <button
                type="button"
                className="btn"
                disabled={toggle.isPending && toggle.variables?.id === h.id}
                onClick={() => toggle.mutate({ id: h.id, enabled: !h.enabled })}
              >
                {h.enabled ? 'Disable' : 'Enable'}
              </button>{' '}
              <button
                type="button"
                className="btn danger"
                aria-label={`Delete hook ${h.name}`}
                disabled={remove.isPending && remove.variables?.id === h.id}
                onClick={() => {
                  if (window.confirm(`Delete hook “${h.name}” and its answers?`)) remove.mutate({ id: h.id });
                }}
              >
                Delete
              </button>
            </>
          ),
        },
      ]
    : COLUMNS;

  return (
    <section className="panel flush" aria-labelledby="hooks-h">
      <div className="toolbar">
        <h2 id="hooks-h" style={{ margin: 0 }}>
          Blocking hooks
        </h2>
        <span className="small muted">
          signed POSTs an upgrade waits for: before it starts and after it completes; no answer or any other answer stops it
        </span>
        {isAdmin && (
          <button
            type="button"
            className={`btn${adding ? '' : ' primary'}`}
            style={{ marginLeft: 'auto' }}
            onClick={() => setAdding((a) => !a)}
          >
            {adding ? 'Cancel' : 'New hook'}
          </button>
        )}
      </div>
      {adding && (
        <CreateHookForm
          onDone={(created) => {
            setAdding(false);
            setSecret(created);
          }}
        />
      )}
      {secret && <SecretOnce created={secret} storeWith="the hook" testId="hook-secret" onDismiss={() => setSecret(null)} />}
      <ActionError error={actionError} />
      <QueryState
        query={hooks}
        isEmpty={(rows) => rows.length === 0}
        empty={{
          title: 'No hook yet',
          hint: 'A hook lets an outside system hold an upgrade, e.g. until an etcd backup is done, or check an application after it.',
        }}
        loadingRows={2}
      >
        {(rows) => <DataTable id="hooks" label="Blocking hooks" noun="hooks" rows={rows} rowKey={(h) => h.id} columns={columns} />}
      </QueryState>
    </section>
  );
}
