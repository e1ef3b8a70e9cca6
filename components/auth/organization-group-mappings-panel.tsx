'use client';
// Admin: which groups at the team's identity provider (OIDC) get which role on each organization.
// Written like FLEETPLAN_OIDC_ROLE_GROUPS (`admin=fleet-admins;operator=sre;viewer=*`) and checked
// by the same parser on the server; each user's grants there follow at their next sign-in (grants
// made by hand stay).
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useTRPC } from '@/components/trpc/client';
import { DataTable } from '@/components/ui/data-table';
import { QueryState } from '@/components/ui/query-state';
import { ActionError } from '@/components/ui/states';
import styles from './auth.module.css';

export function OrganizationGroupMappingsPanel() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const mappings = useQuery(trpc.users.organizationRoleGroups.queryOptions());
  const [editing, setEditing] = useState<{ organization: string; text: string } | null>(null);
  const save = useMutation(
    trpc.users.setOrganizationRoleGroups.mutationOptions({
      onSuccess: () => {
        setEditing(null);
        return queryClient.invalidateQueries({ queryKey: trpc.users.organizationRoleGroups.queryKey() });
      },
    }),
  );

  function submit(e: FormEvent) {
    e.preventDefault();
    if (editing) save.mutate({ organization: editing.organization, mapping: editing.text });
  }

  return (
    <section className="panel flush" aria-labelledby="org-groups-title">
      <div className="toolbar">
        <h2 id="org-groups-title" style={{ margin: 0 }}>
          Identity-provider groups per organization
        </h2>
        <span className="small muted">
          at each sign-in with the identity provider, these groups grant the role on the organization (e.g.{' '}
          <code>operator=sre;viewer=*</code>); a user no global group matches sees only such organizations
        </span>
      </div>
      <ActionError error={save.error} />
      <QueryState query={mappings} isEmpty={(rows) => rows.length === 0} empty="No organization yet" loadingRows={2}>
        {(rows) => (
          <DataTable
            id="organization-group-mappings"
            label="Identity-provider groups per organization"
            noun="organizations"
            rows={rows}
            rowKey={(m) => m.organization}
            pageSize={50}
            columns={[
              { id: 'organization', header: 'Organization', required: true, value: (m) => m.organization, cell: (m) => m.organization },
              {
                id: 'mapping',
                header: 'Groups → role there',
                required: true,
                value: (m) => m.mapping ?? '',
                cell: (m) =>
                  editing?.organization === m.organization ? (
                    <form className={styles.inlineForm} onSubmit={submit} aria-label={`Group mapping of ${m.organization}`}>
                      <input
                        aria-label={`Groups of ${m.organization}`}
                        value={editing.text}
                        maxLength={2000}
                        placeholder="admin=GROUP;operator=GROUP,GROUP;viewer=*"
                        onChange={(e) => setEditing({ organization: m.organization, text: e.target.value })}
                        style={{ minWidth: 320 }}
                      />
                      <button type="submit" className="btn primary" disabled={save.isPending}>
                        Save
                      </button>
                      <button type="button" className="btn" onClick={() => setEditing(null)}>
                        Cancel
                      </button>
                    </form>
                  ) : m.mapping ? (
                    <code className="sch-wrap">{m.mapping}</code>
                  ) : (
                    <span className="muted">none</span>
                  ),
              },
              {
                id: 'actions',
                header: 'Actions',
                required: true,
                className: 'nowrap',
                cell: (m) => (
                  <>
                    <button
                      className="btn"
                      disabled={editing !== null}
                      onClick={() => setEditing({ organization: m.organization, text: m.mapping ?? '' })}
                    >
                      Edit
                    </button>{' '}
                    {m.mapping && (
                      <button
                        className="btn"
                        disabled={save.isPending}
                        onClick={() => save.mutate({ organization: m.organization, mapping: null })}
                      >
                        Clear
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
