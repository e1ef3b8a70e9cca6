'use client';
// What the solver found for one question: the path (or why there is none), the releases to mirror,
// safety checks, the duration estimate, and the exports (mirror list, ImageSetConfiguration, runbook).
import { useState } from 'react';
import type { inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '@/server/api/root';
import { DataTable, type Column } from '@/components/ui/data-table';
import { CopyButton, DownloadButton, safeHref } from './copy-download';

export type Solved = inferRouterOutputs<AppRouter>['graphs']['solve'];

const REASON_TEXT: Record<string, string> = {
  SOURCE_NOT_IN_CHANNEL: 'The source version is not in the channel',
  TARGET_NOT_IN_CHANNEL: 'The target version is not in the channel',
  ONLY_CONDITIONAL: 'Only conditional (not recommended) updates lead there',
  UNREACHABLE: 'No update path at all',
};

function formatMinutes(min: number): string {
  if (min < 60) return `${min} min`;
  const h = Math.floor(min / 60);
  const m = min % 60;
  return m ? `${h} h ${m} min` : `${h} h`;
}

function PathChips({ path, conditionalHops }: { path: readonly string[]; conditionalHops: Set<string> }) {
  return (
    <ol className="path-chips" aria-label="Path">
      {path.map((v, i) => (
        <li key={v}>
          {i > 0 && (
            <span className={`path-arrow${conditionalHops.has(`${path[i - 1]}>${v}`) ? ' conditional' : ''}`} aria-hidden="true">
              →
            </span>
          )}
          <span className="badge accent mono">{v}</span>
        </li>
      ))}
    </ol>
  );
}

function RiskList({ solved }: { solved: Solved }) {
  if (solved.risks.length === 0) return null;
  return (
    <div className="risk-list">
      {solved.risks.map((hop) => (
        <div key={`${hop.from}>${hop.to}`}>
          <strong className="mono">
            {hop.from} → {hop.to}
          </strong>
          <ul>
            {hop.risks.map((r) => {
              const href = safeHref(r.url);
              return (
                <li key={r.name}>
                  <strong>{r.name}</strong>: {r.message}{' '}
                  {href ? (
                    <a href={href} target="_blank" rel="noopener noreferrer">
                      details
                    </a>
                  ) : null}
                </li>
              );
            })}
          </ul>
        </div>
      ))}
    </div>
  );
}

/** What the stored graphs cannot vouch for (unknown releases, a channel of a minor they lack, old graphs). */
export function PathWarnings({ solved }: { solved: Solved }) {
  if (solved.warnings.length === 0) return null;
  return (
    <div className="banner warn" role="status" data-testid="path-warnings">
      <ul style={{ margin: 0, paddingLeft: 18 }}>
        {solved.warnings.map((w) => (
          <li key={w}>{w}</li>
        ))}
      </ul>
    </div>
  );
}

export function PathSummary({ solved }: { solved: Solved }) {
  const a = solved.answer;
  const conditionalHops = new Set(solved.risks.map((h) => `${h.from}>${h.to}`));
  if (a.path !== null) {
    return (
      <section className="panel" aria-label="Path" data-testid="path-summary">
        <div className="summary-head">
          <span className="badge ok">path found</span>
          <strong>
            {a.from} → {a.to}
          </strong>
          <span className="muted">
            {a.hops} hop{a.hops === 1 ? '' : 's'}
            {a.channel ? ` in ${a.channel}` : ''}
            {solved.risks.length ? ` · ${solved.risks.length} conditional` : ''}
          </span>
          {solved.cluster && (
            <span className="small muted">
              cluster <span className="mono">{solved.cluster.name}</span> ({solved.cluster.nodeCount} nodes, channel{' '}
              {solved.cluster.channel})
            </span>
          )}
        </div>
        <PathChips path={a.path} conditionalHops={conditionalHops} />
        {solved.risks.length > 0 && (
          <div className="banner warn" style={{ marginTop: 10 }}>
            This path takes conditional updates: each needs <span className="mono">--allow-not-recommended</span> and a check that none of
            its risks applies.
            <RiskList solved={solved} />
          </div>
        )}
      </section>
    );
  }
  return (
    <section className="panel" aria-label="No path" data-testid="path-summary">
      <div className="summary-head">
        <span className={`badge ${a.reason === 'ONLY_CONDITIONAL' ? 'warn' : 'bad'}`}>{a.reason}</span>
        <strong>{REASON_TEXT[a.reason] ?? 'No path'}</strong>
      </div>
      <p className="no-path-message">{a.message}</p>
      <dl className="props">
        <dt>Channels containing {a.from}</dt>
        <dd>{solved.sourceChannels.length ? solved.sourceChannels.join(', ') : 'none of the stored graphs'}</dd>
        {a.to && solved.targetChannels.length > 0 && (
          <>
            <dt>Channels containing {a.to}</dt>
            <dd>{solved.targetChannels.join(', ')}</dd>
          </>
        )}
      </dl>
      {solved.eusHint && (
        <div className="banner info" style={{ marginTop: 10 }} data-testid="eus-hint">
          {solved.eusHint}
        </div>
      )}
      {a.reason === 'ONLY_CONDITIONAL' && a.conditionalPath && (
        <div style={{ marginTop: 10 }}>
          <div className="small muted">Through conditional updates (turn on “Allow conditional updates” to take it):</div>
          <PathChips path={a.conditionalPath} conditionalHops={conditionalHops} />
          <RiskList solved={solved} />
        </div>
      )}
    </section>
  );
}

type Release = Solved['releases'][number];
type SkewPoint = NonNullable<Solved['skew']>['points'][number];

// Both tables read in path order (source first), so neither sorts; the mirror list exports the releases.
const RELEASE_COLUMNS: Column<Release>[] = [
  { id: 'version', header: 'Version', className: 'mono nowrap', cell: (r) => r.version },
  {
    id: 'payload',
    header: 'Payload',
    className: 'mono payload',
    cell: (r) => <span title={r.payload}>{r.payload || <span className="muted">no payload in the graph</span>}</span>,
  },
  {
    id: 'copy',
    header: 'Copy',
    headerHidden: true,
    cell: (r) => r.payload && <CopyButton text={r.payload} title={`Copy the payload of ${r.version}`} />,
  },
];

const SKEW_COLUMNS: Column<SkewPoint>[] = [
  { id: 'control-plane', header: 'Control plane', className: 'mono', cell: (p) => p.controlPlane },
  { id: 'skew', header: 'Ahead of workers', cell: (p) => p.skew ?? '–' },
  { id: 'allowed', header: 'Allowed', cell: (p) => p.allowed ?? '–' },
  {
    id: 'result',
    header: 'Result',
    headerHidden: true,
    cell: (p) => (p.ok ? <span className="badge ok">ok</span> : <span className="badge bad">too far</span>),
  },
];

export function ReleasesPanel({ solved }: { solved: Solved }) {
  if (solved.releases.length === 0) return null;
  const isPath = solved.answer.path !== null;
  return (
    <section className="panel flush" aria-label="Releases to mirror">
      <div className="toolbar">
        <h2 style={{ margin: 0 }}>{isPath ? 'Releases to mirror' : 'Releases of the conditional path'}</h2>
        <span className="small muted">source included, in path order</span>
      </div>
      <DataTable
        id="path-releases"
        label={isPath ? 'Releases to mirror' : 'Releases of the conditional path'}
        bare
        className="releases-table"
        rows={solved.releases}
        columns={RELEASE_COLUMNS}
        rowKey={(r) => r.version}
      />
    </section>
  );
}

type HopRow = NonNullable<Solved['hopInhibitors']>['hops'][number];

const HOP_COLUMNS: Column<HopRow>[] = [
  {
    id: 'hop',
    header: 'Hop',
    value: (h) => `${h.from} → ${h.to}`,
    cell: (h) => (
      <span className="mono">
        {h.from} → {h.to}
      </span>
    ),
  },
  {
    id: 'held',
    header: 'On this cluster',
    value: (h) => h.inhibitors.map((i) => `${i.reason}: ${i.message}`).join('; '),
    cell: (h) =>
      h.inhibitors.length === 0 ? (
        <span className="badge ok">nothing holds it</span>
      ) : (
        <ul className="tight-list">
          {h.inhibitors.map((i) => (
            <li key={i.reason}>
              <span className="badge warn">{i.reason}</span> {i.message}
            </li>
          ))}
        </ul>
      ),
  },
];

/** For a chosen cluster: what its installed operators and removed-API use would hold at each hop (the scheduler's rule). */
export function HopInhibitorsPanel({ solved }: { solved: Solved }) {
  const hops = solved.hopInhibitors;
  if (!hops || !solved.cluster || hops.hops.length === 0) return null;
  const held = hops.hops.filter((h) => h.inhibitors.length > 0).length;
  return (
    <section className="panel" aria-label="Operators and removed APIs per hop">
      <h2>
        Operators and removed APIs on <span className="mono">{solved.cluster.name}</span>
      </h2>
      {!hops.reported ? (
        <p className="small muted" style={{ marginTop: 0 }}>
          The provider reports no installed operators or API use for this cluster (the Kubernetes provider reads them from OLM and
          APIRequestCount), so nothing is known to hold a hop.
        </p>
      ) : (
        <>
          <p className="small muted" style={{ marginTop: 0 }}>
            {held === 0
              ? 'No installed operator or removed API in use holds any hop of this path.'
              : `${held} of ${hops.hops.length} hops would wait until these are dealt with (the scheduler holds them with the same reasons).`}
          </p>
          <DataTable id="path-hop-inhibitors" label="Inhibitors per hop" bare rows={hops.hops} columns={HOP_COLUMNS} rowKey={(h) => h.to} />
        </>
      )}
    </section>
  );
}

export function SafetyPanel({ solved }: { solved: Solved }) {
  const skew = solved.skew;
  const d = solved.duration;
  if (!skew || !d) return null;
  return (
    <section className="panel" aria-label="Safety checks and duration">
      <h2>Safety checks</h2>
      <p className="small muted" style={{ marginTop: 0 }}>
        With the worker pools paused at {skew.workerVersion}, the control plane may be at most 2 minors ahead of the workers on 4.even and 1
        on 4.odd; each hop stays within a minor or goes to the next one.
      </p>
      {skew.ok ? (
        <div className="banner info" data-testid="skew-ok">
          Version skew stays within limits at every step.
        </div>
      ) : (
        <div className="banner bad" role="alert">
          <ul className="tight-list">
            {skew.violations.map((v) => (
              <li key={`${v.kind}-${v.index}`}>
                <strong>{v.kind}</strong>: {v.message}
              </li>
            ))}
          </ul>
        </div>
      )}
      <DataTable
        id="path-skew"
        label="Version skew at each step"
        bare
        className="skew-table"
        rows={skew.points}
        columns={SKEW_COLUMNS}
        rowKey={(p) => p.index}
      />
      <h2 style={{ marginTop: 16 }}>Duration estimate</h2>
      <div className="grid-3 duration-stats">
        <div className="stat">
          <span className="label">Total</span>
          <span className="value" data-testid="duration-total">
            {formatMinutes(d.totalMinutes)}
          </span>
        </div>
        <div className="stat">
          <span className="label">Control plane</span>
          <span className="value">{formatMinutes(d.controlPlaneMinutes)}</span>
        </div>
        <div className="stat">
          <span className="label">Workers ({solved.nodes.workers} nodes)</span>
          <span className="value">{formatMinutes(d.workerMinutes)}</span>
        </div>
      </div>
      <ul className="tight-list small">
        {d.hops.map((h) => (
          <li key={`${h.from}>${h.to}`}>
            <span className="mono">
              {h.from} → {h.to}
            </span>{' '}
            ({h.kind}): {formatMinutes(h.minutes)}
          </li>
        ))}
      </ul>
      <p className="small muted model-text" data-testid="duration-model">
        Model: {d.model}
      </p>
    </section>
  );
}

export function ExportsPanel({ solved }: { solved: Solved }) {
  const [mirrorFormat, setMirrorFormat] = useState<'text' | 'json'>('text');
  const { mirrorList, imageset, runbook } = solved;
  if (!mirrorList || !imageset || !runbook) return null;
  const mirror = mirrorFormat === 'text' ? mirrorList.text : mirrorList.json;
  const allCommands = runbook.steps.map((s, i) => [`# ${i + 1}. ${s.title}`, ...s.commands].join('\n')).join('\n\n') + '\n';
  return (
    <>
      <div className="grid-2 top">
        <section className="panel" aria-label="Mirror list">
          <div className="panel-head">
            <h2>Mirror list</h2>
            <div className="seg" role="group" aria-label="Mirror list format">
              <button type="button" className={`btn${mirrorFormat === 'text' ? ' primary' : ''}`} onClick={() => setMirrorFormat('text')}>
                Text
              </button>
              <button type="button" className={`btn${mirrorFormat === 'json' ? ' primary' : ''}`} onClick={() => setMirrorFormat('json')}>
                JSON
              </button>
            </div>
            <span className="spacer" />
            <CopyButton text={mirror} label="Copy" title="Copy the mirror list" />
            <DownloadButton
              text={mirror}
              fileName={mirrorFormat === 'text' ? 'mirror-list.txt' : 'mirror-list.json'}
              mime={mirrorFormat === 'text' ? 'text/plain' : 'application/json'}
              label="Download"
            />
          </div>
          <pre className="code export-pre" data-testid="mirror-list">
            {mirror}
          </pre>
        </section>
        <section className="panel" aria-label="ImageSetConfiguration">
          <div className="panel-head">
            <h2>oc-mirror ImageSetConfiguration</h2>
            <span className={`badge ${imageset.mode === 'pins' ? 'ok' : 'warn'}`}>
              {imageset.mode === 'pins' ? 'every release pinned' : 'shortestPath fallback'}
            </span>
            <span className="spacer" />
            <CopyButton text={imageset.yaml} label="Copy" title="Copy the ImageSetConfiguration" />
            <DownloadButton
              text={imageset.yaml}
              fileName="imageset-config.yaml"
              mime="application/yaml"
              label="Download imageset-config.yaml"
            />
          </div>
          {imageset.warnings.map((w) => (
            <div key={w} className="banner warn small" style={{ marginBottom: 8 }}>
              {w}
            </div>
          ))}
          <pre className="code export-pre" data-testid="imageset-yaml">
            {imageset.yaml}
          </pre>
        </section>
      </div>
      <section className="panel" aria-label="Runbook">
        <div className="panel-head">
          <h2>Runbook: control-plane-only update{runbook.pausesWorkers ? ' (EUS-to-EUS, worker pools paused)' : ''}</h2>
          <span className="spacer" />
          <CopyButton text={allCommands} label="Copy all commands" />
          <DownloadButton text={runbook.text} fileName="runbook.md" mime="text/markdown" label="Download runbook.md" />
        </div>
        {solved.eusRun === 'runs' && solved.cluster && (
          <div className="banner info small" data-testid="eus-run-automated">
            fleetplan runs this EUS-to-EUS update for <span className="mono">{solved.cluster.name}</span> itself: its policy sets{' '}
            <span className="mono">lifecycle.eusControlPlaneOnly</span>, so the scheduler pauses the worker pools, takes both control-plane
            hops with the admin acknowledgements, unpauses the pools and watches the workers roll out, each step in the cluster&apos;s
            upgrade lifecycle. The steps below are what it does.
          </div>
        )}
        {solved.eusRun === 'not-applied' && solved.cluster && (
          <div className="banner warn small" data-testid="eus-run-automated">
            <span className="mono">{solved.cluster.name}</span>&apos;s policy sets{' '}
            <span className="mono">lifecycle.eusControlPlaneOnly</span>, but its provider cannot pause MachineConfigPools: the scheduler
            takes each hop as an upgrade of its own.
          </div>
        )}
        {runbook.warnings.map((w) => (
          <div key={w} className="banner warn small">
            {w}
          </div>
        ))}
        <ol className="runbook" data-testid="runbook">
          {runbook.steps.map((s, i) => (
            <li key={`${i}-${s.kind}`} className={`runbook-step kind-${s.kind}`}>
              <div className="runbook-title">
                <strong>{s.title}</strong> <span className="badge">{s.kind}</span>
              </div>
              <div className="small muted">{s.detail}</div>
              <div className="runbook-commands">
                <pre className="code">{s.commands.join('\n')}</pre>
                <CopyButton text={`${s.commands.join('\n')}\n`} label="Copy" title={`Copy the commands of step ${i + 1}`} />
              </div>
            </li>
          ))}
        </ol>
      </section>
    </>
  );
}
