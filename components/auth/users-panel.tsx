'use client';
// Admin: local users — create, change role, disable/enable, reset password (shown once).
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import type { inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '@/server/api/root';
import { useTRPC } from '@/components/trpc/client';
import { ZonedTime } from '@/components/ui/zoned-time-view';
import { DataTable } from '@/components/ui/data-table';
import { QueryState } from '@/components/ui/query-state';
import { ActionError } from '@/components/ui/states';
import styles from './auth.module.css';

export type Role = inferRouterOutputs<AppRouter>['users']['list'][number]['role'];
/** the roles, lowest first, as a user's global role and as a grant on one organization offer them */
export const ROLES: Role[] = ['viewer', 'operator', 'admin'];

export function UsersPanel() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const users = useQuery(trpc.users.list.queryOptions());
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.users.pathKey() });
  const [form, setForm] = useState({ username: '', password: '', role: 'viewer' as Role });
  const [revealed, setRevealed] = useState<{ username: string; password: string } | null>(null);
  const create = useMutation(
    trpc.users.create.mutationOptions({
      onSuccess: () => {
        setForm({ username: '', password: '', role: 'viewer' });
        void refresh();
      },
    }),
  );
  const setRole = useMutation(trpc.users.setRole.mutationOptions({ onSuccess: refresh }));
  const setDisabled = useMutation(trpc.users.setDisabled.mutationOptions({ onSuccess: refresh }));
  const reset = useMutation(
    trpc.users.resetPassword.mutationOptions({
      onSuccess: (r) => r.generatedPassword && setRevealed({ username: r.username, password: r.generatedPassword }),
    }),
  );
  const error = create.error ?? setRole.error ?? setDisabled.error ?? reset.error;

  function submit(e: FormEvent) {
    e.preventDefault();
    create.mutate(form);
  }

  return (
    <section className="panel flush" aria-labelledby="users-title">
      <div className="toolbar">
        <h2 id="users-title" style={{ margin: 0 }}>
          Users
        </h2>
        <span className="small muted">
          viewer reads · operator edits policies, blocks versions, freezes, runs the scheduler · admin manages users, tokens, providers,
          webhooks
        </span>
      </div>
      <form className={styles.inlineForm} onSubmit={submit} aria-label="Create user">
        <label>
          Username
          <input
            type="text"
            required
            minLength={2}
            maxLength={64}
            pattern="[a-z0-9][a-z0-9._\-]*"
            value={form.username}
            onChange={(e) => setForm({ ...form, username: e.target.value })}
          />
        </label>
        <label>
          Password (10+ characters)
          <input
            type="password"
            autoComplete="new-password"
            required
            minLength={10}
            maxLength={256}
            value={form.password}
            onChange={(e) => setForm({ ...form, password: e.target.value })}
          />
        </label>
        <label>
          Role
          <select value={form.role} onChange={(e) => setForm({ ...form, role: e.target.value as Role })}>
            {ROLES.map((r) => (
              <option key={r}>{r}</option>
            ))}
          </select>
        </label>
        <button type="submit" className="btn primary" disabled={create.isPending}>
          Create user
        </button>
      </form>
      <ActionError error={error} />
      {revealed && (
        <div className="banner info" style={{ margin: 12 }} role="status">
          New password for <strong>{revealed.username}</strong> (shown once; copy it now):
          <div className={styles.secret}>{revealed.password}</div>
          <button className="btn" style={{ marginTop: 8 }} onClick={() => setRevealed(null)}>
            Done
          </button>
        </div>
      )}
      <QueryState query={users} isEmpty={(rows) => rows.length === 0} empty="No users yet" loadingRows={3}>
        {(rows) => (
          <DataTable
            id="users"
            label="Users"
            noun="users"
            rows={rows}
            rowKey={(u) => u.username}
            rowProps={(u) => ({ 'data-user': u.username })}
            filterable={rows.length > 10}
            pageSize={50}
            columns={[
              {
                id: 'user',
                header: 'User',
                required: true,
                value: (u) => u.username,
                cell: (u) => (
                  <>
                    <span className="truncate" style={{ display: 'inline-block' }}>
                      {u.username}
                    </span>
                    {u.signsInWith && (
                      <>
                        {' '}
                        <span className="badge" title={`Signs in through the identity provider '${u.signsInWith}'`}>
                          {u.signsInWith}
                        </span>
                      </>
                    )}
                  </>
                ),
              },
              {
                id: 'role',
                header: 'Role',
                value: (u) => (u.organizationsOnly ? 'organizations only' : u.role),
                cell: (u) =>
                  u.organizationsOnly ? (
                    <span
                      className="muted"
                      title="No global role: only the organizations its identity-provider groups (or a grant) give it"
                    >
                      organizations only
                    </span>
                  ) : (
                    <select
                      aria-label={`Role of ${u.username}`}
                      value={u.role}
                      disabled={setRole.isPending || u.signsInWith !== null}
                      title={u.signsInWith ? 'Follows the groups at the identity provider at every sign-in' : undefined}
                      onChange={(e) => setRole.mutate({ username: u.username, role: e.target.value as Role })}
                    >
                      {ROLES.map((r) => (
                        <option key={r}>{r}</option>
                      ))}
                    </select>
                  ),
              },
              {
                id: 'status',
                header: 'Status',
                value: (u) => (u.disabled ? 'disabled' : 'active'),
                cell: (u) => (u.disabled ? <span className="badge bad">disabled</span> : <span className="badge ok">active</span>),
              },
              {
                id: 'created',
                header: 'Created',
                className: 'nowrap small',
                value: (u) => u.createdAt,
                cell: (u) => <ZonedTime iso={u.createdAt} />,
              },
              {
                id: 'actions',
                header: 'Actions',
                required: true,
                className: 'nowrap',
                cell: (u) => (
                  <>
                    <button className="btn" onClick={() => setDisabled.mutate({ username: u.username, disabled: !u.disabled })}>
                      {u.disabled ? 'Enable' : 'Disable'}
                    </button>{' '}
                    {u.signsInWith === null && (
                      <button className="btn" onClick={() => reset.mutate({ username: u.username })}>
                        Reset password
                      </button>
                    )}
                  </>
                ),
              },
            ]}
          />
        )}
      </QueryState>
    </section>
  );
}
