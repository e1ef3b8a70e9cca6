// Update graphs use case: import/list/delete stored Cincinnati graphs and answer path questions
// over them. Parsing and merging a large graph set costs far more than a query, so the merged
// index is built once per set of stored graphs (ids + import times) and kept on globalThis; an
// import or a delete drops it.
import type { Db } from '@/db/open-database';
import { estimateUpdateDuration, type DurationEstimate } from '@/server/domain/path/estimate-duration';
import { renderImageSet, type ImageSetResult } from '@/server/domain/path/imageset';
import { renderMirrorList } from '@/server/domain/path/mirror-list';
import { parseGraphDocument } from '@/server/domain/path/parse-graph';
import { buildRunbook, type Runbook } from '@/server/domain/path/runbook';
import { solveUpgradePath } from '@/server/domain/path/solve-upgrade-path';
import { isPathFound, type HopRisks, type PathAnswer, type PathRelease } from '@/server/domain/path/types';
import type { GraphIndex } from '@/server/domain/path/update-graph-index';
import { channelsContaining, listChannels, type ChannelSummary } from '@/server/domain/path/channel-summary';
import { pathWarnings } from '@/server/domain/path/path-warnings';
import { eusLagHint } from '@/server/domain/path/eus-lag-hint';
import { buildGraphView, emptyGraphView, type GraphView, type GraphViewInput } from '@/server/domain/path/graph-view';
import { checkVersionSkew, type VersionSkewReport } from '@/server/domain/path/version-skew';
import { normalizeVersion } from '@/server/domain/version/version';
import { appendAudit } from '@/server/repositories/audit-repository';
import { findClusterByName, listClusters } from '@/server/repositories/cluster-repository';
import { withTransaction } from '@/server/repositories/transaction';
import {
  deleteGraph,
  findGraphById,
  forgetStoredGraphIndex,
  listGraphs,
  loadStoredGraphIndex,
  upsertGraph,
  type StoredGraphMeta,
} from '@/server/repositories/update-graph-repository';
import { MAX_GRAPH_BYTES } from '@/lib/graph-document-limit';
import { organizationScope, type OrganizationScope } from './organization-scope';
import { AppError } from './app-error';
import { upgradeInhibitors, type ClusterInhibitorFacts } from '@/server/domain/lifecycle/inhibitors';
import { eusRunOfRoute } from '@/server/domain/lifecycle/eus-procedure';
import { parseLifecycleOptions } from '@/server/domain/lifecycle/options';
import { channelForHop } from '@/server/domain/plan/route-following';
import { getEnv } from '@/server/env';

/** Control-plane nodes assumed for a cluster (the fleet stores only a total node count). */
const CONTROL_PLANE_NODES = 3;

export { graphSetLoadCount } from '@/server/repositories/update-graph-repository';

export interface ImportGraphInput {
  /** File name the text came from (messages, default graph name). */
  fileName: string;
  text: string;
  /** Stored name (unique; importing the same name replaces it); default: the file name without `.json`. */
  name?: string;
  channel?: string | null;
  architecture?: string | null;
  capturedAt?: Date | null;
  /** Where it came from, for people; default `upload: FILE`. */
  source?: string;
}

export interface SolveInput {
  from?: string;
  clusterName?: string;
  channel?: string | null;
  to?: string | null;
  allowConditional: boolean;
  workerNodes?: number;
  controlPlaneNodes?: number;
}

function sanitizeName(fileName: string): string {
  const base = fileName.replace(/^.*[\\/]/, '').replace(/\.json$/i, '');
  return base.replace(/[^A-Za-z0-9._-]+/g, '-').slice(0, 120) || 'graph';
}

/** Architecture from the build suffix of the first version (`4.9.6+arm64`), else null. */
function architectureFromText(text: string): string | null {
  const m = /"version"\s*:\s*"[^"+]*\+([a-z0-9_]+)"/.exec(text.slice(0, 200_000));
  return m ? (m[1] as string) : null;
}

/** `now` is the wall clock: it stamps imports and audit rows (the fleet clock plays no part here) */
/** The update graphs are the instance's; the clusters to pick a source from are the request's organization's (`scope`). */
export function createGraphService(db: Db, now: () => Date, scope: OrganizationScope = organizationScope(db)) {
  /** The merged index of every stored graph (cached), or null when none is stored. */
  async function loadIndex(): Promise<{ index: GraphIndex; graphs: StoredGraphMeta[] } | null> {
    const loaded = await loadStoredGraphIndex(db);
    if (loaded === null) return null;
    if (!loaded.ok) {
      // Only validated documents are stored, so this means the table was edited by hand.
      throw new AppError('PRECONDITION_FAILED', `Stored graph ${loaded.source} is broken: ${loaded.error}. Delete and re-import it.`);
    }
    return { index: loaded.index, graphs: loaded.graphs };
  }

  async function requireIndex(): Promise<{ index: GraphIndex; graphs: StoredGraphMeta[] }> {
    const loaded = await loadIndex();
    if (!loaded)
      throw new AppError(
        'PRECONDITION_FAILED',
        'No update graph is stored yet: import one (Paths page, or `fleetplan graph import FILE`).',
      );
    return loaded;
  }

  return {
    async list(): Promise<StoredGraphMeta[]> {
      return await listGraphs(db);
    },

    async import(input: ImportGraphInput, actor: string): Promise<StoredGraphMeta> {
      const bytes = Buffer.byteLength(input.text, 'utf8');
      if (bytes > MAX_GRAPH_BYTES) {
        throw new AppError(
          'INVALID_INPUT',
          `${input.fileName}: ${(bytes / 1048576).toFixed(1)} MB is over the ${MAX_GRAPH_BYTES / 1048576} MB limit for a graph document`,
          [{ path: 'text', message: 'too large' }],
        );
      }
      const parsed = parseGraphDocument(input.text, input.fileName);
      if (!parsed.ok) {
        throw new AppError('INVALID_INPUT', `${input.fileName} is not a valid update graph: ${parsed.error}. Nothing was imported.`, [
          { path: 'text', message: parsed.error },
        ]);
      }
      const name = input.name?.trim() || sanitizeName(input.fileName);
      const graph = parsed.graph;
      const at = now();
      const meta = {
        name,
        channel: input.channel?.trim() || null,
        architecture: input.architecture?.trim() || architectureFromText(input.text) || 'amd64',
        capturedAt: input.capturedAt ?? null,
        source: input.source ?? `upload: ${input.fileName}`,
        nodeCount: graph.nodes.length,
        edgeCount: graph.edges.length,
        importedAt: at,
      };
      const id = await withTransaction(db, async (tx) => {
        const newId = await upsertGraph(tx, { ...meta, document: input.text });
        await appendAudit(tx, {
          organizationId: null,
          at,
          actor,
          action: 'graph.import',
          target: `graph:${name}`,
          after: { ...meta, conditionalPairs: graph.conditionalPairs.length },
        });
        return newId;
      });
      await forgetStoredGraphIndex(db);
      return { id, ...meta };
    },

    async delete(id: number, actor: string): Promise<{ deleted: string }> {
      const existing = await findGraphById(db, id);
      if (!existing) throw new AppError('NOT_FOUND', `No stored graph with id ${id}`);
      await withTransaction(db, async (tx) => {
        await deleteGraph(tx, id);
        await appendAudit(tx, {
          organizationId: null,
          at: now(),
          actor,
          action: 'graph.delete',
          target: `graph:${existing.name}`,
          before: existing,
        });
      });
      await forgetStoredGraphIndex(db);
      return { deleted: existing.name };
    },

    /** Every channel of the stored graphs (eus first) with its version range. */
    async channels(): Promise<{
      channels: ChannelSummary[];
      releases: number;
      edges: number;
      hasChannelMetadata: boolean;
      graphs: number;
    }> {
      const loaded = await loadIndex();
      if (!loaded) return { channels: [], releases: 0, edges: 0, hasChannelMetadata: false, graphs: 0 };
      const { index, graphs } = loaded;
      return {
        channels: listChannels(index),
        releases: index.size,
        edges: index.edgeCount,
        hasChannelMetadata: index.hasChannelMetadata,
        graphs: graphs.length,
      };
    },

    /** Clusters of the fleet to pick a source from (name, version, node count). */
    async clusterOptions(search: string | undefined, limit: number) {
      const org = await scope();
      if (!org) return { total: 0, clusters: [] };
      const { rows, total } = await listClusters(db, {
        filter: { search: search || undefined, organizationId: org.id },
        sort: 'name',
        direction: 'asc',
        offset: 0,
        limit,
      });
      return { total, clusters: rows.map((r) => ({ name: r.name, version: r.version, channel: r.channel, nodeCount: r.nodeCount })) };
    },

    async solve(input: SolveInput) {
      const { index, graphs } = await requireIndex();
      let cluster: { name: string; version: string; channel: string; nodeCount: number } | null = null;
      let facts: ClusterInhibitorFacts | null = null;
      /** the cluster's policy takes EUS-to-EUS routes control-plane-only (lifecycle.eusControlPlaneOnly), and its provider */
      let eusOptIn: { optedIn: boolean; provider: string } | null = null;
      let from = input.from?.trim() ?? '';
      if (input.clusterName) {
        const org = await scope();
        const row = org && (await findClusterByName(db, input.clusterName, org.id));
        if (!row)
          throw new AppError('NOT_FOUND', `No cluster named ${input.clusterName}`, [{ path: 'clusterName', message: 'unknown cluster' }]);
        cluster = { name: row.name, version: row.version, channel: row.channel, nodeCount: row.nodeCount };
        facts = row.inhibitors;
        from = row.version;
        const lifecycle = (row.upgradePolicy as { lifecycle?: unknown } | null)?.lifecycle;
        eusOptIn = {
          optedIn: lifecycle != null && parseLifecycleOptions(lifecycle, 'lifecycle').options.eusControlPlaneOnly !== null,
          provider: org.providerKind ?? getEnv().provider.name,
        };
      }
      if (!from) throw new AppError('INVALID_INPUT', 'Give a source version or a cluster', [{ path: 'from', message: 'required' }]);
      if (normalizeVersion(from) === null) {
        throw new AppError('INVALID_INPUT', `${from} is not a version (MAJOR.MINOR.PATCH)`, [{ path: 'from', message: 'not SemVer' }]);
      }
      if (input.to && normalizeVersion(input.to) === null) {
        throw new AppError('INVALID_INPUT', `${input.to} is not a version (MAJOR.MINOR.PATCH)`, [{ path: 'to', message: 'not SemVer' }]);
      }
      const channel = input.channel || null;
      const answer: PathAnswer = solveUpgradePath(index, { from, to: input.to || null, channel, allowConditional: input.allowConditional });
      const controlPlaneNodes = input.controlPlaneNodes ?? CONTROL_PLANE_NODES;
      const workerNodes = input.workerNodes ?? (cluster ? Math.max(0, cluster.nodeCount - controlPlaneNodes) : 3);
      const architectures = [...new Set(graphs.map((g) => g.architecture))];

      let found: {
        skew: VersionSkewReport;
        duration: DurationEstimate;
        runbook: Runbook;
        imageset: ImageSetResult;
        mirrorText: string;
        mirrorJson: string;
      } | null = null;
      if (isPathFound(answer)) {
        const runbook = buildRunbook({ path: answer.path, channel, risks: answer.risks });
        found = {
          skew: checkVersionSkew({ path: answer.path }),
          duration: estimateUpdateDuration({ path: answer.path, controlPlaneNodes, workerNodes, workersPaused: runbook.pausesWorkers }),
          runbook,
          imageset: renderImageSet(index, answer, { channel, architectures: architectures.length === 1 ? architectures : undefined }),
          mirrorText: renderMirrorList(answer.releases, 'text'),
          mirrorJson: renderMirrorList(answer.releases, 'json'),
        };
      }
      const highlight = answer.path ?? answer.conditionalPath ?? [];
      // Releases of the conditional path too, so the page can show what taking it would mirror.
      const releases: PathRelease[] = highlight.map((v) => {
        const id = index.idOf.get(v);
        return { version: v, payload: id === undefined ? '' : (index.payloads[id] as string) };
      });
      const risks: readonly HopRisks[] = answer.risks;
      return {
        answer,
        cluster,
        highlight,
        releases,
        risks,
        sourceChannels: channelsContaining(index, answer.from),
        targetChannels: answer.to ? channelsContaining(index, answer.to) : [],
        // a version the graphs do not hold is not an EUS channel that lags behind it
        eusHint:
          answer.path === null && answer.reason === 'SOURCE_NOT_IN_CHANNEL' && index.idOf.has(answer.from)
            ? eusLagHint(index, channel, answer.from)
            : null,
        warnings: pathWarnings(index, { from: answer.from, to: answer.to, channel }, graphs, now().getTime()),
        nodes: { workers: workerNodes, controlPlane: controlPlaneNodes },
        skew: found?.skew ?? null,
        duration: found?.duration ?? null,
        runbook: found?.runbook ?? null,
        imageset: found?.imageset ?? null,
        mirrorList: found ? { text: found.mirrorText, json: found.mirrorJson } : null,
        // for a chosen cluster: what its operators and removed-API use would hold at each hop (the scheduler's rule)
        hopInhibitors:
          cluster && answer.path
            ? {
                reported: facts !== null,
                hops: answer.path.slice(1).map((to, i) => ({
                  from: answer.path[i]!,
                  to,
                  inhibitors: facts ? upgradeInhibitors(facts, answer.path[i]!, to) : [],
                })),
              }
            : null,
        // for a chosen cluster: whether fleetplan runs this path as one EUS-to-EUS control-plane-only run
        // (the channel its first hop switches to, as the engine's route-following picks it)
        eusRun:
          cluster && eusOptIn && answer.path && answer.path.length > 1
            ? eusRunOfRoute(
                answer.path,
                channelForHop(index.channels[index.idOf.get(answer.path[1]!)!] ?? [], answer.path[1]!, cluster.channel) ?? cluster.channel,
                eusOptIn.optedIn,
                eusOptIn.provider,
              )
            : null,
        graphs: graphs.map((g) => g.name),
      };
    },

    /** A compact graph for drawing around a path (see `buildGraphView`). */
    async graphView(input: GraphViewInput): Promise<GraphView> {
      const loaded = await loadIndex();
      return loaded ? buildGraphView(loaded.index, input) : emptyGraphView();
    },
  };
}

export type GraphService = ReturnType<typeof createGraphService>;
