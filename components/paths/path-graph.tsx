'use client';
// The channel's releases as a graph: one column per minor (oldest left), semver order inside a
// column (oldest on top), the chosen path highlighted, conditional edges dashed. The server sends
// only the path's neighbourhood plus one "highest update" edge per release; the caption says
// how much was left out. Hovering or clicking an edge shows its risks below the graph.
import '@xyflow/react/dist/style.css';
import { Background, Controls, Handle, MarkerType, Position, ReactFlow, type Edge, type Node, type NodeProps } from '@xyflow/react';
import { useMemo, useState } from 'react';
import type { inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '@/server/api/root';
import { safeHref } from './copy-download';

type View = inferRouterOutputs<AppRouter>['graphs']['view'];
type ViewEdge = View['edges'][number];
type ReleaseNode = Node<{ version: string; onPath: boolean; role: 'source' | 'target' | null }, 'release'>;
type MinorNode = Node<{ label: string; count: number }, 'minor'>;

/** A minor with many releases wraps into sub-columns of this many rows: a wide, short layout fits the panel. */
const ROWS = 18;
const CHIP_WIDTH = 124;
const SUB_COLUMN_WIDTH = 134;
const MINOR_GAP = 70;
const ROW_HEIGHT = 32;
const HEADER = 46;

function compareSemver(a: string, b: string): number {
  const pa = a.split(/[.-]/);
  const pb = b.split(/[.-]/);
  for (let i = 0; i < 3; i++) {
    const d = Number(pa[i]) - Number(pb[i]);
    if (d) return d;
  }
  // a release outranks its pre-releases
  if (a.includes('-') !== b.includes('-')) return a.includes('-') ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

function ReleaseChip({ data }: NodeProps<ReleaseNode>) {
  return (
    <div className={`release-node${data.onPath ? ' on-path' : ''}${data.role ? ` ${data.role}` : ''}`} data-version={data.version}>
      <Handle type="target" position={Position.Left} isConnectable={false} />
      <span className="mono release-version" title={data.version}>
        {data.version}
      </span>
      {data.role && <span className="release-role">{data.role === 'source' ? 'from' : 'to'}</span>}
      <Handle type="source" position={Position.Right} isConnectable={false} />
    </div>
  );
}

function MinorHeader({ data }: NodeProps<MinorNode>) {
  return (
    <div className="minor-header">
      <strong>{data.label}</strong> <span className="muted small">{data.count} releases</span>
    </div>
  );
}

const nodeTypes = { release: ReleaseChip, minor: MinorHeader };

export function PathGraph({ view, from, to, channel }: { view: View; from: string | null; to: string | null; channel: string | null }) {
  const [hovered, setHovered] = useState<ViewEdge | null>(null);
  const { nodes, edges, byId } = useMemo(() => {
    const columns = new Map<string, string[]>();
    for (const n of view.nodes) {
      const list = columns.get(n.minor) ?? [];
      list.push(n.version);
      columns.set(n.minor, list);
    }
    const onPath = new Set(view.nodes.filter((n) => n.onPath).map((n) => n.version));
    const nodes: (ReleaseNode | MinorNode)[] = [];
    let x = 0;
    for (const minor of view.minors) {
      const versions = (columns.get(minor) ?? []).sort(compareSemver);
      const subColumns = Math.max(1, Math.ceil(versions.length / ROWS));
      const rows = Math.ceil(versions.length / subColumns);
      nodes.push({
        id: `minor:${minor}`,
        type: 'minor',
        position: { x, y: 0 },
        data: { label: minor, count: versions.length },
        style: { width: subColumns * SUB_COLUMN_WIDTH - (SUB_COLUMN_WIDTH - CHIP_WIDTH) },
        draggable: false,
        selectable: false,
      });
      const left = x;
      versions.forEach((version, i) => {
        nodes.push({
          id: version,
          type: 'release',
          position: { x: left + Math.floor(i / rows) * SUB_COLUMN_WIDTH, y: HEADER + (i % rows) * ROW_HEIGHT },
          data: { version, onPath: onPath.has(version), role: version === from ? 'source' : version === to ? 'target' : null },
          draggable: false,
        });
      });
      x += subColumns * SUB_COLUMN_WIDTH + MINOR_GAP;
    }
    const byId = new Map<string, ViewEdge>();
    const edges: Edge[] = view.edges.map((e) => {
      const id = `${e.from}>${e.to}`;
      byId.set(id, e);
      const cls = ['path-edge', e.onPath ? 'on-path' : '', e.conditional ? 'conditional' : ''].filter(Boolean).join(' ');
      return {
        id,
        source: e.from,
        target: e.to,
        className: cls,
        zIndex: e.onPath ? 10 : 0,
        markerEnd: e.onPath
          ? { type: MarkerType.ArrowClosed, width: 16, height: 16, color: e.conditional ? 'var(--warn)' : 'var(--accent)' }
          : undefined,
        interactionWidth: 12,
      };
    });
    // Paths on top: react-flow draws later edges above earlier ones.
    edges.sort((a, b) => Number(a.zIndex ?? 0) - Number(b.zIndex ?? 0));
    return { nodes, edges, byId };
  }, [view, from, to]);

  const conditionalOnPath = view.edges.filter((e) => e.onPath && e.conditional);
  const shown = hovered ?? conditionalOnPath[0] ?? null;

  return (
    <div className="path-graph-wrap">
      <div className="path-graph" data-testid="path-graph">
        <ReactFlow
          nodes={nodes}
          edges={edges}
          nodeTypes={nodeTypes}
          fitView
          fitViewOptions={{ padding: 0.08 }}
          minZoom={0.15}
          nodesConnectable={false}
          nodesDraggable={false}
          onlyRenderVisibleElements
          onEdgeMouseEnter={(_, edge) => {
            const e = byId.get(edge.id);
            if (e?.conditional) setHovered(e);
          }}
          onEdgeClick={(_, edge) => setHovered(byId.get(edge.id) ?? null)}
        >
          <Background gap={24} size={1} />
          <Controls showInteractive={false} />
        </ReactFlow>
      </div>
      <div className="graph-legend small muted">
        <span>
          <i className="legend-line on-path" /> path
        </span>
        <span>
          <i className="legend-line" /> update
        </span>
        <span>
          <i className="legend-line conditional" /> conditional (hover or click for its risks)
        </span>
        <span className="graph-omitted" data-testid="graph-omitted">
          Showing {view.nodes.length} of {view.totals.nodes} releases {channel ? `in ${channel}` : 'in the stored graphs'} (minors{' '}
          {view.minors.join(', ') || '–'}) and {view.edges.length} of {view.totals.edges} updates between them: the path, up to 6 updates
          from each path release, conditional updates into or out of the path and each release&apos;s highest update.{' '}
          {view.omitted.edges > 0 ? `${view.omitted.edges} updates omitted.` : ''}
          {view.capped ? ' Releases capped at 400 (newest kept).' : ''}
        </span>
      </div>
      {shown && (
        <div className="risk-box" role="region" aria-label="Risks of the update">
          <strong className="mono">
            {shown.from} → {shown.to}
          </strong>{' '}
          {shown.conditional ? <span className="badge warn">conditional</span> : <span className="badge ok">recommended</span>}
          {shown.risks.length === 0 && !shown.conditional && <span className="small muted"> no known risks</span>}
          <ul>
            {shown.risks.map((r) => {
              const href = safeHref(r.url);
              return (
                <li key={r.name}>
                  <strong>{r.name}</strong>: {r.message}{' '}
                  {href ? (
                    <a href={href} target="_blank" rel="noopener noreferrer">
                      {r.url}
                    </a>
                  ) : (
                    r.url && <span className="mono">{r.url}</span>
                  )}
                </li>
              );
            })}
          </ul>
        </div>
      )}
    </div>
  );
}
