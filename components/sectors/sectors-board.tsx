'use client';
// The sector graph: sectors as nodes laid out left to right by dependency depth, dependencies as
// edges. Draw an edge (dependency → dependent) or delete one to edit; cycles are refused before
// anything is saved; saving goes through policies.updateOrganization with the revision read.
import '@xyflow/react/dist/style.css';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  Background,
  Controls,
  Handle,
  MarkerType,
  Position,
  ReactFlow,
  type Connection,
  type Edge,
  type Node,
  type NodeProps,
} from '@xyflow/react';
import { OrgLink } from '@/components/shell/org-link';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { OPERATOR_ONLY, useRole } from '@/components/scheduler/use-role';
import type { inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '@/server/api/root';
import { useTRPC } from '@/components/trpc/client';
import { formatDays } from '@/components/ui/format';
import { EmptyState } from '@/components/ui/states';
import { QueryState } from '@/components/ui/query-state';
import { DataTable, type Column } from '@/components/ui/data-table';
import { hrefWith } from '@/components/ui/url-state';
import { findCycleIfAdded, layoutLayers, type SectorDeps } from './sector-graph';
import './sectors.css';

type Overview = inferRouterOutputs<AppRouter>['sectors']['overview'];
type Sector = Overview['sectors'][number];
type GateVersion = NonNullable<Sector['gates']>['versions'][number];
type GateAction = 'approve' | 'revoke';
type SectorNode = Node<
  { sector: Sector; canOperate: boolean; onGateAction: (action: GateAction, sector: string, gate: GateVersion) => void },
  'sector'
>;
type SectorWorkload = Sector['workloads'][number] & { sector: string };

const soakingText = (w: SectorWorkload) =>
  w.soaking ? `${w.soaking.version}: ${formatDays(w.soaking.soakDays)} of ${w.soaking.requiredDays} d` : null;
const waitsText = (w: SectorWorkload) => (w.waitsFor ? `${w.waitsFor.sector} still runs ${w.waitsFor.version}` : null);

const WORKLOAD_COLUMNS: Column<SectorWorkload>[] = [
  { id: 'sector', header: 'Sector', required: true, value: (w) => w.sector, cell: (w) => w.sector },
  { id: 'workload', header: 'Workload', className: 'mono', value: (w) => w.workload, cell: (w) => w.workload },
  {
    id: 'clusters',
    header: 'Clusters',
    value: (w) => w.clusters,
    cell: (w) => <OrgLink href={hrefWith('/fleet', { sector: w.sector, workload: w.workload })}>{w.clusters}</OrgLink>,
  },
  { id: 'min', header: 'Min version', className: 'mono', value: (w) => w.minVersion, cell: (w) => w.minVersion },
  { id: 'max', header: 'Max version', className: 'mono', value: (w) => w.maxVersion, cell: (w) => w.maxVersion },
  { id: 'next', header: 'Next', className: 'mono', value: (w) => w.nextVersion, cell: (w) => w.nextVersion ?? '—' },
  { id: 'soaking', header: 'Soaking', value: (w) => w.soaking?.soakDays, csv: soakingText, cell: (w) => soakingText(w) ?? '—' },
  { id: 'waits', header: 'Waits for', value: waitsText, cell: (w) => waitsText(w) ?? '—' },
];

const NODE_WIDTH = 310;
const COLUMN_WIDTH = 390;

/** Rendered height estimate (for stacking a layer's nodes without overlap). */
function nodeHeight(s: Sector): number {
  return (
    78 +
    s.workloads.length * 36 +
    s.workloads.filter((w) => w.waitsFor).length * 19 +
    (s.gates ? 30 + shownGateVersions(s.gates).length * 46 : 0) +
    (s.canaries ? 19 : 0) +
    (s.selector ? 19 : 0)
  );
}

/** the versions a node lists: every pending one, and the three newest approvals */
const shownGateVersions = (g: NonNullable<Sector['gates']>) => [
  ...g.versions.filter((v) => v.state === 'pending'),
  ...g.versions.filter((v) => v.state === 'approved').slice(0, 3),
];

const gateKindText = (kind: GateVersion['kind']) => (kind === 'before' ? 'into the sector' : 'past the sector');

/** The sector's gates on its node: approval before/after and notBefore, each version pending or approved. */
function SectorGatesView({ data }: { data: SectorNode['data'] }) {
  const { sector: s, canOperate, onGateAction } = data;
  const g = s.gates!;
  const kinds = [g.before && 'approval before', g.after && 'approval after', g.notBefore && `not before ${g.notBefore}`].filter(Boolean);
  return (
    <div className="sector-gates" data-testid={`sector-gates-${s.name}`}>
      <div className="small">
        <strong>Gates:</strong> {kinds.join(' · ')}
      </div>
      <ul className="sector-gate-list">
        {shownGateVersions(g).map((v) => (
          <li key={`${v.kind}|${v.version}|${v.state}`} data-gate-state={v.state} data-gate-version={v.version}>
            <span className={`badge ${v.state === 'pending' ? 'warn' : 'ok'}`}>{v.state === 'pending' ? 'pending' : 'approved'}</span>{' '}
            <span className="mono">{v.version}</span>{' '}
            <span className="small muted">
              {gateKindText(v.kind)} ·{' '}
              {v.state === 'pending' ? `${v.waiting} cluster${v.waiting === 1 ? '' : 's'} waiting` : `by ${v.approvedBy ?? '?'}`}
            </span>
            {v.state === 'pending' && (
              <button
                type="button"
                className="btn nodrag sector-gate-approve"
                disabled={!canOperate}
                title={canOperate ? `Approve ${v.version} ${gateKindText(v.kind)} ${s.name}` : OPERATOR_ONLY}
                onClick={() => onGateAction('approve', s.name, v)}
              >
                Approve…
              </button>
            )}
            {v.state === 'approved' && (
              <button
                type="button"
                className="btn nodrag sector-gate-revoke"
                disabled={!canOperate}
                title={canOperate ? `Revoke the approval of ${v.version} ${gateKindText(v.kind)} ${s.name}` : OPERATOR_ONLY}
                onClick={() => onGateAction('revoke', s.name, v)}
              >
                Revoke…
              </button>
            )}
          </li>
        ))}
        {g.versions.length === 0 && (g.before || g.after) && <li className="small muted">no version waiting at a gate</li>}
      </ul>
    </div>
  );
}

function SectorCard({ data }: NodeProps<SectorNode>) {
  const s = data.sector;
  const gated = s.gates !== null;
  const thresholds = s.soakThresholds.filter((t) => t.soakDays !== null).map((t) => `${t.soakDays} d`);
  return (
    <div className="sector-node" style={{ width: NODE_WIDTH }} data-sector={s.name}>
      <Handle type="target" position={Position.Left} aria-label={`${s.name}: drop a dependency here`} />
      <div className="sector-node-head">
        <strong>{s.name}</strong>
        {/* nodrag: React Flow would take the press for moving the node */}
        <OrgLink
          className="badge nodrag"
          href={hrefWith('/fleet', { sector: s.name })}
          title={`List the clusters of ${s.name} on the Fleet page`}
        >
          {s.clusters} clusters
        </OrgLink>
        {s.upgrading > 0 && <span className="badge accent">{s.upgrading} upgrading</span>}
        {s.maxParallelUpgrades && (
          <span className="badge info" title="maxParallelUpgrades">
            max {s.maxParallelUpgrades}
          </span>
        )}
      </div>
      <div className="small muted">
        soak {thresholds.length ? thresholds.join(', ') : 'none'} · {s.healthy}/{s.clusters} healthy
      </div>
      {s.selector && (
        <div className="small" data-testid={`sector-selector-${s.name}`} title="managed clusters whose policy names no sector join it">
          selects <span className="mono">{s.selector}</span>
        </div>
      )}
      <ul className="sector-node-workloads">
        {s.workloads.map((w) => (
          <li key={w.workload}>
            <span className="mono">{w.workload}</span>{' '}
            <span className="mono">{w.minVersion === w.maxVersion ? w.minVersion : `${w.minVersion} – ${w.maxVersion}`}</span>
            <div className="small muted">
              {w.nextVersion ? (
                w.soaking ? (
                  <>
                    {w.soaking.version} soaking {formatDays(w.soaking.soakDays)}/{w.soaking.requiredDays} d
                  </>
                ) : (
                  <>
                    next {w.nextVersion}
                    {w.waitsFor ? '' : ' · soaked'}
                  </>
                )
              ) : (
                'up to date'
              )}
            </div>
          </li>
        ))}
      </ul>
      {s.workloads
        .filter((w) => w.waitsFor)
        .map((w) => (
          <div
            key={w.workload}
            className="small sector-wait"
            title={`${s.name} waits: ${w.waitsFor!.sector} still runs ${w.waitsFor!.version} for workload ${w.workload}`}
          >
            waits: {w.waitsFor!.sector} on {w.waitsFor!.version} ({w.workload})
          </div>
        ))}
      {s.canaries && (
        <div
          className="small"
          data-testid={`sector-canaries-${s.name}`}
          title={`canaries go first (${s.canaries.size}${s.canaries.selector ? ` of ${s.canaries.selector}` : ''}); the rest wait until they completed and soaked ${s.canaries.soakHours} h`}
        >
          canaries: {s.canaries.canaries.length ? <span className="mono">{s.canaries.canaries.join(', ')}</span> : 'none match'} · soak{' '}
          {s.canaries.soakHours} h
        </div>
      )}
      {gated && <SectorGatesView data={data} />}
      <Handle type="source" position={Position.Right} aria-label={`${s.name}: drag to a sector that depends on it`} />
    </div>
  );
}

/**
 * The confirm dialog of an approval, or of its revocation: which version, into or past which
 * sector, and an optional reason (audited with it).
 */
function GateDialog({
  gate,
  dialog,
  onDone,
}: {
  gate: { action: GateAction; sector: string; version: GateVersion } | null;
  dialog: React.RefObject<HTMLDialogElement | null>;
  onDone: () => void;
}) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const [reason, setReason] = useState('');
  const handlers = {
    onSuccess: () => {
      dialog.current?.close();
      onDone();
    },
    onSettled: () => {
      void qc.invalidateQueries({ queryKey: trpc.sectors.pathKey() });
      void qc.invalidateQueries({ queryKey: trpc.approvals.pathKey() });
      void qc.invalidateQueries({ queryKey: trpc.activity.pathKey() });
    },
  };
  const approve = useMutation(trpc.approvals.approve.mutationOptions(handlers));
  const revoke = useMutation(trpc.approvals.revoke.mutationOptions(handlers));
  const mutation = gate?.action === 'revoke' ? revoke : approve;
  useEffect(() => {
    setReason('');
    approve.reset();
    revoke.reset();
    // a new gate opens a fresh dialog
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [gate]);
  const revoking = gate?.action === 'revoke';
  return (
    <dialog ref={dialog} aria-labelledby="gate-dialog-h">
      {gate && (
        <form
          method="dialog"
          onSubmit={(e) => {
            e.preventDefault();
            mutation.mutate({ sector: gate.sector, version: gate.version.version, kind: gate.version.kind, reason });
          }}
        >
          <h3 id="gate-dialog-h">
            {revoking ? 'Revoke the approval of' : 'Approve'} {gate.version.version} {gateKindText(gate.version.kind)} {gate.sector}?
          </h3>
          <p className="small muted">
            {revoking
              ? `Approved by ${gate.version.approvedBy ?? '?'}${gate.version.reason ? ` (${gate.version.reason})` : ''}. Clusters not yet started wait at the gate again; upgrades already started go on.`
              : `${
                  gate.version.kind === 'before'
                    ? `The rollout of ${gate.version.version} into ${gate.sector} may start at its clusters' next windows`
                    : `The sectors after ${gate.sector} may take ${gate.version.version}`
                } (${gate.version.waiting} cluster${gate.version.waiting === 1 ? '' : 's'} waiting now).`}{' '}
            It is written to the activity log under your name{revoking ? '.' : '; an operator can revoke it until an upgrade starts.'}
          </p>
          <label>
            Reason (optional)
            <input
              value={reason}
              maxLength={500}
              onChange={(e) => setReason(e.target.value)}
              placeholder={revoking ? 'e.g. INC-4711: regression found' : 'e.g. CAB-1234'}
            />
          </label>
          {mutation.error ? <p role="alert">{mutation.error.message}</p> : null}
          <div className="dialog-actions">
            <button type="submit" className={`btn ${revoking ? 'danger' : 'primary'}`} disabled={mutation.isPending}>
              {revoking ? (mutation.isPending ? 'Revoking…' : 'Revoke') : mutation.isPending ? 'Approving…' : 'Approve'}
            </button>
            <button type="button" className="btn" onClick={() => dialog.current?.close()}>
              Cancel
            </button>
          </div>
        </form>
      )}
    </dialog>
  );
}

const nodeTypes = { sector: SectorCard };

function toDeps(sectors: readonly Sector[]): SectorDeps[] {
  return sectors.map((s) => ({ name: s.name, dependencies: [...s.dependencies] }));
}

export function SectorsBoard() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const overview = useQuery(trpc.sectors.overview.queryOptions());
  const organization = useQuery(trpc.policies.organization.queryOptions());
  const [draft, setDraft] = useState<SectorDeps[] | null>(null);
  const [message, setMessage] = useState<{ tone: 'bad' | 'info' | 'ok'; text: string } | null>(null);
  const [addFrom, setAddFrom] = useState('');
  const [addTo, setAddTo] = useState('');
  const { canOperate } = useRole();
  const gateDialog = useRef<HTMLDialogElement>(null);
  const [gateAction, setGateAction] = useState<{ action: GateAction; sector: string; version: GateVersion } | null>(null);
  const onGateAction = useCallback((action: GateAction, sector: string, version: GateVersion) => {
    setGateAction({ action, sector, version });
    gateDialog.current?.showModal();
  }, []);

  const sectors = useMemo(() => overview.data?.sectors ?? [], [overview.data]);
  useEffect(() => {
    if (overview.data) setDraft(toDeps(overview.data.sectors));
  }, [overview.data]);
  const deps = useMemo(() => draft ?? toDeps(sectors), [draft, sectors]);
  const dirty = useMemo(() => JSON.stringify(deps) !== JSON.stringify(toDeps(sectors)), [deps, sectors]);

  const save = useMutation(
    trpc.policies.updateOrganization.mutationOptions({
      onSuccess: async () => {
        setMessage({ tone: 'ok', text: 'Sector dependencies saved.' });
        await Promise.all([
          queryClient.invalidateQueries({ queryKey: trpc.sectors.overview.queryKey() }),
          queryClient.invalidateQueries({ queryKey: trpc.policies.organization.queryKey() }),
        ]);
      },
      onError: (e) => setMessage({ tone: 'bad', text: `Not saved: ${e.message}` }),
    }),
  );

  const addDependency = useCallback(
    (dependency: string, dependent: string) => {
      if (!dependency || !dependent) return;
      const current = deps.find((s) => s.name === dependent);
      if (current?.dependencies.includes(dependency)) {
        setMessage({ tone: 'info', text: `${dependent} already depends on ${dependency}.` });
        return;
      }
      const cycle = findCycleIfAdded(deps, dependent, dependency);
      if (cycle) {
        setMessage({
          tone: 'bad',
          text: `Refused: ${dependent} cannot depend on ${dependency} — that would create a cycle (${cycle.join(' → ')}). Sector dependencies must not loop.`,
        });
        return;
      }
      setDraft(deps.map((s) => (s.name === dependent ? { ...s, dependencies: [...s.dependencies, dependency] } : s)));
      setMessage({ tone: 'info', text: `${dependent} now depends on ${dependency} (not saved yet).` });
    },
    [deps],
  );

  const removeDependency = useCallback((dependency: string, dependent: string) => {
    setDraft((d) =>
      (d ?? []).map((s) => (s.name === dependent ? { ...s, dependencies: s.dependencies.filter((x) => x !== dependency) } : s)),
    );
    setMessage({ tone: 'info', text: `${dependent} no longer depends on ${dependency} (not saved yet).` });
  }, []);

  const positions = useMemo(() => {
    const byName = new Map(sectors.map((s) => [s.name, s]));
    return layoutLayers(deps, (n) => (byName.get(n) ? nodeHeight(byName.get(n)!) : 80), { columnWidth: COLUMN_WIDTH, gap: 28 });
  }, [deps, sectors]);

  const nodes: SectorNode[] = useMemo(
    () =>
      sectors.map((s) => ({
        id: s.name,
        type: 'sector' as const,
        position: positions.get(s.name) ?? { x: 0, y: 0 },
        data: { sector: s, canOperate, onGateAction },
        ariaLabel: `Sector ${s.name}`,
      })),
    [sectors, positions, canOperate, onGateAction],
  );
  const edges: Edge[] = useMemo(
    () =>
      deps.flatMap((s) =>
        s.dependencies.map((d) => ({
          id: `${d}->${s.name}`,
          source: d,
          target: s.name,
          markerEnd: { type: MarkerType.ArrowClosed },
          ariaLabel: `${s.name} depends on ${d}`,
          style: { strokeWidth: 2 },
        })),
      ),
    [deps],
  );

  const onConnect = useCallback((c: Connection) => addDependency(c.source, c.target), [addDependency]);
  const onEdgesDelete = useCallback((removed: Edge[]) => removed.forEach((e) => removeDependency(e.source, e.target)), [removeDependency]);

  const onSave = () => {
    const org = organization.data;
    if (!org) {
      setMessage({ tone: 'bad', text: 'Not saved: the organization settings are not loaded yet.' });
      return;
    }
    save.mutate({
      expectedRevision: org.revision,
      organization: {
        sectors: org.sectors.map((s) => ({
          name: s.name,
          maxParallelUpgrades: s.maxParallelUpgrades,
          dependencies: deps.find((d) => d.name === s.name)?.dependencies ?? s.dependencies,
        })),
        blockedVersions: org.blockedVersions.map((b) => ({ pattern: b.pattern, reason: b.reason })),
        upgradePolicyAllowedWorkloads: org.upgradePolicyAllowedWorkloads,
        upgradePolicyAllowedMutexes: org.upgradePolicyAllowedMutexes,
      },
    });
  };

  const allEdges = deps.flatMap((s) => s.dependencies.map((d) => ({ dependency: d, dependent: s.name })));
  return (
    <QueryState
      query={overview}
      loadingRows={6}
      frame={(state) => <section className="panel">{state}</section>}
      isEmpty={() => sectors.length === 0}
      empty={{ title: 'No sectors defined', hint: 'Add sectors to the organization policy to see the rollout order here.' }}
    >
      {() => (
        <>
          {message && (
            <div
              className={`banner ${message.tone === 'ok' ? 'info' : message.tone}`}
              role={message.tone === 'bad' ? 'alert' : 'status'}
              data-testid="sector-message"
            >
              {message.text}
            </div>
          )}
          <GateDialog
            gate={gateAction}
            dialog={gateDialog}
            onDone={() =>
              setMessage({
                tone: 'ok',
                text: `${gateAction?.action === 'revoke' ? 'Revoked the approval of' : 'Approved'} ${gateAction?.version.version ?? ''} for ${gateAction?.sector ?? ''}.`,
              })
            }
          />
          <section className="panel flush" aria-label="Sector dependency graph">
            <div className="toolbar">
              <span className="small muted" style={{ flex: '1 1 320px' }}>
                Drag from a sector&apos;s right handle to another sector&apos;s left handle to add a dependency; select an edge and press
                Delete to remove it.
              </span>
              {dirty && <span className="badge warn">unsaved changes</span>}
              <button
                className="btn"
                disabled={!dirty || save.isPending}
                onClick={() => {
                  setDraft(toDeps(sectors));
                  setMessage(null);
                }}
              >
                Discard
              </button>
              <button className="btn primary" disabled={!dirty || save.isPending} onClick={onSave}>
                {save.isPending ? 'Saving…' : 'Save dependencies'}
              </button>
            </div>
            <div className="sector-flow" style={{ height: 560 }}>
              <ReactFlow
                nodes={nodes}
                edges={edges}
                nodeTypes={nodeTypes}
                onConnect={onConnect}
                onEdgesDelete={onEdgesDelete}
                deleteKeyCode={['Backspace', 'Delete']}
                nodesDraggable={false}
                fitView
                fitViewOptions={{ padding: 0.08 }}
                minZoom={0.2}
                colorMode="system"
                proOptions={{ hideAttribution: true }}
              >
                <Background gap={24} />
                <Controls showInteractive={false} />
              </ReactFlow>
            </div>
          </section>
          <div className="grid-2">
            <section className="panel" aria-label="Dependencies">
              <h2>Dependencies</h2>
              <form
                className="chips"
                style={{ alignItems: 'center', marginBottom: 8 }}
                onSubmit={(e) => {
                  e.preventDefault();
                  addDependency(addFrom, addTo);
                }}
              >
                <select aria-label="Dependent sector" value={addTo} onChange={(e) => setAddTo(e.target.value)}>
                  <option value="">sector…</option>
                  {sectors.map((s) => (
                    <option key={s.name}>{s.name}</option>
                  ))}
                </select>
                <span className="small muted">depends on</span>
                <select aria-label="Dependency sector" value={addFrom} onChange={(e) => setAddFrom(e.target.value)}>
                  <option value="">sector…</option>
                  {sectors.map((s) => (
                    <option key={s.name}>{s.name}</option>
                  ))}
                </select>
                <button className="btn" type="submit" disabled={!addFrom || !addTo}>
                  Add
                </button>
              </form>
              {allEdges.length === 0 ? (
                <EmptyState title="No dependencies">Every sector upgrades independently.</EmptyState>
              ) : (
                <DataTable
                  id="sector-dependencies"
                  label="Sector dependencies"
                  noun="dependencies"
                  bare
                  rows={allEdges}
                  rowKey={(e) => `${e.dependency}->${e.dependent}`}
                  initialSort={{ id: 'dependent', direction: 'asc' }}
                  columns={[
                    { id: 'dependent', header: 'Sector', value: (e) => e.dependent, cell: (e) => e.dependent },
                    { id: 'dependency', header: 'waits for', value: (e) => e.dependency, cell: (e) => e.dependency },
                    {
                      id: 'actions',
                      header: 'Actions',
                      headerHidden: true,
                      required: true,
                      className: 'align-end',
                      cell: (e) => (
                        <button
                          className="btn danger"
                          onClick={() => removeDependency(e.dependency, e.dependent)}
                          aria-label={`Remove: ${e.dependent} depends on ${e.dependency}`}
                        >
                          Remove
                        </button>
                      ),
                    },
                  ]}
                />
              )}
            </section>
            <section className="panel" aria-label="What blocks the next sector">
              <h2>What blocks the next sector</h2>
              {sectors.every((s) => s.waits.length === 0) ? (
                <EmptyState title="Nothing waits on a dependency" />
              ) : (
                <ul className="plain-list">{sectors.flatMap((s) => s.waits.map((w) => <li key={w}>{w}</li>))}</ul>
              )}
            </section>
          </div>
          <section className="panel flush" aria-label="Sector versions by workload">
            <div className="toolbar">
              <h2 style={{ margin: 0 }}>Versions per sector and workload</h2>
            </div>
            <DataTable
              id="sector-versions"
              label="Versions per sector and workload"
              noun="rows"
              rows={sectors.flatMap((sector) => sector.workloads.map((w) => ({ sector: sector.name, ...w })))}
              rowKey={(r) => `${r.sector}|${r.workload}`}
              filterable
              filterPlaceholder="Filter sectors, workloads, versions…"
              columns={WORKLOAD_COLUMNS}
              className="sector-versions"
            />
          </section>
        </>
      )}
    </QueryState>
  );
}
