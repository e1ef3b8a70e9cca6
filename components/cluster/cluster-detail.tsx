'use client';
// Cluster detail, "why not?": what the cluster is, its policy, its next runs (own zone and UTC),
// every candidate version against every rule with the engine's numbers, its history and events.
import Link from 'next/link';
import { useQuery } from '@tanstack/react-query';
import type { inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '@/server/api/root';
import { useTRPC } from '@/components/trpc/client';
import { BadgeList, DecisionBadge, HealthBadge, StateBadge } from '@/components/ui/badges';
import { EmptyState, LoadingRows } from '@/components/ui/states';
import { QueryState, type QueryLike } from '@/components/ui/query-state';
import { CandidateTable } from './candidate-table';
import { ClusterEvents } from './cluster-events';
import { LifecyclePanel } from './lifecycle-panel';
import { VersionGatesPanel } from './version-gates-panel';
import { InhibitorsPanel } from './inhibitors-panel';
import { ClusterLabels } from './cluster-labels';
import { GATE_LABEL, PassMark, RULE_LABEL } from './rule-check';
import { formatInZone, formatSpan, isoOf } from '@/components/ui/zoned-time';
import { ZonedTime } from '@/components/ui/zoned-time-view';
import { DataTable, type Column } from '@/components/ui/data-table';

type Outputs = inferRouterOutputs<AppRouter>;
type Detail = Outputs['clusters']['byName'];
type Explain = Outputs['clusters']['explain'];
type ExplainQuery = QueryLike<Explain>;

export function ClusterDetail({ name }: { name: string }) {
  const trpc = useTRPC();
  const detail = useQuery(trpc.clusters.byName.queryOptions({ name }));
  const explain = useQuery(trpc.clusters.explain.queryOptions({ name }));
  return (
    <QueryState
      query={detail}
      loadingRows={8}
      frame={(state) => (
        <>
          <ClusterHead name={name} />
          <div className="panel">{state}</div>
        </>
      )}
      notFound={
        <EmptyState title={`No cluster named ${name}`}>
          <Link href="/fleet">Back to the fleet</Link>
        </EmptyState>
      }
    >
      {(c) => <ClusterView name={name} cluster={c} explain={explain} />}
    </QueryState>
  );
}

function ClusterView({ name, cluster: c, explain }: { name: string; cluster: Detail; explain: ExplainQuery }) {
  const zone = explain.data?.policy?.schedule.location ?? 'UTC';
  return (
    <>
      <ClusterHead name={name} cluster={c} />
      {explain.data?.frozen.frozen && (
        <div className="banner bad" role="status">
          The fleet is frozen: no new upgrades start{explain.data.frozen.reason ? ` (${explain.data.frozen.reason})` : ''}.
        </div>
      )}
      <QueryState query={explain} loadingRows={2} frame={(state) => <div className="panel">{state}</div>}>
        {(data) => <DecisionPanel explain={data} zone={zone} />}
      </QueryState>
      <VersionGatesPanel cluster={name} provider={c.provider} gates={c.pendingVersionGates} />
      <div className="grid-3">
        <ClusterFacts cluster={c} zone={zone} />
        <PolicyPanel cluster={c} explain={explain.data} />
        <NextRunsPanel explain={explain} />
      </div>
      <section className="panel" aria-labelledby="rules-h">
        <h2 id="rules-h">Cluster rules</h2>
        <QueryState
          query={explain}
          loadingRows={4}
          isEmpty={(data) => !data.explanation}
          empty={(data) =>
            data.gone
              ? 'The provider no longer reports this cluster, so the engine leaves it out'
              : 'The stored fleet does not validate, so the engine cannot explain this cluster'
          }
        >
          {(data) => data.explanation && <RulesTable explanation={data.explanation} zone={zone} />}
        </QueryState>
      </section>
      <section className="panel flush" aria-labelledby="cand-h">
        <div className="toolbar">
          <h2 id="cand-h" style={{ margin: 0 }}>
            Candidate versions
          </h2>
          <span className="small muted">every available upgrade, highest first, against every rule</span>
        </div>
        <QueryState
          query={explain}
          loadingRows={4}
          isEmpty={(data) => !data.explanation || data.explanation.candidates.length === 0}
          empty={{ title: 'No available upgrades', hint: `The cluster's channel offers nothing newer than ${c.version}.` }}
        >
          {(data) =>
            data.explanation && <CandidateTable candidates={data.explanation.candidates} ignored={data.explanation.ignoredVersions} />
          }
        </QueryState>
      </section>
      <InhibitorsPanel facts={c.inhibitors} />
      <LifecyclePanel cluster={c.name} />
      <HistoryPanel history={c.history} />
      <ClusterEvents explain={explain} />
    </>
  );
}

type Explanation = NonNullable<Explain['explanation']>;

/** One row of the rules table: an engine check or a scheduler gate, in the order they are applied. */
interface RuleRow {
  id: string;
  label: string;
  pass: boolean;
  message: string;
  nextRun: string | null;
  hoursAway: number | null;
}

function ruleRows(e: Explanation): RuleRow[] {
  return [
    ...e.checks.map<RuleRow>((check) => ({
      id: `rule-${check.rule}`,
      label: RULE_LABEL[check.rule] ?? check.rule,
      pass: check.pass,
      message: check.message,
      nextRun: check.rule === 'schedule' && typeof check.details?.nextRun === 'string' ? check.details.nextRun : null,
      hoursAway: check.rule === 'schedule' && typeof check.details?.hoursAway === 'number' ? check.details.hoursAway : null,
    })),
    ...e.gates.map<RuleRow>((gate) => ({
      id: `gate-${gate.gate}`,
      label: GATE_LABEL[gate.gate] ?? gate.gate,
      pass: gate.pass,
      message: gate.message,
      nextRun: null,
      hoursAway: null,
    })),
  ];
}

function RulesTable({ explanation, zone }: { explanation: Explanation; zone: string }) {
  // the rules read in the engine's order (first failing rule decides), so the table does not sort
  const columns: Column<RuleRow>[] = [
    { id: 'rule', header: 'Rule', className: 'nowrap', csv: (r) => r.label, cell: (r) => r.label },
    { id: 'result', header: 'Result', csv: (r) => (r.pass ? 'pass' : 'fail'), cell: (r) => <PassMark pass={r.pass} /> },
    {
      id: 'details',
      header: 'Details',
      csv: (r) => r.message,
      cell: (r) => (
        <>
          {r.message}
          {r.nextRun && (
            <div className="small muted">
              next run {formatInZone(r.nextRun, zone)}
              {zone !== 'UTC' && <> · {formatInZone(r.nextRun, 'UTC')}</>}
              {r.hoursAway !== null && <> · in {formatSpan(r.hoursAway * 3_600_000)}</>}
            </div>
          )}
        </>
      ),
    },
  ];
  return <DataTable id="cluster-rules" label="Cluster rules" bare rows={ruleRows(explanation)} columns={columns} rowKey={(r) => r.id} />;
}

function ClusterHead({ name, cluster }: { name: string; cluster?: Detail }) {
  return (
    <div className="page-head">
      <div>
        <div className="small">
          <Link href="/fleet">Fleet</Link> / cluster
        </div>
        <h1>{name}</h1>
        {cluster && (
          <p>
            <span className="mono">{cluster.version}</span> on {cluster.channel} ·{' '}
            {cluster.sector ? `sector ${cluster.sector}` : 'no sector'} · {cluster.provider}
            {cluster.cloud ? ` · ${cluster.cloud}` : ''}
            {cluster.region ? ` ${cluster.region}` : ''}
          </p>
        )}
      </div>
      {cluster && (
        <div className="actions">
          <HealthBadge healthy={cluster.healthy} issues={cluster.healthIssues} />
          <StateBadge state={cluster.upgradeState} progress={cluster.currentUpgrade?.progress} />
          <Link className="btn" href={`/policies/clusters/${encodeURIComponent(name)}`}>
            Edit policy
          </Link>
        </div>
      )}
    </div>
  );
}

function DecisionPanel({ explain: data, zone }: { explain: Explain; zone: string }) {
  if (data.gone) {
    return (
      <section className="panel" aria-label="Engine decision">
        <h2>Engine decision</h2>
        <span className="badge warn">gone</span>{' '}
        <span data-testid="cluster-gone">
          The provider no longer reports this cluster: it is kept with its history and left out of planning until it is reported again.
        </span>
      </section>
    );
  }
  if (!data.explanation) {
    return (
      <div className="banner bad" role="alert">
        <strong>The stored fleet does not validate.</strong>
        <ul className="small" style={{ margin: '6px 0 0' }}>
          {data.problems.map((p) => (
            <li key={p.path + p.message}>
              <code>{p.path}</code>: {p.message}
            </li>
          ))}
        </ul>
      </div>
    );
  }
  const e = data.explanation;
  if (!e.managed || !e.decision) {
    return (
      <section className="panel" aria-label="Engine decision">
        <h2>Engine decision</h2>
        <span className="badge">not managed</span>{' '}
        <span className="muted">This cluster has no upgrade policy, so the engine never upgrades it.</span>
      </section>
    );
  }
  const d = e.decision;
  return (
    <section className="panel" aria-label="Engine decision">
      <h2>
        Engine decision now{' '}
        <span className="small muted">
          (as of <ZonedTime iso={data.now} />, evaluated #{(e.order ?? 0) + 1} in order)
        </span>
      </h2>
      <div style={{ display: 'flex', gap: 10, alignItems: 'baseline', flexWrap: 'wrap' }}>
        <DecisionBadge action={d.action} reason={d.reason ?? null} />
        {d.version && <span className="mono">→ {d.version}</span>}
        {d.nextRun && (
          <span className="small">
            at {formatInZone(d.nextRun, zone)}
            {zone !== 'UTC' && <> ({formatInZone(d.nextRun, 'UTC')})</>}
          </span>
        )}
        <span data-testid="decision-message">{d.message}</span>
      </div>
      {data.neverUpgrades && (
        <div className="banner bad" role="alert" style={{ marginTop: 10 }} data-testid="never-upgrades">
          <strong>Will never upgrade as configured</strong> with the releases available now:
          <ul className="small" style={{ margin: '6px 0 0' }}>
            {data.neverUpgrades.map((reason) => (
              <li key={reason}>{reason}</li>
            ))}
          </ul>
        </div>
      )}
      {data.blockers && data.blockers.all.length > 0 && <BlockerList blockers={data.blockers} />}
    </section>
  );
}

type Blockers = NonNullable<Explain['blockers']>;

/** Everything that stands in the way, in the order the scheduler meets it; the first that still holds is marked. */
function BlockerList({ blockers }: { blockers: Blockers }) {
  return (
    <div style={{ marginTop: 12 }}>
      <h3 className="small" style={{ margin: '0 0 6px' }}>
        What stands in the way, in the order the scheduler meets it
      </h3>
      <ol className="blockers small" aria-label="What stands in the way">
        {blockers.all.map((b, i) => (
          <li key={`${b.rule}-${b.version ?? ''}-${i}`} data-holding={i === blockers.holding || undefined}>
            <span className="blocker-rule">
              {GATE_LABEL[b.rule] ?? RULE_LABEL[b.rule] ?? b.rule}
              {b.version && <span className="mono"> {b.version}</span>}
            </span>{' '}
            <span>{b.message}</span>{' '}
            {b.clearsByNextRun ? (
              <span className="badge">clears by the next run</span>
            ) : (
              i === blockers.holding && <span className="badge warn">still holds at the next run</span>
            )}
          </li>
        ))}
      </ol>
    </div>
  );
}

function ClusterFacts({ cluster: c, zone }: { cluster: Detail; zone: string }) {
  return (
    <section className="panel" aria-labelledby="facts-h">
      <h2 id="facts-h">Cluster</h2>
      <dl className="props">
        <dt>Version</dt>
        <dd className="mono">{c.version}</dd>
        <dt>Channel</dt>
        <dd>{c.channel}</dd>
        <dt>Sector</dt>
        <dd>{c.sector ?? <span className="muted">none</span>}</dd>
        <dt>Workloads</dt>
        <dd>
          <BadgeList items={c.workloads} empty={<span className="muted">none</span>} />
        </dd>
        <dt>Health</dt>
        <dd>
          <HealthBadge healthy={c.healthy} issues={c.healthIssues} />
          {c.healthIssues.length > 0 && (
            <ul className="small" style={{ margin: '4px 0 0', paddingLeft: 18 }}>
              {c.healthIssues.map((i) => (
                <li key={i}>{i}</li>
              ))}
            </ul>
          )}
        </dd>
        <dt>State</dt>
        <dd>
          <StateBadge state={c.upgradeState} progress={c.currentUpgrade?.progress} />
          {c.currentUpgrade?.progress !== undefined && (
            <>
              {' '}
              <span className="progress" aria-label={`progress ${Math.round(c.currentUpgrade.progress * 100)}%`}>
                <span style={{ width: `${Math.round(c.currentUpgrade.progress * 100)}%` }} />
              </span>
            </>
          )}
        </dd>
        <dt>Current upgrade</dt>
        <dd>
          {c.currentUpgrade ? (
            <>
              <span className="mono">→ {c.currentUpgrade.version}</span> ({c.currentUpgrade.state})
              <div className="small muted">
                {formatInZone(c.currentUpgrade.nextRun, zone)}
                {zone !== 'UTC' && <> · {formatInZone(c.currentUpgrade.nextRun, 'UTC')}</>}
              </div>
            </>
          ) : (
            <span className="muted">none</span>
          )}
        </dd>
        <dt>Where</dt>
        <dd>{c.cloud || c.region ? [c.cloud, c.region].filter(Boolean).join(' · ') : <span className="muted">not reported</span>}</dd>
        <dt>Nodes</dt>
        <dd>{c.nodeCount}</dd>
        <dt>Labels</dt>
        <dd>
          <ClusterLabels cluster={c.name} providerLabels={c.providerLabels} fleetplanLabels={c.fleetplanLabels} />
        </dd>
        <dt>Provider id</dt>
        <dd className="mono small" style={{ overflowWrap: 'anywhere' }}>
          {c.externalId}
        </dd>
        <dt>Observed</dt>
        <dd className="small">
          <ZonedTime iso={c.observedAt} />
        </dd>
      </dl>
    </section>
  );
}

function PolicyPanel({ cluster: c, explain }: { cluster: Detail; explain?: Explain }) {
  const p = explain?.policy;
  return (
    <section className="panel" aria-labelledby="policy-h">
      <h2 id="policy-h">
        Policy <span className="small muted">revision {c.policyRevision}</span>
      </h2>
      {!c.managed ? (
        <EmptyState title="No upgrade policy">
          <Link href={`/policies/clusters/${encodeURIComponent(c.name)}`}>Add one</Link>
        </EmptyState>
      ) : !p ? (
        explain ? (
          <span className="muted">The policy could not be normalized (see the problems above).</span>
        ) : (
          <LoadingRows rows={4} />
        )
      ) : (
        <dl className="props">
          <dt>Workloads</dt>
          <dd>
            <BadgeList items={p.workloads} />
          </dd>
          <dt>Schedule</dt>
          <dd>
            <code>{p.schedule.cron}</code>
            <div className="small muted">
              in {p.schedule.location}
              {p.schedule.isoWeek && <> · ISO weeks {p.schedule.isoWeek}</>}
              {p.schedule.suspend && (
                <>
                  {' '}
                  · <span className="badge bad">suspended</span>
                </>
              )}
            </div>
          </dd>
          <dt>Soak days</dt>
          <dd>{p.conditions.soakDays ?? <span className="muted">no soak check</span>}</dd>
          <dt>Mutexes</dt>
          <dd>
            <BadgeList items={p.conditions.mutexes} tone="info" empty={<span className="muted">none</span>} />
          </dd>
          <dt>Sector</dt>
          <dd>
            {p.conditions.sector ?? <span className="muted">none</span>}
            {explain?.sector && (
              <div className="small muted">
                {explain.sector.dependencies.length ? `after ${explain.sector.dependencies.join(', ')}` : 'first sector'}
                {explain.sector.maxParallelUpgrades && <> · max parallel {explain.sector.maxParallelUpgrades}</>}
              </div>
            )}
          </dd>
          <dt>Blocked here</dt>
          <dd>
            {p.conditions.blockedVersions.length ? (
              p.conditions.blockedVersions.map((b) => (
                <code key={b} style={{ display: 'block' }}>
                  {b}
                </code>
              ))
            ) : (
              <span className="muted">none (organization list applies)</span>
            )}
          </dd>
        </dl>
      )}
    </section>
  );
}

function NextRunsPanel({ explain }: { explain: ExplainQuery }) {
  const zone = explain.data?.policy?.schedule.location ?? 'UTC';
  return (
    <section className="panel" aria-labelledby="runs-h">
      <h2 id="runs-h">
        Next schedule runs <span className="small muted">{zone === 'UTC' ? 'UTC' : `${zone} · UTC`}</span>
      </h2>
      <QueryState
        query={explain}
        loadingRows={5}
        isEmpty={(data) => data.nextRuns.length === 0}
        empty={(data) => (data.policy ? 'The schedule never fires' : 'No schedule')}
      >
        {(data) => (
          <ol
            aria-label={`Next runs in ${zone} and UTC`}
            style={{ margin: 0, paddingLeft: 20, display: 'flex', flexDirection: 'column', gap: 6 }}
          >
            {data.nextRuns.map((run) => (
              <li key={run}>
                <div className="nowrap">{formatInZone(run, zone)}</div>
                {zone !== 'UTC' && <div className="small muted nowrap">{formatInZone(run, 'UTC')}</div>}
              </li>
            ))}
          </ol>
        )}
      </QueryState>
      {explain.data?.policy?.schedule.suspend && <p className="small muted">The schedule is suspended: these runs are a calendar only.</p>}
    </section>
  );
}

function HistoryPanel({ history }: { history: Detail['history'] }) {
  return (
    <section className="panel flush" aria-labelledby="hist-h">
      <div className="toolbar">
        <h2 id="hist-h" style={{ margin: 0 }}>
          Upgrade history
        </h2>
      </div>
      <DataTable
        id="cluster-history"
        label="Upgrade history"
        noun="upgrades"
        rows={history}
        rowKey={(h) => `${h.toVersion}-${h.startedAt ?? ''}-${h.completedAt ?? ''}`}
        pageSize={25}
        empty={<EmptyState title="No upgrades recorded yet" />}
        columns={[
          {
            id: 'versions',
            header: 'From → to',
            required: true,
            value: (h) => `${h.fromVersion} → ${h.toVersion}`,
            cell: (h) => (
              <>
                <span className="mono nowrap">
                  {h.fromVersion} → {h.toVersion}
                </span>
                {h.message && <div className="small muted">{h.message}</div>}
              </>
            ),
          },
          {
            id: 'state',
            header: 'State',
            value: (h) => h.state,
            cell: (h) => (
              <span
                className={`badge ${h.state === 'completed' ? 'ok' : h.state === 'failed' ? 'bad' : h.state === 'cancelled' ? 'warn' : 'info'}`}
              >
                {h.state}
              </span>
            ),
          },
          {
            id: 'started',
            header: 'Started',
            className: 'small nowrap',
            value: (h) => isoOf(h.startedAt),
            cell: (h) => <ZonedTime iso={h.startedAt} />,
          },
          {
            id: 'completed',
            header: 'Completed',
            className: 'small nowrap',
            value: (h) => isoOf(h.completedAt),
            cell: (h) => <ZonedTime iso={h.completedAt} />,
          },
        ]}
      />
    </section>
  );
}
