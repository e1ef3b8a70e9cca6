'use client';
// The cluster's upgrade attempts as the lifecycle recorded them (state, reason, every
// transition, the InstallPlans approved or left after the platform upgrade), and for an
// unacknowledged failure the button that acknowledges it with a comment: until then its version
// is halted (HALTED_BY_FAILURE).
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '@/server/api/root';
import { useTRPC } from '@/components/trpc/client';
import { OPERATOR_ONLY, useRole } from '@/components/scheduler/use-role';
import { ZonedTime } from '@/components/ui/zoned-time-view';
import { DataTable, type Column } from '@/components/ui/data-table';

type Attempt = inferRouterOutputs<AppRouter>['lifecycle']['forCluster'][number];
type Approvals = NonNullable<Attempt['operatorApprovals']>;
type EusRun = NonNullable<Attempt['eusProcedure']>;
/** the lifecycle's final states (server/domain/lifecycle/machine.ts FINAL_STATES; components import no server code) */
const FINAL_STATES: ReadonlySet<string> = new Set(['completed', 'skipped', 'cancelled', 'failed', 'timed-out']);

/** One InstallPlan of the phase: approved by it (with its progress), or left pending by the policy. */
interface PlanRow {
  id: string;
  operators: string[];
  csvNames: string[];
  outcome: string;
  why: string | null;
  approvedAt: number | null;
  completedAt: number | null;
}

const at = (ms: number | null) => (ms === null ? <span className="muted">—</span> : <ZonedTime iso={new Date(ms)} />);

const planColumns: Column<PlanRow>[] = [
  { id: 'plan', header: 'InstallPlan', required: true, value: (p) => p.id, cell: (p) => <span className="mono">{p.id}</span> },
  { id: 'operator', header: 'Operator (Subscription)', value: (p) => p.operators.join(' '), cell: (p) => p.operators.join(', ') || '—' },
  {
    id: 'installs',
    header: 'Installs',
    value: (p) => p.csvNames.join(' '),
    cell: (p) => <span className="mono">{p.csvNames.join(', ')}</span>,
  },
  {
    id: 'outcome',
    header: 'Outcome',
    value: (p) => p.outcome,
    cell: (p) => (
      <>
        <span className="badge">{p.outcome}</span>
        {p.why ? <span className="small"> {p.why}</span> : null}
      </>
    ),
  },
  { id: 'approved', header: 'Approved', value: (p) => p.approvedAt ?? 0, cell: (p) => at(p.approvedAt) },
  { id: 'complete', header: 'Complete', value: (p) => p.completedAt ?? 0, cell: (p) => at(p.completedAt) },
];

/**
 * The operator-approvals phase of an attempt: since when it waits (or when it ended), which
 * InstallPlans it approved and how far each got, which it left pending and why.
 */
function OperatorApprovals({ approvals, toVersion }: { approvals: Approvals; toVersion: string }) {
  const rows: PlanRow[] = [
    ...approvals.approved.map((p) => ({
      id: `${p.namespace}/${p.name}`,
      operators: p.operators,
      csvNames: p.csvNames,
      outcome: p.completedAt !== null ? 'complete' : p.confirmedAt !== null ? 'approved, installing' : 'approval sent',
      why: null,
      approvedAt: p.confirmedAt ?? p.requestedAt,
      completedAt: p.completedAt,
    })),
    ...approvals.left.map((p) => ({
      id: `${p.namespace}/${p.name}`,
      operators: p.operators,
      csvNames: p.csvNames,
      outcome: 'left pending',
      why: p.why,
      approvedAt: null,
      completedAt: null,
    })),
  ];
  return (
    <div className="operator-approvals">
      <p>
        <strong>Operator approvals</strong> after the upgrade to {toVersion}:{' '}
        {approvals.doneAt === null ? (
          <>
            waiting since <ZonedTime iso={new Date(approvals.since)} />
          </>
        ) : (
          <>
            from <ZonedTime iso={new Date(approvals.since)} /> to <ZonedTime iso={new Date(approvals.doneAt)} />
          </>
        )}
      </p>
      {rows.length === 0 ? (
        <p className="small muted">No pending manual InstallPlan{approvals.doneAt === null ? ' read yet' : ''}.</p>
      ) : (
        <DataTable
          id="operator-approvals"
          label={`InstallPlans after the upgrade to ${toVersion}`}
          bare
          rows={rows}
          columns={planColumns}
          rowKey={(p) => p.id}
        />
      )}
    </div>
  );
}

/** One step of an EUS-to-EUS run: what it does, and how far it got. */
interface EusStep {
  id: string;
  step: string;
  status: 'done' | 'running' | 'waiting' | 'not yet' | 'stopped';
  at: number | null;
  note: string | null;
}

const eusColumns: Column<EusStep>[] = [
  { id: 'step', header: 'Step', required: true, value: (s) => s.step, cell: (s) => s.step },
  {
    id: 'status',
    header: 'Status',
    value: (s) => s.status,
    cell: (s) => (
      <>
        <span className="badge">{s.status}</span>
        {s.note ? <span className="small"> {s.note}</span> : null}
      </>
    ),
  },
  { id: 'at', header: 'At', value: (s) => s.at ?? 0, cell: (s) => at(s.at) },
];

/**
 * The EUS-to-EUS control-plane-only run of an attempt (lifecycle.eusControlPlaneOnly): the route,
 * and each step — pause the workers, each control-plane hop, the admin acknowledgements, unpause,
 * the worker rollout — with how far it got.
 */
function EusProcedure({ run, state }: { run: EusRun; state: string }) {
  const paused = run.pausedByUs ?? [];
  const left = run.pausedBefore.length ? `left paused as the admin paused them: ${run.pausedBefore.join(', ')}` : null;
  const steps: EusStep[] = [
    {
      id: 'pause',
      step: `Pause worker pools ${paused.join(', ') || '(none to pause)'}`,
      status: run.pausedAt !== null ? 'done' : run.pausedByUs !== null ? 'running' : 'not yet',
      at: run.pausedAt,
      note: left,
    },
  ];
  run.hops.forEach((hop, i) => {
    const from = i === 0 ? run.route[0] : run.hops[i - 1]!.version;
    if (i > 0)
      for (const ack of run.acks)
        steps.push({
          id: `ack-${ack.gate}`,
          step: `Acknowledge admin gate ${ack.gate}`,
          status: ack.confirmedAt !== null ? 'done' : 'running',
          at: ack.confirmedAt ?? ack.requestedAt,
          note: null,
        });
    const holding = i > 0 && hop.requestedAt === null && run.hops[i - 1]!.doneAt !== null ? run.holding : null;
    steps.push({
      id: `hop-${i}`,
      step: `Control plane ${from} → ${hop.version}${hop.channel ? ` (channel ${hop.channel})` : ''}`,
      status: hop.doneAt !== null ? 'done' : hop.requestedAt !== null ? 'running' : holding ? 'waiting' : 'not yet',
      at: hop.doneAt ?? hop.requestedAt,
      note: holding,
    });
  });
  steps.push(
    {
      id: 'unpause',
      step: `Unpause worker pools ${paused.join(', ') || '(none)'}`,
      status: run.unpausedAt !== null ? 'done' : run.unpauseRequestedAt !== null ? 'running' : 'not yet',
      at: run.unpausedAt ?? run.unpauseRequestedAt,
      note: null,
    },
    {
      id: 'rollout',
      step: `Workers roll out to ${run.route.at(-1)}`,
      status: run.rolledOutAt !== null ? 'done' : state === 'workers-rolling' ? 'running' : 'not yet',
      at: run.rolledOutAt,
      note: null,
    },
  );
  // a run that ended (failed, timed out) stopped what was under way: say so rather than "running"
  const ended = FINAL_STATES.has(state);
  const shown = ended
    ? steps.map((s) => (s.status === 'running' || s.status === 'waiting' ? { ...s, status: 'stopped' as const } : s))
    : steps;
  return (
    <div className="eus-procedure">
      <p>
        <strong>EUS-to-EUS control-plane-only run</strong> {run.route.join(' → ')}: the workers stay on {run.route[0]} until both
        control-plane hops are done, then roll once.
      </p>
      <DataTable
        id="eus-procedure"
        label={`EUS-to-EUS run ${run.route.join(' → ')}`}
        bare
        rows={shown}
        columns={eusColumns}
        rowKey={(s) => s.id}
      />
    </div>
  );
}

function AcknowledgeForm({ attempt }: { attempt: Attempt }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const { canOperate } = useRole();
  const [comment, setComment] = useState('');
  const ack = useMutation(
    trpc.lifecycle.acknowledge.mutationOptions({
      onSuccess: () => setComment(''),
      onSettled: () => {
        void qc.invalidateQueries({ queryKey: trpc.lifecycle.pathKey() });
        void qc.invalidateQueries({ queryKey: trpc.activity.pathKey() });
        void qc.invalidateQueries({ queryKey: trpc.clusters.pathKey() });
      },
    }),
  );
  return (
    <form
      className="row"
      onSubmit={(e) => {
        e.preventDefault();
        ack.mutate({ id: attempt.id, comment });
      }}
    >
      <label>
        Comment{' '}
        <input
          value={comment}
          maxLength={1000}
          required
          onChange={(e) => setComment(e.target.value)}
          disabled={!canOperate}
          aria-label={`Why the failure of the upgrade to ${attempt.toVersion} is acknowledged`}
        />
      </label>
      <button type="submit" disabled={!canOperate || ack.isPending || comment.trim() === ''} title={canOperate ? undefined : OPERATOR_ONLY}>
        Acknowledge failure
      </button>
      {ack.error ? <span role="alert">{ack.error.message}</span> : null}
    </form>
  );
}

export function LifecyclePanel({ cluster }: { cluster: string }) {
  const trpc = useTRPC();
  const attempts = useQuery(trpc.lifecycle.forCluster.queryOptions({ cluster }));
  if (!attempts.data || attempts.data.length === 0) return null;
  return (
    <section className="panel" aria-labelledby="lifecycle-h">
      <h2 id="lifecycle-h">Upgrade lifecycle</h2>
      {attempts.data.map((a) => (
        <div key={a.id}>
          <p>
            <strong>
              {a.fromVersion} → {a.toVersion}
            </strong>{' '}
            slot <ZonedTime iso={new Date(a.slot)} />: <span className="badge">{a.state}</span>{' '}
            {a.reason ? <abbr title={a.reasonText ?? undefined}>{a.reason}</abbr> : null} {a.message}
            {a.acknowledgedBy ? ` — acknowledged by ${a.acknowledgedBy}: ${a.acknowledgeComment ?? ''}` : null}
          </p>
          {a.needsAcknowledgement ? <AcknowledgeForm attempt={a} /> : null}
          {a.eusProcedure ? <EusProcedure run={a.eusProcedure} state={a.state} /> : null}
          {a.operatorApprovals ? <OperatorApprovals approvals={a.operatorApprovals} toVersion={a.toVersion} /> : null}
          <ol>
            {a.transitions.map((t, i) => (
              <li key={i}>
                <ZonedTime iso={new Date(t.at)} /> {t.from ?? '—'} → {t.to}
                {t.reason ? ` (${t.reason})` : ''}: {t.message} <small>by {t.actor}</small>
              </li>
            ))}
          </ol>
        </div>
      ))}
    </section>
  );
}
