'use client';
// API tokens for the CLI and automation: create (secret shown once), list (prefix only), revoke.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useTRPC } from '@/components/trpc/client';
import { formatUtc } from '@/components/ui/zoned-time';
import { ZonedTime } from '@/components/ui/zoned-time-view';
import { DataTable, type Column } from '@/components/ui/data-table';
import { QueryState } from '@/components/ui/query-state';
import { ActionError } from '@/components/ui/states';
import type { inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '@/server/api/root';
import styles from './auth.module.css';

type Role = 'viewer' | 'operator' | 'admin';
const RANK: Record<Role, number> = { viewer: 0, operator: 1, admin: 2 };
/** a role, or the one narrow permission (server/auth/actor.ts TOKEN_SCOPES) */
type TokenScope = Role | 'approvals:write';

/** lifetimes offered at creation; the server accepts 1 to 366 days (server/services/token-service.ts) */
const LIFETIME_DAYS = [7, 30, 90, 180, 366] as const;
const DEFAULT_LIFETIME_DAYS = 90;

type Token = inferRouterOutputs<AppRouter>['tokens']['list'][number];

/** Expiry is judged by the browser's clock: a display hint only, the server refuses expired tokens itself. */
function statusOf(t: Token): 'revoked' | 'expired' | 'active' {
  if (t.revokedAt) return 'revoked';
  return t.expiresAt && Date.parse(t.expiresAt) <= Date.now() ? 'expired' : 'active';
}
const STATUS_TONE = { revoked: 'bad', expired: 'warn', active: 'ok' } as const;

const TOKEN_COLUMNS: Column<Token>[] = [
  {
    id: 'name',
    header: 'Name',
    required: true,
    value: (t) => t.name,
    cell: (t) => (
      <span className="truncate" style={{ display: 'inline-block', maxWidth: 200 }}>
        {t.name}
      </span>
    ),
  },
  { id: 'token', header: 'Token', className: 'mono small nowrap', value: (t) => t.prefix, cell: (t) => `${t.prefix}…` },
  { id: 'scope', header: 'Scope', value: (t) => t.scope, cell: (t) => <span className="badge">{t.scope}</span> },
  { id: 'owner', header: 'Owner', value: (t) => t.owner, cell: (t) => t.owner },
  { id: 'created', header: 'Created', className: 'nowrap small', value: (t) => t.createdAt, cell: (t) => formatUtc(t.createdAt) },
  {
    id: 'lastUsed',
    header: 'Last used',
    className: 'nowrap small',
    value: (t) => t.lastUsedAt,
    cell: (t) => (t.lastUsedAt ? <ZonedTime iso={t.lastUsedAt} /> : 'never'),
  },
  {
    id: 'expires',
    header: 'Expires',
    className: 'nowrap small',
    value: (t) => t.expiresAt,
    cell: (t) => (t.expiresAt ? <ZonedTime iso={t.expiresAt} /> : '—'),
  },
  {
    id: 'status',
    header: 'Status',
    value: statusOf,
    cell: (t) => <span className={`badge ${STATUS_TONE[statusOf(t)]}`}>{statusOf(t)}</span>,
  },
];

export function TokensPanel({ role }: { role: Role }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [all, setAll] = useState(false);
  const tokens = useQuery(trpc.tokens.list.queryOptions({ all }));
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.tokens.pathKey() });
  const [form, setForm] = useState({ name: '', scope: 'viewer' as TokenScope, expiresInDays: DEFAULT_LIFETIME_DAYS });
  const [secret, setSecret] = useState<{ name: string; token: string } | null>(null);
  const create = useMutation(
    trpc.tokens.create.mutationOptions({
      onSuccess: (r) => {
        setSecret({ name: r.summary.name, token: r.token });
        setForm({ name: '', scope: 'viewer', expiresInDays: DEFAULT_LIFETIME_DAYS });
        void refresh();
      },
    }),
  );
  const revoke = useMutation(trpc.tokens.revoke.mutationOptions({ onSuccess: refresh }));
  const error = create.error ?? revoke.error;

  function submit(e: FormEvent) {
    e.preventDefault();
    create.mutate(form);
  }

  return (
    <section className="panel flush" aria-labelledby="tokens-title">
      <div className="toolbar">
        <h2 id="tokens-title" style={{ margin: 0 }}>
          API tokens
        </h2>
        <span className="small muted">
          For the CLI and automation: <span className="mono">Authorization: Bearer fp_…</span>. A token acts with its scope, never above its
          owner&apos;s role.
        </span>
        {role === 'admin' && (
          <label className="small" style={{ marginLeft: 'auto' }}>
            <input type="checkbox" checked={all} onChange={(e) => setAll(e.target.checked)} /> Everyone&apos;s tokens
          </label>
        )}
      </div>
      <form className={styles.inlineForm} onSubmit={submit} aria-label="Create API token">
        <label>
          Name
          <input
            type="text"
            required
            maxLength={80}
            placeholder="ci-pipeline"
            value={form.name}
            onChange={(e) => setForm({ ...form, name: e.target.value })}
          />
        </label>
        <label>
          Scope
          <select value={form.scope} onChange={(e) => setForm({ ...form, scope: e.target.value as TokenScope })}>
            {(['viewer', 'operator', 'admin'] as const)
              .filter((r) => RANK[r] <= RANK[role])
              .map((r) => (
                <option key={r}>{r}</option>
              ))}
            {/* a narrow scope: approves sectors' gates and nothing else (a CI job); needs an operator */}
            {RANK[role] >= RANK.operator && <option value="approvals:write">approvals:write (approve gates only)</option>}
          </select>
        </label>
        <label>
          Expires in
          <select value={form.expiresInDays} onChange={(e) => setForm({ ...form, expiresInDays: Number(e.target.value) })}>
            {LIFETIME_DAYS.map((d) => (
              <option key={d} value={d}>
                {d} days
              </option>
            ))}
          </select>
        </label>
        <button type="submit" className="btn primary" disabled={create.isPending}>
          Create token
        </button>
      </form>
      <ActionError error={error} />
      {secret && (
        <div className="banner info" style={{ margin: 12 }} role="status">
          Token <strong>{secret.name}</strong>: copy it now, it is not shown again.
          <div className={styles.secret} data-testid="new-token">
            {secret.token}
          </div>
          <button className="btn" style={{ marginTop: 8 }} onClick={() => setSecret(null)}>
            Done
          </button>
        </div>
      )}
      <QueryState
        query={tokens}
        isEmpty={(rows) => rows.length === 0}
        empty={{ title: 'No API tokens', hint: 'Create one above for the CLI or a pipeline.' }}
        loadingRows={3}
      >
        {(rows) => (
          <DataTable
            id="api-tokens"
            label="API tokens"
            noun="tokens"
            rows={rows}
            rowKey={(t) => t.id}
            rowProps={(t) => ({ 'data-token': t.prefix })}
            columns={[
              ...TOKEN_COLUMNS.filter((c) => all || c.id !== 'owner'),
              {
                id: 'actions',
                header: 'Actions',
                headerHidden: true,
                required: true,
                cell: (t) =>
                  !t.revokedAt && (
                    <button className="btn danger" onClick={() => revoke.mutate({ id: t.id })}>
                      Revoke
                    </button>
                  ),
              },
            ]}
          />
        )}
      </QueryState>
    </section>
  );
}
