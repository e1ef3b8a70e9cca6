'use client';
// A cluster's labels: the provider's and fleetplan's as chips (a fleetplan label that overrides
// the provider's says so), and, for operators, kubectl-style changes (`env=prod team-`) applied
// together or refused together with the server's message. Each chip filters the Fleet by it.
import Link from 'next/link';
import { useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useTRPC } from '@/components/trpc/client';
import { problemsOf } from '@/components/scheduler/field-problems';
import { OPERATOR_ONLY, useRole } from '@/components/scheduler/use-role';

export function ClusterLabels({
  cluster,
  providerLabels,
  fleetplanLabels,
}: {
  cluster: string;
  providerLabels: Record<string, string>;
  fleetplanLabels: Record<string, string>;
}) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const { canOperate } = useRole();
  const [changes, setChanges] = useState('');
  const [notice, setNotice] = useState<string | null>(null);
  const save = useMutation(
    trpc.clusters.setLabels.mutationOptions({
      onSuccess: (r) => {
        setChanges('');
        setNotice(
          r.notFound.length > 0
            ? `Not fleetplan labels (left as they are): ${r.notFound.join(', ')}`
            : r.changed
              ? 'Labels saved.'
              : 'No change.',
        );
      },
      onSettled: () => {
        void qc.invalidateQueries({ queryKey: trpc.clusters.pathKey() });
      },
    }),
  );
  const keys = [...new Set([...Object.keys(providerLabels), ...Object.keys(fleetplanLabels)])].sort();
  const error = problemsOf(save.error);

  return (
    <div className="cluster-labels">
      {keys.length === 0 ? (
        <span className="muted">none</span>
      ) : (
        <ul className="label-chips" aria-label="Labels">
          {keys.map((key) => {
            const ours = Object.prototype.hasOwnProperty.call(fleetplanLabels, key);
            const value = ours ? fleetplanLabels[key]! : providerLabels[key]!;
            const overridden = ours && Object.prototype.hasOwnProperty.call(providerLabels, key) ? providerLabels[key] : undefined;
            const source = ours
              ? overridden !== undefined
                ? `set in fleetplan; the provider says ${overridden}`
                : 'set in fleetplan'
              : 'from the provider';
            return (
              <li key={key}>
                <Link
                  className={`badge label-chip${ours ? ' info' : ''}`}
                  href={`/fleet?label=${encodeURIComponent(`${key}=${value}`)}`}
                  title={`Clusters labelled ${key}=${value} (${source})`}
                >
                  <span className="mono">
                    {key}={value}
                  </span>
                  {ours && <span className="label-source"> · fleetplan</span>}
                </Link>
              </li>
            );
          })}
        </ul>
      )}
      {canOperate ? (
        <form
          className="label-editor"
          aria-label="Change labels"
          onSubmit={(e) => {
            e.preventDefault();
            const list = changes.split(/\s+/).filter(Boolean);
            if (list.length === 0) return;
            setNotice(null);
            save.mutate({ cluster, changes: list });
          }}
        >
          <input
            type="text"
            aria-label="Label changes"
            aria-invalid={save.isError || undefined}
            aria-describedby="label-editor-help"
            value={changes}
            maxLength={2000}
            placeholder="env=prod tier=web team-"
            onChange={(e) => setChanges(e.target.value)}
          />
          <button type="submit" className="btn" disabled={save.isPending || changes.trim() === ''}>
            Apply
          </button>
          <p id="label-editor-help" className="small muted">
            key=value sets a fleetplan label (it overrides the provider&apos;s), key- removes it, as kubectl label.
          </p>
          {save.isError && (
            <p className="small selector-invalid" role="alert">
              {error.byField.changes?.join('; ') ?? error.general}
            </p>
          )}
          {notice && (
            <p className="small" role="status">
              {notice}
            </p>
          )}
        </form>
      ) : (
        <p className="small muted" title={OPERATOR_ONLY}>
          Operators can set labels here.
        </p>
      )}
    </div>
  );
}
