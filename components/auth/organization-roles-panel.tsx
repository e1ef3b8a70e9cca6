'use client';
// Admin: roles granted on one organization. A grant replaces the user's global role on that
// organization (raising or lowering it); global admins stay admins; users, tokens, the scheduler
// and the instance's settings always follow the global role.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useTRPC } from '@/components/trpc/client';
import { DataTable } from '@/components/ui/data-table';
import { QueryState } from '@/components/ui/query-state';
import { ActionError } from '@/components/ui/states';
import styles from './auth.module.css';
import { ROLES, type Role } from './users-panel';

export function OrganizationRolesPanel() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const grants = useQuery(trpc.users.organizationRoles.queryOptions());
  const users = useQuery(trpc.users.list.queryOptions());
  const orgs = useQuery(trpc.organizations.list.queryOptions());
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.users.organizationRoles.queryKey() });
  const [form, setForm] = useState({ username: '', organization: '', role: 'viewer' as Role });
  const grant = useMutation(trpc.users.grantOrganizationRole.mutationOptions({ onSuccess: refresh }));
  const revoke = useMutation(trpc.users.revokeOrganizationRole.mutationOptions({ onSuccess: refresh }));
  const error = grant.error ?? revoke.error;
  const username = form.username || users.data?.[0]?.username || '';
  const organization = form.organization || orgs.data?.organizations[0]?.name || '';

  function submit(e: FormEvent) {
    e.preventDefault();
    grant.mutate({ username, organization, role: form.role });
  }

  return (
    <section className="panel flush" aria-labelledby="org-roles-title">
      <div className="toolbar">
        <h2 id="org-roles-title" style={{ margin: 0 }}>
          Roles per organization
        </h2>
        <span className="small muted">
          a grant replaces the user&apos;s global role on that organization (raises or lowers it); global admins stay admins
        </span>
      </div>
      <form className={styles.inlineForm} onSubmit={submit} aria-label="Grant a role on an organization">
        <label>
          User
          <select value={username} onChange={(e) => setForm({ ...form, username: e.target.value })}>
            {(users.data ?? []).map((u) => (
              <option key={u.username}>{u.username}</option>
            ))}
          </select>
        </label>
        <label>
          Organization
          <select value={organization} onChange={(e) => setForm({ ...form, organization: e.target.value })}>
            {(orgs.data?.organizations ?? []).map((o) => (
              <option key={o.name}>{o.name}</option>
            ))}
          </select>
        </label>
        <label>
          Role there
          <select value={form.role} onChange={(e) => setForm({ ...form, role: e.target.value as Role })}>
            {ROLES.map((r) => (
              <option key={r}>{r}</option>
            ))}
          </select>
        </label>
        <button type="submit" className="btn primary" disabled={grant.isPending || !username || !organization}>
          Grant
        </button>
      </form>
      <ActionError error={error} />
      <QueryState query={grants} isEmpty={(rows) => rows.length === 0} empty="No role is granted on a single organization" loadingRows={2}>
        {(rows) => (
          <DataTable
            id="organization-roles"
            label="Roles per organization"
            noun="grants"
            rows={rows}
            rowKey={(g) => `${g.username}@${g.organization}`}
            pageSize={50}
            columns={[
              { id: 'user', header: 'User', required: true, value: (g) => g.username, cell: (g) => g.username },
              { id: 'organization', header: 'Organization', value: (g) => g.organization, cell: (g) => g.organization },
              { id: 'role', header: 'Role there', value: (g) => g.role, cell: (g) => g.role },
              {
                id: 'source',
                header: 'From',
                value: (g) => g.source,
                // an identity-provider grant is recomputed at each sign-in; one made here stays until revoked
                cell: (g) => (g.source === 'oidc' ? <span className="badge info">identity-provider groups</span> : 'granted here'),
              },
              {
                id: 'actions',
                header: 'Actions',
                required: true,
                className: 'nowrap',
                cell: (g) => (
                  <button
                    className="btn"
                    disabled={revoke.isPending}
                    onClick={() => revoke.mutate({ username: g.username, organization: g.organization })}
                  >
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
