'use client';
// The provider's version gates this cluster has not agreed to (OCM): each holds upgrades to its
// minor (VERSION_GATE) until an operator acknowledges it here. Acknowledging writes an agreement
// at the provider, so it is confirmed in a dialog that repeats what is agreed to.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useRef, useState } from 'react';
import { useTRPC } from '@/components/trpc/client';
import { OPERATOR_ONLY, useRole } from '@/components/scheduler/use-role';

interface PendingGate {
  id: string;
  minor: string;
  description: string;
  documentationUrl: string | null;
}

export function VersionGatesPanel({ cluster, provider, gates }: { cluster: string; provider: string; gates: PendingGate[] }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const { canOperate } = useRole();
  const dialog = useRef<HTMLDialogElement>(null);
  const [chosen, setChosen] = useState<PendingGate | null>(null);
  const ack = useMutation(
    trpc.clusters.acknowledgeVersionGate.mutationOptions({
      onSuccess: () => dialog.current?.close(),
      onSettled: () => {
        void qc.invalidateQueries({ queryKey: trpc.clusters.pathKey() });
        void qc.invalidateQueries({ queryKey: trpc.activity.pathKey() });
      },
    }),
  );
  if (gates.length === 0) return null;
  const open = (g: PendingGate) => {
    ack.reset();
    setChosen(g);
    dialog.current?.showModal();
  };
  return (
    <section className="panel" aria-labelledby="version-gates-h">
      <h2 id="version-gates-h">Version gates</h2>
      <p className="small muted">
        {provider} holds upgrades to these minors until the cluster agrees to their gate; fleetplan holds them too (VERSION_GATE).
      </p>
      <ul className="gate-list">
        {gates.map((g) => (
          <li key={g.id}>
            <strong className="mono">{g.minor}</strong> {g.description}{' '}
            {g.documentationUrl && (
              <a href={g.documentationUrl} target="_blank" rel="noreferrer noopener">
                documentation
              </a>
            )}{' '}
            <button
              type="button"
              className="btn"
              onClick={() => open(g)}
              disabled={!canOperate}
              title={canOperate ? undefined : OPERATOR_ONLY}
            >
              Acknowledge {g.minor} gate…
            </button>
          </li>
        ))}
      </ul>
      <dialog ref={dialog} aria-labelledby="version-gate-confirm-h" onClose={() => setChosen(null)}>
        {chosen && (
          <form
            method="dialog"
            onSubmit={(e) => {
              e.preventDefault();
              ack.mutate({ cluster, gateId: chosen.id });
            }}
          >
            <h3 id="version-gate-confirm-h">
              Acknowledge the {chosen.minor} version gate for {cluster}?
            </h3>
            <p>{chosen.description}</p>
            <p className="small muted">
              This records an agreement at {provider} for this cluster (it cannot be withdrawn from fleetplan) and lets upgrades to{' '}
              {chosen.minor} be planned. It is written to the activity log under your name.
            </p>
            {ack.error ? <p role="alert">{ack.error.message}</p> : null}
            <div className="dialog-actions">
              <button type="submit" className="btn primary" disabled={ack.isPending}>
                {ack.isPending ? 'Acknowledging…' : 'Acknowledge'}
              </button>
              <button type="button" className="btn" onClick={() => dialog.current?.close()}>
                Cancel
              </button>
            </div>
          </form>
        )}
      </dialog>
    </section>
  );
}
