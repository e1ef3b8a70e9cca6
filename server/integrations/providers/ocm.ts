/**
 * OpenShift Cluster Manager (OCM) provider, over its REST API with a bearer token.
 *
 * Request shapes relied on (api.openshift.com clusters_mgmt v1 model, as the upgrade service
 * uses them; see tests/fakes/PROVENANCE.md):
 * - `GET  /api/clusters_mgmt/v1/clusters?page=N&size=100[&search=...]` →
 *   `{kind: "ClusterList", page, size, total, items: [{id, name, state, version: {raw_id, channel_group, available_upgrades}}]}`
 * - `GET  /api/clusters_mgmt/v1/clusters/{id}/upgrade_policies` → `{items: [{id, version, schedule_type, next_run, upgrade_type}]}`
 * - `GET  /api/clusters_mgmt/v1/clusters/{id}/upgrade_policies/{policy}/state` →
 *   `{value: "pending"|"scheduled"|"started"|"delayed"|"failed"|"completed"|"cancelled", description}`
 * - `POST /api/clusters_mgmt/v1/clusters/{id}/upgrade_policies` body `{version, schedule_type: "manual", next_run, upgrade_type: "OSD"}`;
 *   OCM refuses a `next_run` less than 5 minutes ahead (the upgrade service keeps 6).
 * - `DELETE /api/clusters_mgmt/v1/clusters/{id}/upgrade_policies/{policy}`
 * - hosted control planes (`hypershift.enabled`): the same under `/clusters/{id}/control_plane/upgrade_policies`,
 *   each policy with its `state` inline, created with `upgrade_type: "ControlPlane"` (as the upgrade
 *   service does: qontract-reconcile `reconcile/utils/ocm/upgrades.py`)
 * - `GET  /api/accounts_mgmt/v1/subscriptions?page=N&size=100&fetchLabels=true&search=id in ('…')` →
 *   `{kind: "SubscriptionList", items: [{id, cluster_id, labels: [{key, value, internal}]}]}`: the labels of
 *   the clusters' subscriptions (`cluster.subscription.id`), one search per page of clusters
 * - `GET  /api/clusters_mgmt/v1/version_gates` → `{items: [{id, version_raw_id_prefix, label, description,
 *   warning_message, documentation_url, sts_only}]}` and `GET|POST /clusters/{id}/gate_agreements`
 *   (`{items: [{id, version_gate: {id, …}, agreed_timestamp}]}`, POST body `{version_gate: {id}}`)
 * OCM removes a policy when its upgrade finishes. Policy lists are paged like the cluster list.
 *
 * A cluster with an automatic (recurring) policy set by its owner in OCM upgrades on OCM's
 * schedule, and fleetplan must not fight it: when the policy names the version of its next run,
 * that is the cluster's current upgrade (with the policy's schedule as its message), so the
 * lifecycle sees an upgrade under way and starts nothing else; when it names none yet, the
 * cluster is a read error (PROVIDER_ERROR: nothing is started on it) saying why. Either way
 * startUpgrade refuses it without a request.
 *
 * A start OCM refuses (4xx) is not sent again for the same cluster, whatever the version, until a
 * back-off (5, 10, 20, 40, 60 minutes) has passed: a stuck cluster must not be POSTed every tick.
 * The provider is built anew for every tick, so the refusals are kept in a `refusals` store (the
 * database, see ocm-refusal-repository) and not in the provider.
 *
 * Consistency of a snapshot: every cluster's policies (and their states) are read BEFORE the
 * cluster list whose versions the snapshot reports. An upgrade that completes in between shows
 * as a policy that is gone (or `completed`) together with the new version — completed — and
 * never as an old version without its policy, which would read as "removed at the provider".
 * A running policy whose target the cluster already reports is completed too.
 */
import { MIN_LEAD_MS } from '@/server/domain/plan/decide-upgrades';
import { formatInstantToSecond } from '@/server/domain/plan/time';
import { z } from 'zod';
import { compareVersions, isSemver, minorLabel } from '@/server/domain/version/version';
import { httpJson } from './http-json';
import { createOcmTokenSource, type OcmAuth } from './ocm-auth';
import { errorMessage, mapSettled } from './map-settled';
import type {
  ClusterDiscovery,
  ClusterRef,
  ClusterSnapshot,
  FinishedUpgrade,
  FleetProvider,
  FleetSnapshot,
  HealthReading,
  PendingVersionGate,
  ProviderUpgrade,
} from './types';
import { ProviderError } from './types';
import { summarizeHealth } from './health-reading';
import { chunksOf } from '@/lib/chunks-of';

const API = '/api/clusters_mgmt/v1';
/** OCM (ClusterService) refuses an upgrade policy whose next_run is less than this far ahead. */
export const OCM_MIN_LEAD_MS = 5 * 60_000;
/**
 * The notice fleetplan gives OCM: the engine's own lead (6 minutes, as AUS gives), OCM's minimum
 * plus a minute for the request to reach OCM after the tick that decided it. A start whose slot is
 * nearer (its tick came late) moves to now + this; with no minute to spare OCM refused every such
 * start. A slot planned at a tick is never moved at that tick. A start that misses it anyway
 * (replayed after a crash) is refused here, unsent, and the next tick issues it with a new next_run.
 */
export const OCM_START_NOTICE_MS = MIN_LEAD_MS;
/** startUpgrade is called this long before the slot: the minimum lead plus room for a late tick. */
export const OCM_START_LEAD_MS = 10 * 60_000;
const PAGE_SIZE = 100;
const READ_CONCURRENCY = 8;
/** the first wait after OCM refused a start, doubled per refusal up to the maximum */
export const OCM_REFUSAL_BACKOFF_MS = 5 * 60_000;
export const OCM_REFUSAL_BACKOFF_MAX_MS = 60 * 60_000;
/** the OCM search expression of one subscription query names at most this many subscriptions */
const SUBSCRIPTIONS_PER_SEARCH = 100;

/** OCM refused starts for one cluster: when the next POST may be sent (ms). */
export interface OcmRefusal {
  refusals: number;
  notBefore: number;
  /** what OCM answered last, and for which version */
  reason: string;
  version: string;
}

/** Where the refusals are kept between ticks (the provider itself lives for one tick). */
export interface OcmRefusalStore {
  get(externalId: string): Promise<OcmRefusal | undefined>;
  set(externalId: string, refusal: OcmRefusal): Promise<void>;
  clear(externalId: string): Promise<void>;
}

/** A store for one provider object (tests, a process without a database). */
export function createMemoryRefusalStore(): OcmRefusalStore {
  const byCluster = new Map<string, OcmRefusal>();
  return {
    get: (id) => Promise.resolve(byCluster.get(id)),
    set: (id, r) => Promise.resolve(void byCluster.set(id, r)),
    clear: (id) => Promise.resolve(void byCluster.delete(id)),
  };
}

/** The wait after the `refusals`-th refusal in a row: 5, 10, 20, 40 then 60 minutes. */
export function refusalBackoffMs(refusals: number): number {
  return Math.min(OCM_REFUSAL_BACKOFF_MS * 2 ** Math.max(0, refusals - 1), OCM_REFUSAL_BACKOFF_MAX_MS);
}

/** an OCM list (`kind: …List`): its items and how many there are in all (see getAll) */
const listOf = <T extends z.ZodType>(item: T) => z.object({ items: z.array(item).nullish(), total: z.number().optional() });

const ZNodeCounts = z.object({ compute: z.number().optional(), master: z.number().optional(), infra: z.number().optional() });
const ZCluster = z.object({
  id: z.string(),
  name: z.string(),
  state: z.string().optional(),
  channel: z.string().optional(),
  hypershift: z.object({ enabled: z.boolean().optional() }).nullish(),
  /** STS clusters (and every hosted control plane) also need the `sts_only` version gates */
  aws: z.object({ sts: z.object({ enabled: z.boolean().optional() }).nullish() }).nullish(),
  subscription: z.object({ id: z.string() }).nullish(),
  cloud_provider: z.object({ id: z.string() }).nullish(),
  region: z.object({ id: z.string() }).nullish(),
  /** the nodes asked for (ClusterNodes); `metrics.nodes` are those running (ClusterMetricsNodes) */
  nodes: ZNodeCounts.nullish(),
  metrics: z.object({ nodes: ZNodeCounts.extend({ total: z.number().optional() }).nullish() }).nullish(),
  version: z
    .object({
      raw_id: z.string().optional(),
      id: z.string().optional(),
      channel_group: z.string().optional(),
      available_upgrades: z.array(z.string()).nullish(),
    })
    .optional(),
});
type OcmCluster = z.infer<typeof ZCluster>;
const ZClusterList = z.object({
  items: z.array(ZCluster).nullish(),
  page: z.number().optional(),
  size: z.number().optional(),
  total: z.number().optional(),
});
const ZPolicyState = z.object({ value: z.string(), description: z.string().optional() });
const ZPolicy = z.object({
  id: z.string(),
  version: z.string().optional(),
  schedule_type: z.string().optional(),
  schedule: z.string().optional(),
  next_run: z.string().optional(),
  upgrade_type: z.string().optional(),
  /** inline on control-plane policies; classic ones have a `/state` sub-resource */
  state: ZPolicyState.optional(),
});
const ZPolicyList = listOf(ZPolicy);
const ZSubscription = z.object({
  id: z.string(),
  labels: z.array(z.object({ key: z.string(), value: z.string(), internal: z.boolean().optional() })).nullish(),
});
const ZSubscriptionList = listOf(ZSubscription);
const ZVersionGate = z.object({
  id: z.string(),
  version_raw_id_prefix: z.string(),
  label: z.string().optional(),
  description: z.string().optional(),
  warning_message: z.string().optional(),
  documentation_url: z.string().optional(),
  sts_only: z.boolean().optional(),
});
type OcmVersionGate = z.infer<typeof ZVersionGate>;
const ZVersionGateList = listOf(ZVersionGate);
const ZGateAgreementList = listOf(z.object({ id: z.string().optional(), version_gate: z.object({ id: z.string() }) }));

export interface OcmProviderOptions {
  baseUrl: string;
  /** how to authenticate; `token` alone is a fixed bearer token */
  auth?: OcmAuth;
  token?: string;
  /** OCM search expression, e.g. `organization.id='...' and managed='true'` */
  search?: string;
  /** where refused starts are remembered between ticks (default: for this provider object only) */
  refusals?: OcmRefusalStore;
}

/** An OCM search string literal: single quotes doubled, as OCM's search language (SQL-like) reads them. */
function quoted(value: string): string {
  return `'${value.replace(/'/g, "''")}'`;
}

/** Nodes running (metrics), else those asked for; null when OCM says neither (e.g. autoscaled compute not yet reported). */
function nodeCountOf(c: OcmCluster): number | null {
  const running = c.metrics?.nodes;
  if (running?.total !== undefined && running.total > 0) return Math.round(running.total);
  const sum = (n: z.infer<typeof ZNodeCounts> | null | undefined) =>
    n && n.compute !== undefined ? n.compute + (n.master ?? 0) + (n.infra ?? 0) : null;
  return sum(running) || sum(c.nodes);
}

/** The cluster's discovery metadata; `labels` null when its subscription could not be read this time. */
function discoveryOf(c: OcmCluster, labels: Record<string, string> | undefined): ClusterDiscovery | undefined {
  // without the labels the snapshot says nothing rather than "no labels" (which would erase them)
  if (labels === undefined) return undefined;
  return { labels, cloud: c.cloud_provider?.id ?? null, region: c.region?.id ?? null, nodeCount: nodeCountOf(c) };
}

/** Gates that apply to the cluster for an upgrade to `minor` (sts_only ones only to STS clusters). */
function gatesFor(c: OcmCluster, minor: string, gates: readonly OcmVersionGate[]): OcmVersionGate[] {
  const sts = isHostedControlPlane(c) || c.aws?.sts?.enabled === true;
  return gates.filter((g) => g.version_raw_id_prefix === minor && (!g.sts_only || sts));
}

function pendingGateOf(g: OcmVersionGate): PendingVersionGate {
  return {
    id: g.id,
    minor: g.version_raw_id_prefix,
    description: g.description || g.warning_message || g.label || `version gate ${g.id}`,
    documentationUrl: g.documentation_url || null,
  };
}

function isHostedControlPlane(c: OcmCluster): boolean {
  return c.hypershift?.enabled === true;
}

function versionOf(c: OcmCluster): string {
  return c.version?.raw_id ?? c.version?.id?.replace(/^openshift-v/, '') ?? '0.0.0';
}

function channelOf(c: OcmCluster, version: string): string {
  if (c.channel) return c.channel;
  const minor = version.split('.').slice(0, 2).join('.');
  return `${c.version?.channel_group ?? 'stable'}-${minor}`;
}

function reached(version: string, target: string): boolean {
  return isSemver(version) && isSemver(target) && compareVersions(version, target) >= 0;
}

/** What a cluster's upgrade policies say, read before its version. */
interface PolicyReading {
  /** the policy of an upgrade not finished (pending, scheduled, started, delayed) */
  active: { id: string; version: string; nextRun: string; value: string; description?: string } | null;
  /** a policy OCM reports finished but has not removed yet */
  finished: { version: string; value: 'completed' | 'failed'; nextRun: string; description?: string } | null;
  /** the owner's recurring policy, when there is one: OCM schedules the cluster's upgrades */
  automatic: { schedule: string | null } | null;
}

/** What one read of the fleet shares between its clusters (fetched at most once per read). */
interface ReadContext {
  gates: () => Promise<OcmVersionGate[]>;
}

function automaticMessage(cluster: OcmCluster, schedule: string | null): string {
  return (
    `${cluster.name} has an automatic upgrade policy in OCM${schedule ? ` (schedule '${schedule}')` : ''}: ` +
    'it upgrades on its own schedule, so fleetplan leaves it alone; remove that policy in OCM to let fleetplan plan its upgrades'
  );
}

export function createOcmProvider(opts: OcmProviderOptions): FleetProvider {
  const base = opts.baseUrl.replace(/\/$/, '');
  const auth: OcmAuth | undefined = opts.auth ?? (opts.token !== undefined ? { kind: 'bearer', token: opts.token } : undefined);
  if (!auth) throw new ProviderError('ocm', 'no OCM credentials: a token, an offline token or a service account');
  const tokens = createOcmTokenSource(auth);
  const clusterPath = (id: string) => `${API}/clusters/${encodeURIComponent(id)}`;
  const policiesPath = (c: OcmCluster) => `${clusterPath(c.id)}/${isHostedControlPlane(c) ? 'control_plane/' : ''}upgrade_policies`;
  const refused = opts.refusals ?? createMemoryRefusalStore();

  /** one request; a 401 fetches a new access token once (an expired or revoked one) */
  const call = async <T>(path: string, init: { method?: 'GET' | 'POST' | 'DELETE'; body?: unknown } = {}) => {
    let used = '';
    const send = async () => httpJson<T>(`${base}${path}`, { ...init, token: (used = await tokens.token()), provider: 'ocm' });
    try {
      return await send();
    } catch (err) {
      if (err instanceof ProviderError && err.status === 401 && tokens.invalidate(used)) return send();
      throw err;
    }
  };
  const get = async <T>(path: string, schema: z.ZodType<T>): Promise<T> => {
    const parsed = schema.safeParse((await call<unknown>(path)).body);
    if (!parsed.success)
      throw new ProviderError('ocm', `unexpected response from ${path}: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
    return parsed.data;
  };
  /** every item of an OCM list (`page`, `size`, `total`), page by page */
  const getAll = async <I>(
    path: string,
    params: Record<string, string>,
    schema: z.ZodType<{ items?: I[] | null; total?: number }>,
  ): Promise<I[]> => {
    const items: I[] = [];
    for (let page = 1; page < 10_000; page++) {
      const list = await get(`${path}?${new URLSearchParams({ ...params, page: String(page), size: String(PAGE_SIZE) })}`, schema);
      const got = list.items ?? [];
      items.push(...got);
      if (got.length < PAGE_SIZE || (list.total !== undefined && items.length >= list.total)) break;
    }
    return items;
  };
  const readCluster = (id: string) => get(clusterPath(id), ZCluster);
  const readPolicies = async (cluster: OcmCluster): Promise<PolicyReading> => {
    const items = await getAll(policiesPath(cluster), {}, ZPolicyList);
    const reading: PolicyReading = { active: null, finished: null, automatic: null };
    for (const p of items) {
      const automatic = p.schedule_type !== undefined && p.schedule_type !== 'manual';
      if (automatic) reading.automatic = { schedule: p.schedule ?? null };
      if (!p.version || !isSemver(p.version) || !p.next_run) continue; // an automatic policy before OCM scheduled its next run
      let state: z.infer<typeof ZPolicyState>;
      if (p.state) state = p.state;
      else
        try {
          state = await get(`${policiesPath(cluster)}/${encodeURIComponent(p.id)}/state`, ZPolicyState);
        } catch (err) {
          if (err instanceof ProviderError && err.status === 404) continue; // removed since the list: the cluster read after tells why
          throw err;
        }
      const nextRun = formatInstantToSecond(new Date(p.next_run));
      const description = automatic ? automaticMessage(cluster, p.schedule ?? null) : state.description || undefined;
      if (state.value === 'completed' || state.value === 'failed')
        reading.finished = { version: p.version, value: state.value, nextRun, ...(description ? { description } : {}) };
      else if (state.value !== 'cancelled' && !reading.active)
        reading.active = { id: p.id, version: p.version, nextRun, value: state.value, ...(description ? { description } : {}) };
    }
    return reading;
  };
  const listAll = (): Promise<OcmCluster[]> => getAll(`${API}/clusters`, opts.search ? { search: opts.search } : {}, ZClusterList);
  /**
   * The labels of the clusters' subscriptions, by subscription id; a subscription search that
   * fails leaves its clusters without discovery this time (discovery is not worth a read error).
   */
  const readLabels = async (clusters: readonly OcmCluster[]): Promise<Map<string, Record<string, string>>> => {
    const ids = [...new Set(clusters.flatMap((c) => (c.subscription?.id ? [c.subscription.id] : [])))];
    const chunks = chunksOf(ids, SUBSCRIPTIONS_PER_SEARCH);
    const labels = new Map<string, Record<string, string>>();
    const read = await mapSettled(chunks, READ_CONCURRENCY, (chunk) =>
      getAll(
        '/api/accounts_mgmt/v1/subscriptions',
        { fetchLabels: 'true', search: `id in (${chunk.map(quoted).join(', ')})` },
        ZSubscriptionList,
      ),
    );
    for (const r of read)
      if (r.status === 'fulfilled')
        for (const sub of r.value)
          labels.set(
            sub.id,
            // internal labels are Red Hat's own bookkeeping, not the owner's
            Object.fromEntries((sub.labels ?? []).filter((l) => !l.internal).map((l) => [l.key, l.value])),
          );
    return labels;
  };
  const readGates = () => getAll(`${API}/version_gates`, {}, ZVersionGateList);
  const newReadContext = (): ReadContext => {
    let gates: Promise<OcmVersionGate[]> | undefined;
    return { gates: () => (gates ??= readGates()) };
  };
  const readAgreedGateIds = async (cluster: OcmCluster): Promise<Set<string>> =>
    new Set((await getAll(`${clusterPath(cluster.id)}/gate_agreements`, {}, ZGateAgreementList)).map((a) => a.version_gate.id));
  /**
   * The gates the cluster has not agreed to for the minors it is offered beyond its own. The
   * agreements are read only for a cluster some gate applies to (most clusters, most of the time,
   * are offered no gated minor).
   */
  const readPendingGates = async (cluster: OcmCluster, ctx: ReadContext): Promise<PendingVersionGate[]> => {
    const own = minorLabel(versionOf(cluster));
    const minors = new Set((cluster.version?.available_upgrades ?? []).map(minorLabel).filter((m): m is string => m !== null && m !== own));
    if (minors.size === 0) return [];
    const gates = await ctx.gates();
    const applicable = [...minors].sort().flatMap((m) => gatesFor(cluster, m, gates));
    if (applicable.length === 0) return [];
    const agreed = await readAgreedGateIds(cluster);
    return applicable.filter((g) => !agreed.has(g.id)).map(pendingGateOf);
  };
  const snapshotOf = (c: OcmCluster, policies: PolicyReading, pendingGates: PendingVersionGate[], discovery?: ClusterDiscovery) => {
    const version = versionOf(c);
    const ready = (c.state ?? 'ready') === 'ready';
    const health: HealthReading = { operators: [], alerts: null, other: ready ? [] : [`cluster state is ${c.state}`] };
    let currentUpgrade: ProviderUpgrade | null = null;
    let lastUpgrade: FinishedUpgrade | null = null;
    const a = policies.active;
    if (a && !reached(version, a.version)) {
      const running = a.value === 'started' || a.value === 'delayed';
      currentUpgrade = {
        version: a.version,
        nextRun: a.nextRun,
        state: running ? 'started' : 'scheduled',
        ...(running ? { startedAt: a.nextRun } : {}),
        ...(a.value === 'delayed' ? { delayed: true } : {}),
        ...(a.description ? { message: a.description } : {}),
      };
    } else if (a) {
      lastUpgrade = { version: a.version, state: 'completed', startedAt: a.nextRun }; // finished between the two reads
    }
    const f = policies.finished;
    if (!lastUpgrade && f)
      lastUpgrade =
        f.value === 'failed' && !reached(version, f.version)
          ? {
              version: f.version,
              state: 'failed',
              startedAt: f.nextRun,
              message: f.description ?? 'upgrade failed (no description from OCM)',
            }
          : { version: f.version, state: 'completed', startedAt: f.nextRun };
    const snapshot: ClusterSnapshot = {
      externalId: c.id,
      name: c.name,
      version,
      channel: channelOf(c, version),
      availableUpgrades: c.version?.available_upgrades ?? [],
      conditionalUpgrades: [],
      upgradeable: null,
      health,
      ...summarizeHealth(health),
      currentUpgrade,
      lastUpgrade,
      pendingVersionGates: pendingGates,
      ...(discovery ? { discovery } : {}),
    };
    return snapshot;
  };
  /** Everything about one cluster that is read before its version (see the consistency note above). */
  const readBeforeVersion = async (c: OcmCluster, ctx: ReadContext) => {
    const policies = await readPolicies(c);
    // an automatic policy with no upgrade of its own to show: nothing tells the lifecycle to keep
    // off the cluster but an error for it (nothing starts on a cluster the provider could not read)
    if (policies.automatic && !policies.active) throw new ProviderError('ocm', automaticMessage(c, policies.automatic.schedule));
    return { policies, pendingGates: await readPendingGates(c, ctx) };
  };
  return {
    name: 'ocm',
    startLeadMs: OCM_START_LEAD_MS,
    minStartNoticeMs: OCM_START_NOTICE_MS,
    async probe(_now, sample) {
      const params = { ...(opts.search ? { search: opts.search } : {}), page: '1', size: String(Math.max(1, sample)) };
      const list = await get(`${API}/clusters?${new URLSearchParams(params)}`, ZClusterList);
      const items = list.items ?? [];
      return { clusters: list.total ?? items.length, sample: items.slice(0, sample).map((c) => c.name) };
    },
    async observe(): Promise<FleetSnapshot> {
      const ctx = newReadContext();
      const known = await listAll();
      const [before, labels] = await Promise.all([
        mapSettled(known, READ_CONCURRENCY, (c) => readBeforeVersion(c, ctx)),
        readLabels(known),
      ]);
      // read again after the policies: the versions reported are at least as new as the policies
      const fresh = new Map((await listAll()).map((c) => [c.id, c]));
      const snapshot: FleetSnapshot = { clusters: [], errors: [] };
      known.forEach((first, i) => {
        const p = before[i]!;
        const c = fresh.get(first.id);
        if (p.status === 'rejected') snapshot.errors.push({ externalId: first.id, name: first.name, message: errorMessage(p.reason) });
        else if (c)
          snapshot.clusters.push(
            snapshotOf(c, p.value.policies, p.value.pendingGates, discoveryOf(c, c.subscription ? labels.get(c.subscription.id) : {})),
          );
        // a cluster gone from the second list was deleted meanwhile: not reported, as if read after
      });
      for (const c of fresh.values())
        if (!known.some((k) => k.id === c.id))
          snapshot.errors.push({ externalId: c.id, name: c.name, message: 'appeared during the read; read next time' });
      return snapshot;
    },
    async observeCluster(ref: ClusterRef) {
      // the kind of cluster says where its policies are; its version is read after them (see
      // above). No discovery: the start-time gates do not read it, and absent keeps what is stored.
      const { policies, pendingGates } = await readBeforeVersion(await readCluster(ref.externalId), newReadContext());
      return snapshotOf(await readCluster(ref.externalId), policies, pendingGates);
    },
    async startUpgrade(req, now) {
      // next_run has whole seconds: rounded up, never before the start the lifecycle planned
      const nextRun = formatInstantToSecond(Math.ceil(req.at.getTime() / 1000) * 1000);
      const backoff = await refused.get(req.externalId);
      if (backoff && now.getTime() < backoff.notBefore)
        throw new ProviderError(
          'ocm',
          `${req.name}: OCM refused ${backoff.refusals} start(s) in a row (last: the upgrade to ${backoff.version}: ${backoff.reason}); ` +
            `fleetplan backs off and sends no upgrade for this cluster before ${formatInstantToSecond(new Date(backoff.notBefore))}`,
        );
      const cluster = await readCluster(req.externalId);
      const reading = await readPolicies(cluster);
      if (reading.automatic) throw new ProviderError('ocm', automaticMessage(cluster, reading.automatic.schedule));
      const existing = reading.active;
      // already there (a start sent before a crash, replayed): done, however late the replay
      if (existing?.version === req.version) return;
      if (existing) throw new ProviderError('ocm', `cluster ${req.name} already has an upgrade policy to ${existing.version}`);
      if (Date.parse(nextRun) < now.getTime() + OCM_MIN_LEAD_MS)
        throw new ProviderError(
          'ocm',
          `${req.name}: next_run ${nextRun} is less than ${OCM_MIN_LEAD_MS / 60_000} minutes ahead, which OCM refuses; plan a later start`,
        );
      try {
        await call(policiesPath(cluster), {
          method: 'POST',
          body: {
            kind: isHostedControlPlane(cluster) ? 'ControlPlaneUpgradePolicy' : 'UpgradePolicy',
            version: req.version,
            schedule_type: 'manual',
            upgrade_type: isHostedControlPlane(cluster) ? 'ControlPlane' : 'OSD',
            next_run: nextRun,
          },
        });
        if (backoff) await refused.clear(req.externalId);
      } catch (err) {
        // a refusal (4xx but an expired token) holds the cluster back; a 5xx or a network error is OCM's, not the request's
        if (err instanceof ProviderError && err.status !== undefined && err.status >= 400 && err.status < 500 && err.status !== 401) {
          const refusals = (backoff?.refusals ?? 0) + 1;
          const notBefore = now.getTime() + refusalBackoffMs(refusals);
          await refused.set(req.externalId, { refusals, notBefore, reason: err.message, version: req.version });
          throw new ProviderError(
            'ocm',
            `${err.message} (refusal ${refusals} in a row: no upgrade is sent for ${req.name} before ${formatInstantToSecond(new Date(notBefore))})`,
            err.status,
          );
        }
        throw err;
      }
    },
    async cancelUpgrade(req) {
      const cluster = await readCluster(req.externalId);
      const reading = await readPolicies(cluster);
      // the owner's automatic policy is never ours to withdraw
      const existing = reading.automatic ? null : reading.active;
      if (!existing || existing.version !== req.version || (existing.value !== 'scheduled' && existing.value !== 'pending')) return;
      await call(`${policiesPath(cluster)}/${encodeURIComponent(existing.id)}`, { method: 'DELETE' });
    },
    /**
     * OCM keeps a cluster's minor channel itself: the cluster has a channel group (stable, fast,
     * candidate, eus) and OCM sets the in-cluster channel of the target's minor before an upgrade
     * it runs (openshift/managed-cluster-config deploy/osd-channel-patch). So a hop whose channel
     * is of the cluster's group needs no write ('already-set'); another group (stable → eus) is the
     * cluster owner's change in OCM (it is refused while upgrade policies exist), never fleetplan's.
     */
    async setChannel(ref, channel) {
      const cluster = await readCluster(ref.externalId);
      const group = cluster.version?.channel_group ?? 'stable';
      const wanted = /^([a-z]+)-\d+\.\d+$/.exec(channel)?.[1] ?? channel;
      if (wanted === group) return 'already-set';
      throw new ProviderError(
        'ocm',
        `${ref.name} is in OCM's ${group} channel group; ${channel} needs the ${wanted} group, which the cluster's owner changes in OCM (fleetplan does not)`,
      );
    },
    async acknowledgeVersionGate(ref, gateId) {
      const cluster = await readCluster(ref.externalId);
      const gate = (await readGates()).find((g) => g.id === gateId);
      if (!gate) throw new ProviderError('ocm', `OCM has no version gate ${gateId}`, 404);
      // exactly once: an agreement already there (another fleetplan, the OCM console) is not posted again
      if ((await readAgreedGateIds(cluster)).has(gateId)) return 'already-agreed';
      await call(`${clusterPath(cluster.id)}/gate_agreements`, { method: 'POST', body: { version_gate: { id: gateId } } });
      return 'agreed';
    },
  };
}
