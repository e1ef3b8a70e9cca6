'use client';
// The activity tables: engine decisions, actions (intents) on the fleet, upgrade lifecycle
// transitions, and policy/admin changes.
import { OrgLink } from '@/components/shell/org-link';
import type { inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '@/server/api/root';
import { DecisionBadge } from '@/components/ui/badges';
import { ClusterLink } from '@/components/ui/cluster-link';
import { DataTable, type Column, type ServerPaging } from '@/components/ui/data-table';
import { ZonedTime } from '@/components/ui/zoned-time-view';

import { ChangeDiff } from './change-diff';

type Out = inferRouterOutputs<AppRouter>['activity'];
export type DecisionRow = Out['decisions']['rows'][number];
export type ActionRow = Out['actions']['rows'][number];
export type ChangeRow = Out['changes']['rows'][number];
export type UpgradeRow = Out['upgrades']['rows'][number];

const INTENT_TONE: Record<string, string> = { pending: 'info', done: 'ok', failed: 'bad' };
const KIND_LABEL: Record<string, string> = {
  'schedule-upgrade': 'schedule upgrade',
  'cancel-upgrade': 'cancel upgrade',
  'set-channel': 'switch channel',
  'pause-pool': 'pause worker pool',
  'unpause-pool': 'unpause worker pool',
  'admin-ack': 'acknowledge admin gate',
};

const dash = <span className="muted">—</span>;

/** The page's tables share the server paging of the Activity view. */
interface TableProps<Row> {
  rows: readonly Row[];
  paging: ServerPaging;
  /** Every row the filters keep, for the download. */
  exportRows?: () => Promise<readonly Row[]>;
  noun: string;
}

const DECISION_COLUMNS: Column<DecisionRow>[] = [
  { id: 'at', header: 'Time', className: 'small', csv: (d) => d.at, cell: (d) => <ZonedTime iso={d.at} /> },
  { id: 'cluster', header: 'Cluster', required: true, csv: (d) => d.clusterName, cell: (d) => <ClusterLink name={d.clusterName} /> },
  {
    id: 'decision',
    header: 'Decision',
    className: 'nowrap',
    csv: (d) => [d.action, d.reason].filter(Boolean).join(' '),
    cell: (d) => (
      <>
        <DecisionBadge action={d.action} reason={d.reason} />
        {d.action === 'skip' && !d.reason && <span className="muted small"> skip</span>}
      </>
    ),
  },
  { id: 'version', header: 'Version', className: 'mono nowrap', csv: (d) => d.version, cell: (d) => d.version ?? dash },
  { id: 'message', header: 'Message', className: 'act-msg small', csv: (d) => d.message, cell: (d) => d.message ?? dash },
  {
    id: 'tick',
    header: 'Tick',
    className: 'nowrap small',
    csv: (d) => d.tickId,
    cell: (d) => (
      <>
        {d.tickId !== null ? <span className="mono">#{d.tickId}</span> : dash} {d.dryRun && <span className="badge info">dry run</span>}
      </>
    ),
  },
];

export function DecisionsTable({ rows, paging, noun, exportRows }: TableProps<DecisionRow>) {
  return (
    <DataTable
      id="activity-decisions"
      label="Decisions"
      rows={rows}
      columns={DECISION_COLUMNS}
      rowKey={(d) => d.id}
      rowProps={(d) => ({ 'data-decision': d.id })}
      paging={paging}
      exportRows={exportRows}
      noun={noun}
    />
  );
}

/** how a lifecycle state reads at a glance: final outcomes by tone, the rest neutral */
const STATE_TONE: Record<string, string> = {
  completed: 'ok',
  failed: 'bad',
  'timed-out': 'bad',
  skipped: 'warn',
  cancelled: 'warn',
  started: 'info',
  upgrading: 'info',
};

const UPGRADE_COLUMNS: Column<UpgradeRow>[] = [
  { id: 'at', header: 'Time', className: 'small', csv: (u) => u.at, cell: (u) => <ZonedTime iso={u.at} /> },
  { id: 'cluster', header: 'Cluster', required: true, csv: (u) => u.clusterName, cell: (u) => <ClusterLink name={u.clusterName} /> },
  {
    id: 'upgrade',
    header: 'Upgrade',
    className: 'mono nowrap small',
    csv: (u) => `${u.fromVersion} → ${u.toVersion}`,
    cell: (u) => (
      <>
        {u.fromVersion} → {u.toVersion}
      </>
    ),
  },
  {
    id: 'transition',
    header: 'Transition',
    className: 'nowrap',
    csv: (u) => `${u.fromState ?? ''} → ${u.toState}`,
    cell: (u) => (
      <>
        {u.fromState ? <span className="muted small">{u.fromState} → </span> : null}
        <span className={`badge ${STATE_TONE[u.toState] ?? ''}`}>{u.toState}</span>
      </>
    ),
  },
  {
    id: 'reason',
    header: 'Reason',
    className: 'nowrap small',
    csv: (u) => u.reason,
    cell: (u) =>
      u.reason ? (
        <span className="mono" title={u.reasonText ?? undefined}>
          {u.reason}
        </span>
      ) : (
        dash
      ),
  },
  { id: 'message', header: 'Message', className: 'act-msg small', csv: (u) => u.message, cell: (u) => u.message ?? dash },
  { id: 'actor', header: 'By', className: 'small', csv: (u) => u.actor, cell: (u) => <span className="mono">{u.actor}</span> },
];

export function UpgradesTable({ rows, paging, noun, exportRows }: TableProps<UpgradeRow>) {
  return (
    <DataTable
      id="activity-upgrades"
      label="Upgrade lifecycle transitions"
      rows={rows}
      columns={UPGRADE_COLUMNS}
      rowKey={(u) => u.id}
      rowProps={(u) => ({ 'data-transition': u.id })}
      paging={paging}
      exportRows={exportRows}
      noun={noun}
    />
  );
}

const ACTION_COLUMNS: Column<ActionRow>[] = [
  {
    id: 'created',
    header: 'Created',
    csv: (a) => a.createdAt,
    cell: (a) => (
      <>
        <ZonedTime iso={a.createdAt} className="nowrap small" />
        {a.tickId !== null && <div className="muted small mono">tick #{a.tickId}</div>}
      </>
    ),
  },
  {
    id: 'action',
    header: 'Action',
    className: 'nowrap',
    csv: (a) => a.kind,
    cell: (a) => (
      <>
        <span className={`badge ${a.kind === 'cancel-upgrade' ? 'warn' : 'accent'}`}>{KIND_LABEL[a.kind] ?? a.kind}</span>
        {a.nextRun && (
          <div className="muted small">
            for <ZonedTime iso={a.nextRun} />
          </div>
        )}
      </>
    ),
  },
  { id: 'cluster', header: 'Cluster', required: true, csv: (a) => a.clusterName, cell: (a) => <ClusterLink name={a.clusterName} /> },
  { id: 'version', header: 'Version', className: 'mono nowrap', csv: (a) => a.version, cell: (a) => a.version },
  {
    id: 'status',
    header: 'Status',
    csv: (a) => a.status,
    cell: (a) => <span className={`badge ${INTENT_TONE[a.status] ?? ''}`}>{a.status}</span>,
  },
  { id: 'attempts', header: 'Attempts', className: 'sch-num', headerClassName: 'sch-num', csv: (a) => a.attempts, cell: (a) => a.attempts },
  {
    id: 'note',
    header: 'Error / note',
    className: 'act-msg small',
    csv: (a) => a.note,
    cell: (a) => (a.note ? <span style={a.status === 'failed' ? { color: 'var(--bad)' } : undefined}>{a.note}</span> : dash),
  },
  {
    id: 'done',
    header: 'Done',
    csv: (a) => a.doneAt,
    cell: (a) => (a.doneAt ? <ZonedTime iso={a.doneAt} className="nowrap small" /> : dash),
  },
  { id: 'key', header: 'Idempotency key', hidden: true, className: 'mono small', csv: (a) => a.key, cell: (a) => a.key },
];

export function ActionsTable({ rows, paging, noun, exportRows }: TableProps<ActionRow>) {
  return (
    <DataTable
      id="activity-actions"
      label="Actions"
      rows={rows}
      columns={ACTION_COLUMNS}
      rowKey={(a) => a.id}
      rowProps={(a) => ({ 'data-intent': a.id })}
      paging={paging}
      exportRows={exportRows}
      noun={noun}
    />
  );
}

/** Targets are `scope:subject`, maybe after `organization:NAME ` (whose it is); link the ones that have a page. */
function Target({ target }: { target: string }) {
  const owned = /^organization:(\S+) (.+)$/.exec(target);
  if (owned)
    return (
      <>
        <Target target={owned[2]!} /> <span className="muted small">({owned[1]})</span>
      </>
    );
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
  return href ? <OrgLink href={href}>{text}</OrgLink> : <span>{text}</span>;
}

const CHANGE_COLUMNS: Column<ChangeRow>[] = [
  { id: 'at', header: 'Time', className: 'small', csv: (c) => c.at, cell: (c) => <ZonedTime iso={c.at} /> },
  { id: 'actor', header: 'Who', className: 'nowrap', csv: (c) => c.actor, cell: (c) => c.actor },
  {
    id: 'what',
    header: 'What',
    required: true,
    csv: (c) => c.action,
    cell: (c) => (
      <div style={{ maxWidth: 320 }}>
        <span className={`badge ${c.kind === 'policy' ? 'accent' : ''}`}>{c.kind === 'policy' ? 'policy revision' : 'audit'}</span>{' '}
        <code className="sch-wrap">{c.action}</code>
        {c.kind === 'policy' && c.summary && <div className="small muted sch-wrap">{c.summary}</div>}
      </div>
    ),
  },
  {
    id: 'target',
    header: 'Target',
    className: 'small sch-wrap',
    csv: (c) => c.target,
    cell: (c) => (
      <div style={{ maxWidth: 220 }}>
        <Target target={c.target} />
      </div>
    ),
  },
  {
    id: 'change',
    header: 'Change',
    csv: (c) =>
      c.changes
        .map(
          (x) => `${x.path}: ${x.kind === 'added' ? '' : `${String(x.before)} → `}${x.kind === 'removed' ? '(removed)' : String(x.after)}`,
        )
        .join('; '),
    cell: (c) => <ChangeDiff changes={c.changes} omitted={c.omitted} />,
  },
];

/** whose change a row is: an organization, or the instance's own (users, tokens, graphs, …) */
const ORGANIZATION_COLUMN: Column<ChangeRow> = {
  id: 'organization',
  header: 'Organization',
  className: 'nowrap',
  csv: (c) => c.organization ?? '',
  cell: (c) => c.organization ?? <span className="muted">instance</span>,
};

/** `showOrganization`: every organization's rows are listed (a global admin's "all organizations") */
export function ChangesTable({ rows, paging, noun, exportRows, showOrganization }: TableProps<ChangeRow> & { showOrganization?: boolean }) {
  return (
    <DataTable
      id={showOrganization ? 'activity-changes-all' : 'activity-changes'}
      label="Policy and admin changes"
      rows={rows}
      columns={showOrganization ? [CHANGE_COLUMNS[0]!, ORGANIZATION_COLUMN, ...CHANGE_COLUMNS.slice(1)] : CHANGE_COLUMNS}
      rowKey={(c) => c.id}
      rowProps={(c) => ({ 'data-change': c.id })}
      paging={paging}
      exportRows={exportRows}
      noun={noun}
    />
  );
}
