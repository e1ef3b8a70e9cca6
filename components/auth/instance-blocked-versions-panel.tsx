'use client';
// Admin: versions blocked in every organization (the instance's list, beside each organization's
// own blocked versions on the Policies page). Explanations name them "blocked instance-wide".
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useTRPC } from '@/components/trpc/client';
import { DataTable } from '@/components/ui/data-table';
import { QueryState } from '@/components/ui/query-state';
import { ActionError } from '@/components/ui/states';
import { ZonedTime } from '@/components/ui/zoned-time-view';
import styles from './auth.module.css';

export function InstanceBlockedVersionsPanel() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const blocked = useQuery(trpc.instance.blockedVersions.queryOptions());
  // every organization's decisions change: everything is asked again
  const refresh = () => queryClient.invalidateQueries();
  const [form, setForm] = useState({ pattern: '', reason: '' });
  const add = useMutation(
    trpc.instance.addBlockedVersion.mutationOptions({
      onSuccess: () => {
        setForm({ pattern: '', reason: '' });
        void refresh();
      },
    }),
  );
  const remove = useMutation(trpc.instance.removeBlockedVersion.mutationOptions({ onSuccess: refresh }));
  const error = add.error ?? remove.error;
  function submit(e: FormEvent) {
    e.preventDefault();
    add.mutate(form);
  }
  return (
    <section className="panel flush" aria-labelledby="instance-blocked-title">
      <div className="toolbar">
        <h2 id="instance-blocked-title" style={{ margin: 0 }}>
          Versions blocked instance-wide
        </h2>
        <span className="small muted">blocked in every organization, beside each organization&apos;s own list</span>
      </div>
      <form className={styles.inlineForm} onSubmit={submit} aria-label="Block a version instance-wide">
        <label>
          Pattern (regular expression)
          <input
            type="text"
            required
            maxLength={500}
            placeholder="^4\.14\.3$"
            value={form.pattern}
            onChange={(e) => setForm({ ...form, pattern: e.target.value })}
          />
        </label>
        <label>
          Reason
          <input type="text" required maxLength={1000} value={form.reason} onChange={(e) => setForm({ ...form, reason: e.target.value })} />
        </label>
        <button type="submit" className="btn primary" disabled={add.isPending}>
          Block
        </button>
      </form>
      <ActionError error={error} />
      <QueryState query={blocked} isEmpty={(rows) => rows.length === 0} empty="No version is blocked instance-wide" loadingRows={2}>
        {(rows) => (
          <DataTable
            id="instance-blocked-versions"
            label="Versions blocked instance-wide"
            noun="patterns"
            rows={rows}
            rowKey={(b) => b.pattern}
            pageSize={50}
            columns={[
              { id: 'pattern', header: 'Pattern', required: true, value: (b) => b.pattern, cell: (b) => <code>{b.pattern}</code> },
              { id: 'reason', header: 'Reason', value: (b) => b.reason, cell: (b) => b.reason },
              { id: 'by', header: 'By', value: (b) => b.createdBy, cell: (b) => b.createdBy },
              {
                id: 'at',
                header: 'Since',
                className: 'nowrap small',
                value: (b) => b.createdAt,
                cell: (b) => <ZonedTime iso={b.createdAt} />,
              },
              {
                id: 'actions',
                header: 'Actions',
                required: true,
                cell: (b) => (
                  <button className="btn" disabled={remove.isPending} onClick={() => remove.mutate({ pattern: b.pattern })}>
                    Unblock
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
