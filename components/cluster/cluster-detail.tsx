'use client';
// Cluster detail, "why not?": what the cluster is, its policy, its next runs (own zone and UTC),
// every candidate version against every rule with the engine's numbers, its history and events.
import Link from 'next/link';
import { useQuery } from '@tanstack/react-query';
import type { inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '@/server/api/root';
import { useTRPC } from '@/components/trpc/client';
import { BadgeList, DecisionBadge, HealthBadge, StateBadge } from '@/components/ui/badges';
import { EmptyState, ErrorState, LoadingRows } from '@/components/ui/states';
import { CandidateTable } from './candidate-table';
import { ClusterEvents } from './cluster-events';
import { GATE_LABEL, PassMark, RULE_LABEL } from './rule-check';
import { formatInZone, formatUtc, isoOf } from '@/components/ui/zoned-time';
import { DataTable } from '@/components/ui/data-table';

type Outputs = inferRouterOutputs<AppRouter>;
type Detail = Outputs['clusters']['byName'];
type Explain = Outputs['clusters']['explain'];

export function ClusterDetail({ name }: { name: string }) {
  const trpc = useTRPC();
  const detail = useQuery(trpc.clusters.byName.queryOptions({ name }));
  const explain = useQuery(trpc.clusters.explain.queryOptions({ name }));

  if (detail.isPending) {
    return (
      <>
        <ClusterHead name={name} />
        <div className="panel">
          <LoadingRows rows={8} />
        </div>
      </>
    );
  }
  if (detail.isError) {
    const notFound = detail.error.data?.code === 'NOT_FOUND';
    return (
      <>
        <ClusterHead name={name} />
        <div className="panel">
          {notFound ? (
            <EmptyState title={`No cluster named ${name}`}>
              <Link href="/fleet">Back to the fleet</Link>
            </EmptyState>
          ) : (
            <ErrorState error={detail.error} onRetry={() => detail.refetch()} />
          )}
        </div>
      </>
    );
  }
  const c = detail.data;
  const zone = explain.data?.policy?.schedule.location ?? 'UTC';
  return (
    <>
      <ClusterHead name={name} cluster={c} />
      {explain.data?.frozen.frozen && (
        <div className="banner bad" role="status">
          The fleet is frozen: no new upgrades start{explain.data.frozen.reason ? ` (${explain.data.frozen.reason})` : ''}.
        </div>
      )}
      <DecisionPanel explain={explain} zone={zone} />
      <div className="grid-3">
        <ClusterFacts cluster={c} zone={zone} />
        <PolicyPanel cluster={c} explain={explain.data} />
        <NextRunsPanel explain={explain} />
      </div>
      <section className="panel" aria-labelledby="rules-h">
        <h2 id="rules-h">Cluster rules</h2>
        {explain.isPending ? (
          <LoadingRows rows={4} />
        ) : explain.isError ? (
          <ErrorState error={explain.error} onRetry={() => explain.refetch()} />
        ) : !explain.data.explanation ? (
          <EmptyState title="The stored fleet does not validate, so the engine cannot explain this cluster" />
        ) : (
          <table className="data">
            <thead>
              <tr>
                <th scope="col">Rule</th>
                <th scope="col">Result</th>
                <th scope="col">Details</th>
              </tr>
            </thead>
            <tbody>
              {explain.data.explanation.checks.map((check) => (
                <tr key={check.rule}>
                  <td className="nowrap">{RULE_LABEL[check.rule] ?? check.rule}</td>
                  <td>
                    <PassMark pass={check.pass} />
                  </td>
                  <td>
                    {check.message}
                    {check.rule === 'schedule' && typeof check.details?.nextRun === 'string' && (
                      <div className="small muted">
                        next run {formatInZone(check.details.nextRun, zone)}
                        {zone !== 'UTC' && <> · {formatInZone(check.details.nextRun, 'UTC')}</>}
                        {typeof check.details.hoursAway === 'number' && <> · in {check.details.hoursAway} h</>}
                      </div>
                    )}
                  </td>
                </tr>
              ))}
              {explain.data.explanation.gates.map((gate) => (
                <tr key={gate.gate}>
                  <td className="nowrap">{GATE_LABEL[gate.gate] ?? gate.gate}</td>
                  <td>
                    <PassMark pass={gate.pass} />
                  </td>
                  <td>{gate.message}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      <section className="panel flush" aria-labelledby="cand-h">
        <div className="toolbar">
          <h2 id="cand-h" style={{ margin: 0 }}>
            Candidate versions
          </h2>
          <span className="small muted">every available upgrade, highest first, against every rule</span>
        </div>
        {explain.isPending ? (
          <LoadingRows rows={4} />
        ) : explain.isError ? (
          <ErrorState error={explain.error} onRetry={() => explain.refetch()} />
        ) : !explain.data.explanation || explain.data.explanation.candidates.length === 0 ? (
          <EmptyState title="No available upgrades">The cluster's channel offers nothing newer than {c.version}.</EmptyState>
        ) : (
          <CandidateTable candidates={explain.data.explanation.candidates} ignored={explain.data.explanation.ignoredVersions} />
        )}
      </section>
      <HistoryPanel history={c.history} />
      <ClusterEvents explain={explain} />
    </>
  );
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
            {cluster.sector ? `sector ${cluster.sector}` : 'no sector'} · {cluster.provider} {cluster.region}
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

function DecisionPanel({
  explain,
  zone,
}: {
  explain: { isPending: boolean; isError: boolean; data?: Explain; error: { message: string } | null; refetch: () => unknown };
  zone: string;
}) {
  if (explain.isPending)
    return (
      <div className="panel">
        <LoadingRows rows={2} />
      </div>
    );
  if (explain.isError || !explain.data)
    return (
      <div className="panel">
        <ErrorState error={explain.error} onRetry={() => explain.refetch()} />
      </div>
    );
  const data = explain.data;
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
          (as of {formatUtc(data.now)}, evaluated #{(e.order ?? 0) + 1} in order)
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
    </section>
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
        <dt>Nodes</dt>
        <dd>{c.nodeCount}</dd>
        <dt>Provider id</dt>
        <dd className="mono small" style={{ overflowWrap: 'anywhere' }}>
          {c.externalId}
        </dd>
        <dt>Observed</dt>
        <dd className="small">{formatUtc(c.observedAt)}</dd>
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

function NextRunsPanel({
  explain,
}: {
  explain: { isPending: boolean; isError: boolean; data?: Explain; error: { message: string } | null };
}) {
  const zone = explain.data?.policy?.schedule.location ?? 'UTC';
  return (
    <section className="panel" aria-labelledby="runs-h">
      <h2 id="runs-h">
        Next schedule runs <span className="small muted">{zone === 'UTC' ? 'UTC' : `${zone} · UTC`}</span>
      </h2>
      {explain.isPending ? (
        <LoadingRows rows={5} />
      ) : explain.isError || !explain.data ? (
        <ErrorState error={explain.error} />
      ) : explain.data.nextRuns.length === 0 ? (
        <EmptyState title={explain.data.policy ? 'The schedule never fires' : 'No schedule'} />
      ) : (
        <ol
          aria-label={`Next runs in ${zone} and UTC`}
          style={{ margin: 0, paddingLeft: 20, display: 'flex', flexDirection: 'column', gap: 6 }}
        >
          {explain.data.nextRuns.map((run) => (
            <li key={run}>
              <div className="nowrap">{formatInZone(run, zone)}</div>
              {zone !== 'UTC' && <div className="small muted nowrap">{formatInZone(run, 'UTC')}</div>}
            </li>
          ))}
        </ol>
      )}
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
            cell: (h) => formatUtc(h.startedAt),
          },
          {
            id: 'completed',
            header: 'Completed',
            className: 'small nowrap',
            value: (h) => isoOf(h.completedAt),
            cell: (h) => formatUtc(h.completedAt),
          },
        ]}
      />
    </section>
  );
}
