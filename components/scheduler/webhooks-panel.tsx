'use client';
// Webhooks (admins only): subscriptions to lifecycle events, the signing secret shown once at
// creation, and the delivery log with retries.
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTRPC } from '@/components/trpc/client';
import { formatUtc } from '@/components/ui/format';
import { EmptyState, ErrorState, LoadingRows } from '@/components/ui/states';
import { Pager } from '@/components/ui/pager';
import { mergeProblems, problemsOf } from './field-problems';
import { FormField } from './form-field';
import { useRole } from './use-role';
import { isoOf } from '@/components/ui/zoned-time';

// Mirrors WEBHOOK_EVENTS in server/services/webhook-service.ts (client code imports no server values).
const EVENTS = ['scheduled', 'started', 'completed', 'failed', 'cancelled', 'skipped-unhealthy', 'blocked'] as const;
type WebhookEvent = (typeof EVENTS)[number];
const DELIVERY_TONE: Record<string, string> = { delivered: 'ok', pending: 'info', failed: 'bad' };
const DELIVERY_PAGE = 20;

function CopyButton({ text }: { text: string }) {
  const [copied, setCopied] = useState<'yes' | 'no' | null>(null);
  return (
    <button
      type="button"
      className="btn"
      onClick={() => {
        // navigator.clipboard is missing outside secure contexts (plain http on a LAN address).
        if (!navigator.clipboard) {
          setCopied('no');
          return;
        }
        navigator.clipboard.writeText(text).then(
          () => setCopied('yes'),
          () => setCopied('no'),
        );
      }}
    >
      {copied === 'yes' ? 'Copied' : copied === 'no' ? 'Copy failed: select the text' : 'Copy'}
    </button>
  );
}

function CreateWebhookForm({ onDone }: { onDone: (created: { name: string; secret: string }) => void }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const [name, setName] = useState('');
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<WebhookEvent[]>([]);
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
        if (Object.keys(p).length === 0) create.mutate({ name: name.trim(), url: url.trim(), events });
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
      <div className="sch-submit">
        <button type="submit" className="btn primary" disabled={create.isPending}>
          {create.isPending ? 'Creating…' : 'Create webhook'}
        </button>
      </div>
      {server.general && (
        <div className="banner bad small" role="alert" style={{ flexBasis: '100%' }}>
          {server.general}
        </div>
      )}
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
      {list.isPending ? (
        <LoadingRows rows={3} />
      ) : list.isError ? (
        <ErrorState error={list.error} onRetry={() => list.refetch()} />
      ) : list.data.total === 0 ? (
        <EmptyState title="No delivery yet">Deliveries appear when a tick emits an event a webhook subscribes to.</EmptyState>
      ) : (
        <>
          <div className="table-scroll" style={{ maxHeight: 420 }}>
            <table className="data" aria-label="Webhook deliveries">
              <thead>
                <tr>
                  <th scope="col">#</th>
                  <th scope="col">Created</th>
                  <th scope="col">Webhook</th>
                  <th scope="col">Event</th>
                  <th scope="col">Status</th>
                  <th scope="col" className="sch-num">
                    Attempts
                  </th>
                  <th scope="col">Last response</th>
                  <th scope="col">Next attempt</th>
                </tr>
              </thead>
              <tbody>
                {list.data.rows.map((d) => (
                  <tr key={d.id}>
                    <td className="mono">{d.id}</td>
                    <td className="small nowrap">{formatUtc(isoOf(d.createdAt))}</td>
                    <td>{d.webhookName}</td>
                    <td>
                      <code>{d.event}</code>
                    </td>
                    <td>
                      <span className={`badge ${DELIVERY_TONE[d.status] ?? ''}`}>{d.status}</span>
                    </td>
                    <td className="sch-num">{d.attempts}</td>
                    <td className="small sch-wrap" style={{ maxWidth: 380 }}>
                      {d.lastStatusCode !== null && <span className="mono">HTTP {d.lastStatusCode} </span>}
                      {d.lastError ? (
                        <span style={{ color: 'var(--bad)' }}>{d.lastError}</span>
                      ) : d.lastStatusCode === null ? (
                        <span className="muted">—</span>
                      ) : null}
                    </td>
                    <td className="small nowrap">
                      {d.status === 'pending' ? formatUtc(isoOf(d.nextAttemptAt)) : <span className="muted">—</span>}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager
            offset={offset}
            limit={DELIVERY_PAGE}
            total={list.data.total}
            onOffset={setOffset}
            busy={list.isFetching}
            noun="deliveries"
          />
        </>
      )}
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
            <div className="banner warn" role="status" style={{ margin: 12 }} data-testid="webhook-secret">
              <div style={{ marginBottom: 6 }}>
                <strong>Signing secret of “{secret.name}”.</strong> It is shown only now: store it with the receiver to verify signatures.
              </div>
              <div className="sch-secret">
                <code>{secret.secret}</code>
                <CopyButton text={secret.secret} />
                <button type="button" className="btn" onClick={() => setSecret(null)}>
                  I stored it
                </button>
              </div>
            </div>
          )}
          {remove.error && (
            <div className="banner bad small" role="alert" style={{ margin: 12 }}>
              {remove.error.message}
            </div>
          )}
          {hooks.isPending ? (
            <LoadingRows rows={3} />
          ) : hooks.isError ? (
            <ErrorState error={hooks.error} onRetry={() => hooks.refetch()} />
          ) : hooks.data.length === 0 ? (
            <EmptyState title="No webhook yet">Add one to notify chat or ticketing when upgrades start, finish or fail.</EmptyState>
          ) : (
            <table className="data" aria-label="Webhooks">
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">URL</th>
                  <th scope="col">Events</th>
                  <th scope="col">Enabled</th>
                  <th scope="col">Created</th>
                  <th scope="col">
                    <span className="sch-sr-only">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {hooks.data.map((w) => (
                  <tr key={w.id}>
                    <td>{w.name}</td>
                    <td className="mono sch-wrap" style={{ maxWidth: 420 }}>
                      {w.url}
                    </td>
                    <td>
                      <div className="chips">
                        {w.events.length === 0 ? (
                          <span className="badge accent">all events</span>
                        ) : (
                          w.events.map((ev) => (
                            <span key={ev} className="badge">
                              {ev}
                            </span>
                          ))
                        )}
                      </div>
                    </td>
                    <td>{w.enabled ? <span className="badge ok">enabled</span> : <span className="badge">disabled</span>}</td>
                    <td className="small nowrap">{formatUtc(isoOf(w.createdAt))}</td>
                    <td>
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
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          {hooks.data && hooks.data.length > 0 && <Deliveries hooks={hooks.data} />}
        </>
      )}
    </section>
  );
}
