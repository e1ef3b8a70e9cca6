'use client';
// Webhooks (admins only): subscriptions to lifecycle events, the signing secret shown once at
// creation, and the delivery log with retries.
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTRPC } from '@/components/trpc/client';
import { ActionError, EmptyState, LoadingRows } from '@/components/ui/states';
import { BadgeList } from '@/components/ui/badges';
import { DataTable, type Column } from '@/components/ui/data-table';
import { QueryState } from '@/components/ui/query-state';
import type { inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '@/server/api/root';
import { mergeProblems, problemsOf } from './field-problems';
import { FormError, FormField, SelectorField } from './form-field';
import { SecretOnce } from './secret-once';
import { useRole } from './use-role';
import { UPGRADE_EVENTS } from '@/lib/upgrade-events';
import { isoOf } from '@/components/ui/zoned-time';
import { ZonedTime } from '@/components/ui/zoned-time-view';

const EVENTS = UPGRADE_EVENTS;
type WebhookEvent = (typeof EVENTS)[number];
const DELIVERY_TONE: Record<string, string> = { delivered: 'ok', pending: 'info', failed: 'bad' };
const DELIVERY_PAGE = 20;

type Webhook = inferRouterOutputs<AppRouter>['webhooks']['list'][number];
type Delivery = inferRouterOutputs<AppRouter>['webhooks']['deliveries']['rows'][number];

// The server pages deliveries (newest first), so these columns do not sort a single page.
const DELIVERY_COLUMNS: Column<Delivery>[] = [
  { id: 'id', header: '#', className: 'mono', required: true, csv: (d) => d.id, cell: (d) => d.id },
  {
    id: 'created',
    header: 'Created',
    className: 'small nowrap',
    csv: (d) => isoOf(d.createdAt),
    cell: (d) => <ZonedTime iso={d.createdAt} />,
  },
  { id: 'webhook', header: 'Webhook', csv: (d) => d.webhookName, cell: (d) => d.webhookName },
  { id: 'event', header: 'Event', csv: (d) => d.event, cell: (d) => <code>{d.event}</code> },
  {
    id: 'status',
    header: 'Status',
    csv: (d) => d.status,
    cell: (d) => <span className={`badge ${DELIVERY_TONE[d.status] ?? ''}`}>{d.status}</span>,
  },
  { id: 'attempts', header: 'Attempts', className: 'sch-num', headerClassName: 'sch-num', csv: (d) => d.attempts, cell: (d) => d.attempts },
  {
    id: 'response',
    header: 'Last response',
    className: 'small sch-wrap webhook-response',
    csv: (d) => [d.lastStatusCode !== null ? `HTTP ${d.lastStatusCode}` : null, d.lastError].filter(Boolean).join(' '),
    cell: (d) => (
      <>
        {d.lastStatusCode !== null && <span className="mono">HTTP {d.lastStatusCode} </span>}
        {d.lastError ? (
          <span style={{ color: 'var(--bad)' }}>{d.lastError}</span>
        ) : d.lastStatusCode === null ? (
          <span className="muted">—</span>
        ) : null}
      </>
    ),
  },
  {
    id: 'next',
    header: 'Next attempt',
    className: 'small nowrap',
    csv: (d) => (d.status === 'pending' ? isoOf(d.nextAttemptAt) : null),
    cell: (d) => (d.status === 'pending' ? <ZonedTime iso={d.nextAttemptAt} /> : <span className="muted">—</span>),
  },
];

const WEBHOOK_COLUMNS: Column<Webhook>[] = [
  { id: 'name', header: 'Name', required: true, value: (w) => w.name, cell: (w) => w.name },
  { id: 'url', header: 'URL', className: 'mono sch-wrap webhook-url', value: (w) => w.url, cell: (w) => w.url },
  {
    id: 'events',
    header: 'Events',
    csv: (w) => (w.events.length === 0 ? 'all events' : w.events.join(' ')),
    cell: (w) => <BadgeList items={w.events} empty={<span className="badge accent">all events</span>} />,
  },
  {
    id: 'selector',
    header: 'Clusters',
    csv: (w) => w.selector ?? 'all clusters',
    cell: (w) => (w.selector ? <code>{w.selector}</code> : <span className="muted">all clusters</span>),
  },
  {
    id: 'enabled',
    header: 'Enabled',
    value: (w) => w.enabled,
    csv: (w) => (w.enabled ? 'enabled' : 'disabled'),
    cell: (w) => (w.enabled ? <span className="badge ok">enabled</span> : <span className="badge">disabled</span>),
  },
  {
    id: 'created',
    header: 'Created',
    className: 'small nowrap',
    value: (w) => isoOf(w.createdAt),
    cell: (w) => <ZonedTime iso={w.createdAt} />,
  },
];

function CreateWebhookForm({ onDone }: { onDone: (created: { name: string; secret: string }) => void }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const [name, setName] = useState('');
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<WebhookEvent[]>([]);
  const [selector, setSelector] = useState('');
  const [local, setLocal] = useState<Record<string, string[]>>({});
  const create = useMutation(
    trpc.webhooks.create.mutationOptions({
      onSuccess: (w) => onDone({ name: w.name, secret: w.secret }),
      onSettled: () => {
        void qc.invalidateQueries({ queryKey: trpc.webhooks.pathKey() });
        void qc.invalidateQueries({ queryKey: trpc.activity.pathKey() });
      },
    }),
  );
  const server = problemsOf(create.error);
  const problems = mergeProblems(local, server.byField);
  return (
    <form
      className="sch-form"
      aria-label="New webhook"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        const p: Record<string, string[]> = {};
        if (!name.trim()) p.name = ['give it a name'];
        if (!url.trim()) p.url = ['enter the receiver URL'];
        setLocal(p);
        create.reset();
        if (Object.keys(p).length === 0) create.mutate({ name: name.trim(), url: url.trim(), events, selector: selector.trim() || null });
      }}
    >
      <FormField label="Name" problems={problems.name}>
        {(p) => (
          <input
            {...p}
            type="text"
            value={name}
            maxLength={100}
            onChange={(e) => setName(e.target.value)}
            placeholder="e.g. chatops"
            style={{ width: 180 }}
          />
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
            placeholder="https://hooks.example.com/fleetplan"
          />
        )}
      </FormField>
      <fieldset className="sch-field" style={{ border: 0, padding: 0, margin: 0 }}>
        <legend className="small" style={{ fontWeight: 600, padding: 0 }}>
          Events <span className="muted">· none ticked = all</span>
        </legend>
        <div className="sch-events small">
          {EVENTS.map((ev) => (
            <label key={ev}>
              <input
                type="checkbox"
                checked={events.includes(ev)}
                onChange={(e) => setEvents((list) => (e.target.checked ? [...list, ev] : list.filter((x) => x !== ev)))}
              />
              {ev}
            </label>
          ))}
        </div>
        {problems.events && <div className="sch-field-error small">{problems.events.join('; ')}</div>}
      </fieldset>
      <SelectorField
        hint="events of matching clusters only; empty = every cluster"
        placeholder="e.g. env=prod"
        problems={problems.selector}
        value={selector}
        onChange={setSelector}
      />
      <div className="sch-submit">
        <button type="submit" className="btn primary" disabled={create.isPending}>
          {create.isPending ? 'Creating…' : 'Create webhook'}
        </button>
      </div>
      <FormError message={server.general} />
    </form>
  );
}

function Deliveries({ hooks }: { hooks: { id: number; name: string }[] }) {
  const trpc = useTRPC();
  const [webhookId, setWebhookId] = useState<number | undefined>(undefined);
  const [offset, setOffset] = useState(0);
  const list = useQuery({
    ...trpc.webhooks.deliveries.queryOptions({ webhookId, offset, limit: DELIVERY_PAGE }),
    refetchInterval: 15_000,
    placeholderData: keepPreviousData,
  });
  return (
    <>
      <div className="toolbar" style={{ borderTop: '1px solid var(--border)' }}>
        <h3 style={{ margin: 0, fontSize: 14 }}>Deliveries</h3>
        <select
          aria-label="Deliveries of webhook"
          value={webhookId ?? ''}
          onChange={(e) => {
            setWebhookId(e.target.value ? Number(e.target.value) : undefined);
            setOffset(0);
          }}
        >
          <option value="">all webhooks</option>
          {hooks.map((h) => (
            <option key={h.id} value={h.id}>
              {h.name}
            </option>
          ))}
        </select>
        <span className="small muted">failed deliveries are retried with exponential backoff, up to 6 attempts</span>
      </div>
      <QueryState
        query={list}
        isEmpty={(page) => page.total === 0}
        empty={{ title: 'No delivery yet', hint: 'Deliveries appear when a tick emits an event a webhook subscribes to.' }}
        loadingRows={3}
      >
        {(page) => (
          <DataTable
            id="webhook-deliveries"
            label="Webhook deliveries"
            noun="deliveries"
            rows={page.rows}
            rowKey={(d) => d.id}
            columns={DELIVERY_COLUMNS}
            paging={{ offset, limit: DELIVERY_PAGE, total: page.total, onOffset: setOffset, busy: list.isFetching }}
          />
        )}
      </QueryState>
    </>
  );
}

export function WebhooksPanel() {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const { isAdmin, known } = useRole();
  const hooks = useQuery({ ...trpc.webhooks.list.queryOptions(), enabled: isAdmin });
  const [adding, setAdding] = useState(false);
  const [secret, setSecret] = useState<{ name: string; secret: string } | null>(null);
  const remove = useMutation(
    trpc.webhooks.delete.mutationOptions({
      onSettled: () => {
        void qc.invalidateQueries({ queryKey: trpc.webhooks.pathKey() });
        void qc.invalidateQueries({ queryKey: trpc.activity.pathKey() });
      },
    }),
  );

  return (
    <section className="panel flush" aria-labelledby="wh-h">
      <div className="toolbar">
        <h2 id="wh-h" style={{ margin: 0 }}>
          Webhooks
        </h2>
        <span className="small muted">
          signed JSON POSTs on upgrade lifecycle events (header X-Fleetplan-Signature: sha256=HMAC of the body)
        </span>
        {isAdmin && !adding && (
          <button type="button" className="btn primary" style={{ marginLeft: 'auto' }} onClick={() => setAdding(true)}>
            New webhook
          </button>
        )}
        {isAdmin && adding && (
          <button type="button" className="btn" style={{ marginLeft: 'auto' }} onClick={() => setAdding(false)}>
            Cancel
          </button>
        )}
      </div>
      {!known ? (
        <LoadingRows rows={2} />
      ) : !isAdmin ? (
        <EmptyState title="Webhooks are managed by admins">Ask an admin to add a receiver for upgrade events.</EmptyState>
      ) : (
        <>
          {adding && (
            <CreateWebhookForm
              onDone={(created) => {
                setAdding(false);
                setSecret(created);
              }}
            />
          )}
          {secret && (
            <SecretOnce created={secret} storeWith="the receiver" copyable testId="webhook-secret" onDismiss={() => setSecret(null)} />
          )}
          <ActionError error={remove.error} />
          <QueryState
            query={hooks}
            isEmpty={(rows) => rows.length === 0}
            empty={{ title: 'No webhook yet', hint: 'Add one to notify chat or ticketing when upgrades start, finish or fail.' }}
            loadingRows={3}
          >
            {(rows) => (
              <DataTable
                id="webhooks"
                label="Webhooks"
                noun="webhooks"
                rows={rows}
                rowKey={(w) => w.id}
                columns={[
                  ...WEBHOOK_COLUMNS,
                  {
                    id: 'actions',
                    header: 'Actions',
                    headerHidden: true,
                    required: true,
                    cell: (w) => (
                      <button
                        type="button"
                        className="btn danger"
                        disabled={remove.isPending && remove.variables?.id === w.id}
                        aria-label={`Delete webhook ${w.name}`}
                        onClick={() => {
                          if (window.confirm(`Delete webhook “${w.name}” and its delivery log?`)) remove.mutate({ id: w.id });
                        }}
                      >
                        Delete
                      </button>
                    ),
                  },
                ]}
              />
            )}
          </QueryState>
          {hooks.data && hooks.data.length > 0 && <Deliveries hooks={hooks.data} />}
        </>
      )}
    </section>
  );
}
