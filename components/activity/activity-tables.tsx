'use client';
// The three activity tables: engine decisions, actions (intents) on the fleet, and policy/admin changes.
import Link from 'next/link';
import type { inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '@/server/api/root';
import { DecisionBadge } from '@/components/ui/badges';
import { formatUtc } from '@/components/ui/format';
import { ChangeDiff } from './change-diff';

type Out = inferRouterOutputs<AppRouter>['activity'];
export type DecisionRow = Out['decisions']['rows'][number];
export type ActionRow = Out['actions']['rows'][number];
export type ChangeRow = Out['changes']['rows'][number];

const INTENT_TONE: Record<string, string> = { pending: 'info', done: 'ok', failed: 'bad' };
const KIND_LABEL: Record<string, string> = { 'schedule-upgrade': 'schedule upgrade', 'cancel-upgrade': 'cancel upgrade' };

export function ClusterLink({ name }: { name: string }) {
  return (
    <Link href={`/clusters/${encodeURIComponent(name)}`} className="nowrap">
      {name}
    </Link>
  );
}

function Time({ iso }: { iso: string | null }) {
  return <span className="nowrap small">{formatUtc(iso)}</span>;
}

export function DecisionsTable({ rows }: { rows: DecisionRow[] }) {
  return (
    <table className="data" aria-label="Decisions">
      <thead>
        <tr>
          <th scope="col">Time</th>
          <th scope="col">Cluster</th>
          <th scope="col">Decision</th>
          <th scope="col">Version</th>
          <th scope="col">Message</th>
          <th scope="col">Tick</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((d) => (
          <tr key={d.id} data-decision={d.id}>
            <td>
              <Time iso={d.at} />
            </td>
            <td>
              <ClusterLink name={d.clusterName} />
            </td>
            <td className="nowrap">
              <DecisionBadge action={d.action} reason={d.reason} />
              {d.action === 'skip' && !d.reason && <span className="muted small"> skip</span>}
            </td>
            <td className="mono nowrap">{d.version ?? <span className="muted">—</span>}</td>
            <td className="act-msg small">{d.message ?? <span className="muted">—</span>}</td>
            <td className="nowrap small">
              {d.tickId !== null ? <span className="mono">#{d.tickId}</span> : <span className="muted">—</span>}{' '}
              {d.dryRun && <span className="badge info">dry run</span>}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function ActionsTable({ rows }: { rows: ActionRow[] }) {
  return (
    <table className="data" aria-label="Actions">
      <thead>
        <tr>
          <th scope="col">Created</th>
          <th scope="col">Action</th>
          <th scope="col">Cluster</th>
          <th scope="col">Version</th>
          <th scope="col">Status</th>
          <th scope="col" className="sch-num">
            Attempts
          </th>
          <th scope="col">Error / note</th>
          <th scope="col">Done</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((a) => (
          <tr key={a.id} data-intent={a.id}>
            <td>
              <Time iso={a.createdAt} />
              {a.tickId !== null && <div className="muted small mono">tick #{a.tickId}</div>}
            </td>
            <td className="nowrap">
              <span className={`badge ${a.kind === 'cancel-upgrade' ? 'warn' : 'accent'}`}>{KIND_LABEL[a.kind] ?? a.kind}</span>
              {a.nextRun && <div className="muted small">for {formatUtc(a.nextRun)}</div>}
            </td>
            <td>
              <ClusterLink name={a.clusterName} />
            </td>
            <td className="mono nowrap">{a.version}</td>
            <td>
              <span className={`badge ${INTENT_TONE[a.status] ?? ''}`}>{a.status}</span>
            </td>
            <td className="sch-num">{a.attempts}</td>
            <td className="act-msg small" style={a.status === 'failed' ? { color: 'var(--bad)' } : undefined}>
              {a.note ?? <span className="muted">—</span>}
            </td>
            <td>{a.doneAt ? <Time iso={a.doneAt} /> : <span className="muted">—</span>}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** Targets are `scope:subject`; link the ones that have a page. */
function Target({ target }: { target: string }) {
  const i = target.indexOf(':');
  const scope = i > 0 ? target.slice(0, i) : '';
  const subject = i > 0 ? target.slice(i + 1) : target;
  if (scope === 'cluster')
    return (
      <>
        cluster <ClusterLink name={subject} />
      </>
    );
  const href =
    scope === 'organization'
      ? '/policies'
      : scope === 'exclusion' || scope === 'webhook' || target === 'scheduler'
        ? '/scheduler'
        : scope === 'user' || scope === 'token'
          ? '/admin'
          : null;
  const text = scope ? `${scope} ${subject}` : subject;
  return href ? <Link href={href}>{text}</Link> : <span>{text}</span>;
}

export function ChangesTable({ rows }: { rows: ChangeRow[] }) {
  return (
    <table className="data" aria-label="Policy and admin changes">
      <thead>
        <tr>
          <th scope="col">Time</th>
          <th scope="col">Who</th>
          <th scope="col">What</th>
          <th scope="col">Target</th>
          <th scope="col">Change</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((c) => (
          <tr key={c.id} data-change={c.id}>
            <td>
              <Time iso={c.at} />
            </td>
            <td className="nowrap">{c.actor}</td>
            <td style={{ maxWidth: 320 }}>
              <span className={`badge ${c.kind === 'policy' ? 'accent' : ''}`}>{c.kind === 'policy' ? 'policy revision' : 'audit'}</span>{' '}
              <code className="sch-wrap">{c.action}</code>
              {c.kind === 'policy' && c.summary && <div className="small muted sch-wrap">{c.summary}</div>}
            </td>
            <td className="small sch-wrap" style={{ maxWidth: 220 }}>
              <Target target={c.target} />
            </td>
            <td>
              <ChangeDiff before={c.before} after={c.after} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
