'use client';
// The Paths page: ask for an upgrade path (from a version or a cluster of the fleet, to a channel
// and optional target version) and see it as a graph, with what to mirror and how to run it.
// A second tab manages the stored update graphs.
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTRPC } from '@/components/trpc/client';
import { EmptyState } from '@/components/ui/states';
import { QueryState } from '@/components/ui/query-state';
import { GraphManager } from './graph-manager';
import { PathGraph } from './path-graph';
import { ExportsPanel, HopInhibitorsPanel, PathSummary, PathWarnings, ReleasesPanel, SafetyPanel, type Solved } from './path-results';
import { useUrlState } from '@/components/ui/use-url-state';
import './paths.css';

interface Question {
  from?: string;
  clusterName?: string;
  channel: string | null;
  to: string | null;
  allowConditional: boolean;
  workerNodes?: number;
}

function GraphSection({ solved }: { solved: Solved }) {
  const trpc = useTRPC();
  const a = solved.answer;
  const view = useQuery(
    trpc.graphs.view.queryOptions(
      { channel: a.channel, path: [...solved.highlight], from: a.from, to: a.to },
      { placeholderData: (prev) => prev },
    ),
  );
  return (
    <section className="panel" aria-label="Update graph">
      <div className="panel-head">
        <h2>{a.channel ? `Channel ${a.channel}` : 'All stored graphs'}</h2>
        <span className="small muted">columns by minor, oldest release on top</span>
      </div>
      <QueryState
        query={view}
        loadingRows={4}
        isEmpty={(data) => data.nodes.length === 0}
        empty={{ title: 'Nothing to draw', hint: 'The channel holds no releases of the minors in question.' }}
      >
        {(data) => <PathGraph view={data} from={a.from} to={a.to} channel={a.channel} />}
      </QueryState>
    </section>
  );
}

function PathQuestion({ onAsk, busy, asked }: { onAsk: (q: Question) => void; busy: boolean; asked: Question | null }) {
  const trpc = useTRPC();
  const channels = useQuery(trpc.graphs.channels.queryOptions());
  const [mode, setMode] = useState<'version' | 'cluster'>(asked?.clusterName ? 'cluster' : 'version');
  const [from, setFrom] = useState(asked?.from ?? '');
  const [cluster, setCluster] = useState(asked?.clusterName ?? '');
  const [channel, setChannel] = useState<string | null>(asked ? (asked.channel ?? '') : null);
  const [to, setTo] = useState(asked?.to ?? '');
  const [allowConditional, setAllowConditional] = useState(asked?.allowConditional ?? false);
  const [workers, setWorkers] = useState(asked?.workerNodes === undefined ? '' : String(asked.workerNodes));
  const clusters = useQuery({ ...trpc.graphs.clusterOptions.queryOptions({ search: cluster, limit: 30 }), enabled: mode === 'cluster' });
  const channelList = channels.data?.channels ?? [];
  const selectedChannel = channel ?? channelList[0]?.name ?? '';
  // '' = no channel filter (the merged graph as it is)
  const chosenCluster = clusters.data?.clusters.find((c) => c.name === cluster);

  return (
    <QueryState query={channels} loadingRows={2}>
      {() => (
        <form
          className="panel path-form"
          aria-label="Path question"
          onSubmit={(e) => {
            e.preventDefault();
            const n = Number(workers);
            onAsk({
              from: mode === 'version' ? from.trim() : undefined,
              clusterName: mode === 'cluster' ? cluster.trim() : undefined,
              channel: selectedChannel || null,
              to: to.trim() || null,
              allowConditional,
              workerNodes: workers.trim() !== '' && Number.isInteger(n) && n >= 0 ? n : undefined,
            });
          }}
        >
          <fieldset className="source-mode">
            <legend className="small muted">Source</legend>
            <label>
              <input type="radio" name="source" checked={mode === 'version'} onChange={() => setMode('version')} /> Version
            </label>
            <label>
              <input type="radio" name="source" checked={mode === 'cluster'} onChange={() => setMode('cluster')} /> Cluster of the fleet
            </label>
          </fieldset>
          {mode === 'version' ? (
            <label className="field">
              From version
              <input type="text" value={from} maxLength={64} placeholder="e.g. 4.6.30" required onChange={(e) => setFrom(e.target.value)} />
            </label>
          ) : (
            <label className="field">
              Cluster
              <input
                type="search"
                list="path-clusters"
                value={cluster}
                maxLength={200}
                placeholder="type a cluster name"
                required
                onChange={(e) => setCluster(e.target.value)}
              />
              <datalist id="path-clusters">
                {clusters.data?.clusters.map((c) => (
                  <option key={c.name} value={c.name}>
                    {c.version} · {c.nodeCount} nodes
                  </option>
                ))}
              </datalist>
              <span className="small muted field-hint">
                {chosenCluster ? `runs ${chosenCluster.version}, ${chosenCluster.nodeCount} nodes, channel ${chosenCluster.channel}` : ' '}
              </span>
            </label>
          )}
          <label className="field">
            Target channel
            <select value={selectedChannel} onChange={(e) => setChannel(e.target.value)} aria-label="Target channel">
              {channelList.map((c) => (
                <option key={c.name} value={c.name}>
                  {c.name} ({c.minVersion} – {c.maxVersion})
                </option>
              ))}
              <option value="">(no channel: every stored release)</option>
            </select>
          </label>
          <label className="field">
            <span>
              Target version <span className="muted">(optional)</span>
            </span>
            <input type="text" value={to} maxLength={64} placeholder="newest in channel" onChange={(e) => setTo(e.target.value)} />
          </label>
          <label className="field narrow">
            Workers
            <input
              type="number"
              min={0}
              max={100000}
              value={workers}
              placeholder={mode === 'cluster' ? 'nodes − 3' : '3'}
              onChange={(e) => setWorkers(e.target.value)}
            />
          </label>
          <label className="check">
            <input type="checkbox" checked={allowConditional} onChange={(e) => setAllowConditional(e.target.checked)} /> Allow conditional
            updates
          </label>
          <button type="submit" className="btn primary" disabled={busy}>
            {busy ? 'Solving…' : 'Find path'}
          </button>
        </form>
      )}
    </QueryState>
  );
}

/** The question asked and the tab live in the address (?from=4.12.30&channel=eus-4.14), so an answer can be linked. */
const PATHS_URL_DEFAULTS = { tab: 'path', from: '', cluster: '', channel: '', to: '', conditional: false, workers: -1 };

function questionOf(url: typeof PATHS_URL_DEFAULTS): Question | null {
  if (!url.from && !url.cluster) return null;
  return {
    ...(url.cluster ? { clusterName: url.cluster } : { from: url.from }),
    channel: url.channel || null,
    to: url.to || null,
    allowConditional: url.conditional,
    ...(Number.isInteger(url.workers) && url.workers >= 0 ? { workerNodes: url.workers } : {}),
  };
}

export function PathsView() {
  const trpc = useTRPC();
  const [url, setUrl] = useUrlState(PATHS_URL_DEFAULTS);
  const tab = url.tab === 'graphs' ? 'graphs' : 'path';
  const setTab = (next: 'path' | 'graphs') => setUrl({ tab: next });
  const question = questionOf(url);
  const setQuestion = (q: Question) =>
    setUrl({
      from: q.from ?? '',
      cluster: q.clusterName ?? '',
      channel: q.channel ?? '',
      to: q.to ?? '',
      conditional: q.allowConditional,
      workers: q.workerNodes ?? -1,
    });
  const solved = useQuery({
    ...trpc.graphs.solve.queryOptions(question ?? { allowConditional: false, from: '0.0.0' }),
    enabled: question !== null,
  });
  const channels = useQuery(trpc.graphs.channels.queryOptions());

  return (
    <>
      <nav aria-label="Paths sections" className="paths-tabs">
        <button
          type="button"
          className={`btn${tab === 'path' ? ' primary' : ''}`}
          aria-pressed={tab === 'path'}
          onClick={() => setTab('path')}
        >
          Path
        </button>
        <button
          type="button"
          className={`btn${tab === 'graphs' ? ' primary' : ''}`}
          aria-pressed={tab === 'graphs'}
          onClick={() => setTab('graphs')}
        >
          Graphs{channels.data ? ` (${channels.data.graphs})` : ''}
        </button>
        {channels.data && (
          <span className="small muted">
            {channels.data.releases} releases, {channels.data.edges} updates, {channels.data.channels.length} channels in the stored graphs
          </span>
        )}
      </nav>
      {tab === 'graphs' ? (
        <GraphManager />
      ) : channels.data && channels.data.graphs === 0 ? (
        <EmptyState title="No update graph stored">
          Upload one in the Graphs tab, or run <span className="mono">fleetplan graph import FILE</span>.
        </EmptyState>
      ) : (
        <div className="paths-stack">
          {/* keyed by the question, so Back/Forward to another question refills the form */}
          <PathQuestion key={JSON.stringify(question)} asked={question} onAsk={setQuestion} busy={question !== null && solved.isFetching} />
          {question === null ? (
            <EmptyState title="Ask for a path">
              Pick a source version or a cluster, a target channel (EUS channels first) and optionally a target version.
            </EmptyState>
          ) : (
            <QueryState query={solved} loadingRows={5}>
              {(data) => (
                <>
                  <PathWarnings solved={data} />
                  <PathSummary solved={data} />
                  <GraphSection solved={data} />
                  <div className="grid-2 top">
                    <ReleasesPanel solved={data} />
                    <SafetyPanel solved={data} />
                  </div>
                  <HopInhibitorsPanel solved={data} />
                  <ExportsPanel solved={data} />
                </>
              )}
            </QueryState>
          )}
        </div>
      )}
    </>
  );
}
