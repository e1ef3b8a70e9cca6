/**
 * A fake OpenShift Cluster Manager (clusters_mgmt v1) over real HTTP (loopback):
 * - `GET    /api/clusters_mgmt/v1/clusters?page=&size=` (paged ClusterList; `search` is not evaluated)
 * - `GET    /api/clusters_mgmt/v1/clusters/{id}`
 * - `GET    /api/clusters_mgmt/v1/clusters/{id}/upgrade_policies` (UpgradePolicyList)
 * - `POST   /api/clusters_mgmt/v1/clusters/{id}/upgrade_policies`: refused (400) when next_run is
 *   less than 5 minutes ahead (as ClusterService does), when the version is not an available
 *   upgrade, or when the cluster already has a policy; a new policy is `pending`, `scheduled` once read
 * - `GET    /api/clusters_mgmt/v1/clusters/{id}/upgrade_policies/{policy}` and `/state`
 *   (UpgradePolicyState: pending | scheduled | started | delayed | failed | completed | cancelled)
 * - `DELETE /api/clusters_mgmt/v1/clusters/{id}/upgrade_policies/{policy}` (refused once started)
 * - hosted control planes (`hypershift.enabled`): the same under `/clusters/{id}/control_plane/upgrade_policies`
 *   with the state inline (`ControlPlaneUpgradePolicy.state`), `upgrade_type: "ControlPlane"`; the
 *   classic path answers 400 for such a cluster
 * - policy lists are paged like every OCM list (`page`, `size`, `total`)
 * - `automaticPolicy`: a recurring policy (`schedule_type: "automatic"`, a cron `schedule`) set by
 *   the cluster's owner in OCM
 * - `GET    /api/accounts_mgmt/v1/subscriptions?fetchLabels=true&search=id in ('…', …)` (SubscriptionList,
 *   paged, each subscription with its `labels`; only the `id in (…)` search is evaluated) — the
 *   clusters carry `subscription`, `cloud_provider`, `region`, `nodes` and `metrics.nodes`
 * - `GET    /api/clusters_mgmt/v1/version_gates` (VersionGateList, paged) and
 *   `GET|POST /api/clusters_mgmt/v1/clusters/{id}/gate_agreements` (VersionGateAgreementList; POST
 *   `{version_gate: {id}}`, refused (400) for an unknown gate or one already agreed)
 * - `POST /_sso/token` (form-encoded): Red Hat SSO's token endpoint for an offline token
 *   (`grant_type=refresh_token`, `client_id=cloud-services`) or a service account
 *   (`grant_type=client_credentials`); the API then takes the static token or any unexpired access
 *   token it issued (`accessTokenTtlSeconds`)
 * A scheduled policy is `started` from its next_run on (the fake's clock). Scripting (in process,
 * or `POST /_fake/clusters/{id}/{action}` standalone): complete (the cluster takes the version
 * and, as OCM does for manual policies, the policy is removed), fail with a description, delay,
 * cancel, answer 500 on one cluster's policies, publish a new release in the cluster's channel, and
 * a hook run between requests to interleave events with a reader. Every write (POST, DELETE) is
 * counted per cluster; `onWrite` runs once a write is accepted, before it is answered (the crash
 * test kills the server there).
 */
import fs from 'node:fs';
import path from 'node:path';
import { bearer, serveJson, type FakeRequest, type FakeResponse, type RunningFake } from './http-server';

const FIXTURES = path.join(__dirname, 'fixtures');
const API = '/api/clusters_mgmt/v1';
/** ClusterService refuses an upgrade policy whose next_run is less than this far ahead */
export const FAKE_OCM_MIN_LEAD_MS = 5 * 60_000;

export type PolicyStateValue = 'pending' | 'scheduled' | 'started' | 'delayed' | 'failed' | 'completed' | 'cancelled';

export interface FakeOcmClusterSpec {
  id: string;
  name: string;
  version: string;
  channelGroup?: string;
  /** every release of the channel; those newer than the cluster's version are available upgrades */
  releases: string[];
  state?: string;
  /** a hosted control plane: upgrade policies live under `control_plane/` */
  hypershift?: boolean;
  /** a recurring policy the owner set in OCM (cron schedule); `version`: the upgrade OCM scheduled for its next run */
  automaticPolicy?: { schedule: string; version?: string };
  /** the subscription's labels (accounts_mgmt) */
  labels?: Record<string, string>;
  /** `cloud_provider.id` (default aws) and `region.id` (default us-east-1) */
  cloud?: string;
  region?: string;
  /** ClusterNodes asked for (default compute 3, master 3, infra 2; hosted: compute only) */
  nodes?: { compute: number; master?: number; infra?: number };
  /** ClusterMetricsNodes: the nodes running, when OCM has metrics for the cluster */
  metricsNodes?: { compute: number; master?: number; infra?: number; total: number };
  /** `aws.sts.enabled` (hosted control planes are always STS) */
  sts?: boolean;
  /** ids of the version gates the cluster already agreed to */
  agreedGates?: string[];
}

/** A version gate (clusters_mgmt VersionGate) */
export interface FakeVersionGate {
  id: string;
  version_raw_id_prefix: string;
  label: string;
  value?: string;
  description: string;
  warning_message?: string;
  documentation_url?: string;
  sts_only: boolean;
}

interface Policy {
  id: string;
  version: string;
  next_run: string;
  schedule_type: string;
  schedule?: string;
  upgrade_type: string;
  state: { value: PolicyStateValue; description: string };
}

interface ClusterState {
  spec: FakeOcmClusterSpec;
  version: string;
  state: string;
  policies: Policy[];
  policyFault: number | null;
  agreements: { id: string; gateId: string; agreedAt: string }[];
}

export interface FakeOcmWrite {
  cluster: string;
  method: 'POST' | 'DELETE';
  policyId: string;
  version?: string;
  nextRun?: string;
  at: string;
}

export interface FakeOcmOptions {
  clusters: FakeOcmClusterSpec[];
  token?: string;
  now?: () => Date;
  port?: number;
  /** extra `/_fake/...` routes (serve.ts adds its own); undefined falls through to the fake's */
  control?: (req: FakeRequest) => FakeResponse | undefined;
  /** the offline token `/_sso/token` exchanges (grant_type=refresh_token) */
  offlineToken?: string;
  /** the service account `/_sso/token` knows (grant_type=client_credentials) */
  serviceAccount?: { clientId: string; clientSecret: string };
  /** lifetime of issued access tokens (default 900 s, as Red Hat SSO's) */
  accessTokenTtlSeconds?: number;
  /** page size of upgrade policy lists (default 100) */
  policyPageSize?: number;
  /** the version gates OCM publishes */
  versionGates?: FakeVersionGate[];
  /** answer `status` to every subscription search (null or absent: normal) */
  subscriptionFault?: number | null;
}

export interface FakeOcm extends RunningFake {
  token: string;
  writes(cluster?: string): FakeOcmWrite[];
  /** refused POSTs, with OCM's reason */
  refusals(): { cluster: string; reason: string }[];
  requests(): { method: string; path: string }[];
  cluster(id: string): { version: string; state: string; policies: Policy[] };
  setPolicyState(id: string, value: PolicyStateValue, description?: string): void;
  /** the upgrade finished: the cluster runs its version and the policy is removed (keepPolicy: left `completed`) */
  completeUpgrade(id: string, opts?: { keepPolicy?: boolean }): void;
  failUpgrade(id: string, description: string): void;
  setClusterState(id: string, state: string): void;
  /** answer `status` to every request about this cluster's upgrade policies (null: normal) */
  setPolicyFault(id: string, status: number | null): void;
  /** called before every API request is answered (to interleave events with a reader) */
  onRequest(hook: ((req: { method: string; path: string }) => void) | null): void;
  /** a new release appears in the cluster's channel (an available upgrade once newer than its version) */
  publishRelease(id: string, version: string): void;
  /** called when a write is accepted, before it is answered */
  onWrite(hook: ((write: FakeOcmWrite) => void) | null): void;
  /** access tokens issued by `/_sso/token`, with the grant that asked */
  tokenGrants(): { grantType: string; at: string }[];
  /** accepted POSTs of gate agreements (kept apart from the upgrade policy writes) */
  gateAgreementWrites(cluster?: string): { cluster: string; gateId: string; at: string }[];
  setLabels(id: string, labels: Record<string, string>): void;
}

function readFixture<T>(name: string): T {
  return JSON.parse(fs.readFileSync(path.join(FIXTURES, name), 'utf8')) as T;
}

function withoutVersion({ version: _version, ...rest }: Record<string, unknown>): Record<string, unknown> {
  return rest;
}

function compare(a: string, b: string): number {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < 3; i++) if ((pa[i] ?? 0) !== (pb[i] ?? 0)) return (pa[i] ?? 0) - (pb[i] ?? 0);
  return 0;
}

export async function startFakeOcm(opts: FakeOcmOptions): Promise<FakeOcm> {
  const token = opts.token ?? 'fake-ocm-token';
  const nowMs = () => (opts.now ? opts.now() : new Date()).getTime();
  const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
  const writes: FakeOcmWrite[] = [];
  const refusals: { cluster: string; reason: string }[] = [];
  const requests: { method: string; path: string }[] = [];
  let hook: ((req: { method: string; path: string }) => void) | null = null;
  let writeHook: ((write: FakeOcmWrite) => void) | null = null;
  const recordWrite = (w: FakeOcmWrite) => {
    writes.push(w);
    writeHook?.(w);
  };
  let nextPolicy = 1;
  let operation = 1;
  const clusters = new Map<string, ClusterState>(
    opts.clusters.map((spec) => [
      spec.id,
      {
        spec,
        version: spec.version,
        state: spec.state ?? 'ready',
        agreements: (spec.agreedGates ?? []).map((gateId, i) => ({ id: `agreement-${spec.id}-${i}`, gateId, agreedAt: iso(nowMs()) })),
        policies: spec.automaticPolicy
          ? [
              {
                id: `policy-auto-${spec.id}`,
                version: spec.automaticPolicy.version ?? '',
                next_run: iso(nowMs() + 86_400_000),
                schedule_type: 'automatic',
                schedule: spec.automaticPolicy.schedule,
                upgrade_type: spec.hypershift ? 'ControlPlane' : 'OSD',
                state: { value: 'scheduled', description: 'Upgrade scheduled.' },
              },
            ]
          : [],
        policyFault: null,
      },
    ]),
  );
  const accessTokens = new Map<string, number>();
  const tokenGrants: { grantType: string; at: string }[] = [];
  const authorized = (req: FakeRequest) => {
    const given = bearer(req);
    if (given === undefined) return false;
    if (given === token) return true;
    const expires = accessTokens.get(given);
    return expires !== undefined && expires > nowMs();
  };
  const get = (id: string) => {
    const c = clusters.get(id);
    if (!c) throw new Error(`fake OCM: no cluster ${id}`);
    return c;
  };
  const error = (status: number, reason: string): FakeResponse => {
    const body = readFixture<Record<string, unknown>>('ocm-error.json');
    return {
      status,
      body: {
        ...body,
        id: String(status),
        href: `${API}/errors/${status}`,
        code: `CLUSTERS-MGMT-${status}`,
        reason,
        operation_id: `op-${operation++}`,
      },
    };
  };
  const available = (c: ClusterState) => c.spec.releases.filter((v) => compare(v, c.version) > 0);
  const clusterJson = (c: ClusterState) => {
    const t = readFixture<Record<string, unknown> & { version: Record<string, unknown> }>('ocm-cluster.json');
    return {
      ...t,
      id: c.spec.id,
      href: `${API}/clusters/${c.spec.id}`,
      name: c.spec.name,
      external_id: `ext-${c.spec.id}`,
      state: c.state,
      hypershift: { enabled: c.spec.hypershift === true },
      subscription: { kind: 'SubscriptionLink', id: `sub-${c.spec.id}`, href: `/api/accounts_mgmt/v1/subscriptions/sub-${c.spec.id}` },
      cloud_provider: { kind: 'CloudProviderLink', id: c.spec.cloud ?? 'aws', href: `${API}/cloud_providers/${c.spec.cloud ?? 'aws'}` },
      region: {
        kind: 'CloudRegionLink',
        id: c.spec.region ?? 'us-east-1',
        href: `${API}/cloud_providers/${c.spec.cloud ?? 'aws'}/regions/${c.spec.region ?? 'us-east-1'}`,
      },
      nodes: { ...(t.nodes as object), ...(c.spec.nodes ?? (c.spec.hypershift ? { compute: 2 } : { compute: 3, master: 3, infra: 2 })) },
      ...(c.spec.metricsNodes ? { metrics: { ...(t.metrics as object), nodes: c.spec.metricsNodes } } : {}),
      aws: { ...(t.aws as object), sts: { enabled: c.spec.sts === true || c.spec.hypershift === true } },
      version: {
        ...t.version,
        id: `openshift-v${c.version}`,
        href: `${API}/versions/openshift-v${c.version}`,
        raw_id: c.version,
        channel_group: c.spec.channelGroup ?? 'stable',
        available_upgrades: available(c),
      },
    };
  };
  const policyJson = (c: ClusterState, p: Policy) => ({
    // the template's placeholder version goes: an automatic policy without a scheduled run has none
    ...withoutVersion(readFixture<Record<string, unknown>>('ocm-upgrade-policy.json')),
    ...(c.spec.hypershift ? { kind: 'ControlPlaneUpgradePolicy', state: p.state } : {}),
    id: p.id,
    href: `${API}/clusters/${c.spec.id}/${c.spec.hypershift ? 'control_plane/' : ''}upgrade_policies/${p.id}`,
    schedule_type: p.schedule_type,
    ...(p.schedule ? { schedule: p.schedule } : {}),
    upgrade_type: p.upgrade_type,
    ...(p.version ? { version: p.version } : {}),
    next_run: p.next_run,
    cluster_id: c.spec.id,
  });
  /** time moves policies on: pending → scheduled once seen, scheduled → started at next_run */
  const advance = (c: ClusterState) => {
    for (const p of c.policies) {
      if (p.state.value === 'pending') p.state = { value: 'scheduled', description: 'Upgrade scheduled.' };
      if (p.state.value === 'scheduled' && Date.parse(p.next_run) <= nowMs())
        p.state = { value: 'started', description: 'Upgrade in progress.' };
    }
  };

  const gateAgreementWrites: { cluster: string; gateId: string; at: string }[] = [];
  const versionGates = opts.versionGates ?? [];
  const gateJson = (g: FakeVersionGate) => ({
    kind: 'VersionGate',
    href: `${API}/version_gates/${g.id}`,
    creation_timestamp: '2024-01-10T00:00:00Z',
    ...g,
  });
  /** one page of an OCM list, as every list answers (`page`, `size`, `total`) */
  const listPage = <T>(req: FakeRequest, kind: string, all: T[]) => {
    const page = Math.max(1, Number(req.query.get('page') ?? 1) || 1);
    const size = Math.max(1, Math.min(500, Number(req.query.get('size') ?? 100) || 100));
    const items = all.slice((page - 1) * size, page * size);
    return { status: 200, body: { kind, page, size: items.length, total: all.length, items } };
  };
  /** accounts_mgmt subscriptions: the fake evaluates only `id in ('a', 'b')` (what the provider sends) */
  const subscriptions = (req: FakeRequest): FakeResponse => {
    if (opts.subscriptionFault) return error(opts.subscriptionFault, 'Internal server error');
    const search = req.query.get('search') ?? '';
    const m = /^id in \((.*)\)$/.exec(search.trim());
    const wanted = m ? new Set([...m[1]!.matchAll(/'((?:[^']|'')*)'/g)].map((x) => x[1]!.replace(/''/g, "'"))) : null;
    const withLabels = req.query.get('fetchLabels') === 'true';
    const items = [...clusters.values()]
      .filter((c) => !wanted || wanted.has(`sub-${c.spec.id}`))
      .map((c) => ({
        kind: 'Subscription',
        id: `sub-${c.spec.id}`,
        href: `/api/accounts_mgmt/v1/subscriptions/sub-${c.spec.id}`,
        cluster_id: c.spec.id,
        external_cluster_id: `ext-${c.spec.id}`,
        display_name: c.spec.name,
        status: 'Active',
        managed: true,
        ...(withLabels
          ? {
              labels: Object.entries(c.spec.labels ?? {}).map(([key, value], i) => ({
                kind: 'Label',
                id: `label-${c.spec.id}-${i}`,
                href: `/api/accounts_mgmt/v1/subscriptions/sub-${c.spec.id}/labels/${key}`,
                key,
                value,
                internal: false,
                subscription_id: `sub-${c.spec.id}`,
              })),
            }
          : {}),
      }));
    return listPage(req, 'SubscriptionList', items);
  };

  const api: Omit<FakeOcm, keyof RunningFake | 'token'> = {
    writes: (cluster) => writes.filter((w) => !cluster || w.cluster === cluster),
    refusals: () => [...refusals],
    requests: () => [...requests],
    cluster(id) {
      const c = get(id);
      advance(c);
      return { version: c.version, state: c.state, policies: c.policies };
    },
    setPolicyState(id, value, description) {
      const p = get(id).policies[0];
      if (!p) throw new Error(`fake OCM: ${id} has no upgrade policy`);
      p.state = { value, description: description ?? '' };
    },
    completeUpgrade(id, o) {
      const c = get(id);
      const p = c.policies[0];
      if (!p) throw new Error(`fake OCM: ${id} has no upgrade policy`);
      c.version = p.version;
      p.state = { value: 'completed', description: 'Upgrade completed.' };
      if (!o?.keepPolicy) c.policies = c.policies.filter((x) => x !== p);
    },
    failUpgrade(id, description) {
      api.setPolicyState(id, 'failed', description);
    },
    setClusterState: (id, state) => void (get(id).state = state),
    setPolicyFault: (id, status) => void (get(id).policyFault = status),
    onRequest: (h) => void (hook = h),
    publishRelease(id, version) {
      const c = get(id);
      if (!c.spec.releases.includes(version)) c.spec = { ...c.spec, releases: [...c.spec.releases, version] };
    },
    onWrite: (h) => void (writeHook = h),
    tokenGrants: () => [...tokenGrants],
    gateAgreementWrites: (cluster) => gateAgreementWrites.filter((w) => !cluster || w.cluster === cluster),
    setLabels(id, labels) {
      const c = get(id);
      c.spec = { ...c.spec, labels };
    },
  };

  /** Red Hat SSO's token endpoint (Keycloak): form-encoded grant in, `{access_token, expires_in, token_type}` out */
  const ssoToken = (req: FakeRequest): FakeResponse => {
    const form = new URLSearchParams(req.rawBody);
    const grantType = form.get('grant_type') ?? '';
    const refused = (description: string): FakeResponse => ({
      status: grantType === 'client_credentials' ? 401 : 400,
      body: { error: grantType === 'client_credentials' ? 'unauthorized_client' : 'invalid_grant', error_description: description },
    });
    if (grantType === 'refresh_token') {
      if (form.get('client_id') !== 'cloud-services') return refused('Invalid client');
      if (!opts.offlineToken || form.get('refresh_token') !== opts.offlineToken) return refused('Invalid refresh token');
    } else if (grantType === 'client_credentials') {
      const basic = req.headers.authorization?.startsWith('Basic ')
        ? Buffer.from(req.headers.authorization.slice(6), 'base64').toString('utf8').split(':')
        : [form.get('client_id') ?? '', form.get('client_secret') ?? ''];
      const [id, secret] = basic.map((v) => decodeURIComponent(v ?? ''));
      if (!opts.serviceAccount || id !== opts.serviceAccount.clientId || secret !== opts.serviceAccount.clientSecret)
        return refused('Invalid client credentials');
    } else return { status: 400, body: { error: 'unsupported_grant_type', error_description: `grant_type ${grantType}` } };
    const ttl = opts.accessTokenTtlSeconds ?? 900;
    const accessToken = `fake-access-${tokenGrants.length + 1}-${Math.random().toString(36).slice(2)}`;
    accessTokens.set(accessToken, nowMs() + ttl * 1000);
    tokenGrants.push({ grantType, at: iso(nowMs()) });
    return { status: 200, body: { access_token: accessToken, expires_in: ttl, token_type: 'Bearer', scope: 'openid' } };
  };

  const handle = (req: FakeRequest): FakeResponse => {
    const extra = req.path.startsWith('/_fake/') ? opts.control?.(req) : undefined;
    if (extra) return extra;
    if (req.path === '/_fake/writes') return { status: 200, body: { writes, refusals, gateAgreements: gateAgreementWrites } };
    const ctl = /^\/_fake\/clusters\/([^/]+)\/([a-z]+)$/.exec(req.path);
    if (ctl && req.method === 'POST') {
      const id = decodeURIComponent(ctl[1]!);
      const args = (req.body ?? {}) as Record<string, unknown>;
      const text = (k: string, fallback: string) => (typeof args[k] === 'string' ? args[k] : fallback);
      if (ctl[2] === 'complete') api.completeUpgrade(id, { keepPolicy: args.keepPolicy === true });
      else if (ctl[2] === 'fail') api.failUpgrade(id, text('description', 'upgrade failed'));
      else if (ctl[2] === 'state') api.setPolicyState(id, text('value', '') as PolicyStateValue, text('description', ''));
      else if (ctl[2] === 'fault') api.setPolicyFault(id, typeof args.status === 'number' ? args.status : null);
      else if (ctl[2] === 'publish') api.publishRelease(id, text('version', ''));
      else return { status: 404, body: { reason: `no action ${ctl[2]}` } };
      return { status: 200, body: api.cluster(id) };
    }
    if (req.path === '/_sso/token' && req.method === 'POST') return ssoToken(req);
    const accounts = req.path.startsWith('/api/accounts_mgmt/v1/');
    if (!req.path.startsWith(API) && !accounts) return error(404, `no route ${req.method} ${req.path}`);
    requests.push({ method: req.method, path: req.path });
    hook?.({ method: req.method, path: req.path });
    if (!authorized(req)) return error(401, 'Invalid token');
    if (accounts)
      return req.method === 'GET' && req.path === '/api/accounts_mgmt/v1/subscriptions'
        ? subscriptions(req)
        : error(404, `no route ${req.method} ${req.path}`);
    if (req.method === 'GET' && req.path === `${API}/version_gates`) return listPage(req, 'VersionGateList', versionGates.map(gateJson));
    const agreementsOf = /^\/api\/clusters_mgmt\/v1\/clusters\/([^/]+)\/gate_agreements$/.exec(req.path);
    if (agreementsOf) {
      const c = clusters.get(decodeURIComponent(agreementsOf[1]!));
      if (!c) return error(404, `Cluster '${agreementsOf[1]}' not found`);
      const agreementJson = (a: ClusterState['agreements'][number]) => ({
        kind: 'VersionGateAgreement',
        id: a.id,
        href: `${API}/clusters/${c.spec.id}/gate_agreements/${a.id}`,
        version_gate: gateJson(versionGates.find((g) => g.id === a.gateId) ?? ({ id: a.gateId } as FakeVersionGate)),
        agreed_timestamp: a.agreedAt,
      });
      if (req.method === 'GET') return listPage(req, 'VersionGateAgreementList', c.agreements.map(agreementJson));
      if (req.method !== 'POST') return error(405, 'method not allowed');
      const gateId = ((req.body ?? {}) as { version_gate?: { id?: unknown } }).version_gate?.id;
      if (typeof gateId !== 'string' || !versionGates.some((g) => g.id === gateId))
        return error(400, `Version gate '${String(gateId)}' not found`);
      if (c.agreements.some((a) => a.gateId === gateId))
        return error(400, `Version gate agreement for gate '${gateId}' already exists for cluster '${c.spec.name}'`);
      const a = { id: `agreement-${c.spec.id}-${c.agreements.length}`, gateId, agreedAt: iso(nowMs()) };
      c.agreements.push(a);
      gateAgreementWrites.push({ cluster: c.spec.id, gateId, at: a.agreedAt });
      return { status: 201, body: agreementJson(a) };
    }
    if (req.method === 'GET' && req.path === `${API}/clusters`) {
      const page = Math.max(1, Number(req.query.get('page') ?? 1) || 1);
      const size = Math.max(1, Math.min(500, Number(req.query.get('size') ?? 100) || 100));
      const all = [...clusters.values()];
      const items = all.slice((page - 1) * size, page * size).map(clusterJson);
      return { status: 200, body: { kind: 'ClusterList', page, size: items.length, total: all.length, items } };
    }
    const m = /^\/api\/clusters_mgmt\/v1\/clusters\/([^/]+)(?:\/(control_plane\/)?upgrade_policies(?:\/([^/]+))?(\/state)?)?$/.exec(
      req.path,
    );
    const c = m ? clusters.get(decodeURIComponent(m[1]!)) : undefined;
    if (!m || !c) return error(404, `Cluster '${m?.[1] ?? ''}' not found`);
    const onPolicies = req.path.includes('/upgrade_policies');
    if (!onPolicies) return req.method === 'GET' ? { status: 200, body: clusterJson(c) } : error(405, 'method not allowed');
    const [, , controlPlane, policyId, state] = m;
    if (Boolean(controlPlane) !== (c.spec.hypershift === true))
      return error(
        400,
        c.spec.hypershift
          ? `Cluster '${c.spec.name}' has a hosted control plane: use its control_plane/upgrade_policies`
          : `Cluster '${c.spec.name}' is not a hosted control plane cluster`,
      );
    if (state && c.spec.hypershift) return error(404, 'no state sub-resource for control plane upgrade policies');
    if (c.policyFault) return error(c.policyFault, 'Internal server error');
    advance(c);
    const policy = policyId ? c.policies.find((p) => p.id === policyId) : undefined;
    if (policyId && !policy) return error(404, `Upgrade policy '${policyId}' not found`);
    if (req.method === 'GET' && !policyId) {
      const size = Math.max(1, Math.min(opts.policyPageSize ?? 100, Number(req.query.get('size') ?? 100) || 100));
      const page = Math.max(1, Number(req.query.get('page') ?? 1) || 1);
      const items = c.policies.slice((page - 1) * size, page * size).map((p) => policyJson(c, p));
      return {
        status: 200,
        body: {
          kind: c.spec.hypershift ? 'ControlPlaneUpgradePolicyList' : 'UpgradePolicyList',
          page,
          size: items.length,
          total: c.policies.length,
          items,
        },
      };
    }
    if (req.method === 'GET' && policy && state)
      return {
        status: 200,
        body: { kind: 'UpgradePolicyState', href: `${API}/clusters/${c.spec.id}/upgrade_policies/${policy.id}/state`, ...policy.state },
      };
    if (req.method === 'GET' && policy) return { status: 200, body: policyJson(c, policy) };
    if (req.method === 'POST' && !policyId) {
      const body = (req.body ?? {}) as Record<string, unknown>;
      const refuse = (reason: string) => {
        refusals.push({ cluster: c.spec.id, reason });
        return error(400, reason);
      };
      const version = typeof body.version === 'string' ? body.version : '';
      const nextRun = typeof body.next_run === 'string' ? Date.parse(body.next_run) : NaN;
      if (body.schedule_type !== 'manual') return refuse("Only schedule_type 'manual' is supported by this fake");
      if (!Number.isFinite(nextRun)) return refuse("Attribute 'next_run' is required for a manual upgrade policy");
      if (nextRun < nowMs() + FAKE_OCM_MIN_LEAD_MS)
        return refuse(
          `Can't schedule an upgrade less than ${FAKE_OCM_MIN_LEAD_MS / 60_000} minutes in the future (next_run ${iso(nextRun)})`,
        );
      if (!available(c).includes(version)) return refuse(`Version '${version}' is not an available upgrade for cluster '${c.spec.name}'`);
      if (c.policies.length) return refuse(`Cluster '${c.spec.name}' already has an upgrade policy`);
      const p: Policy = {
        id: `policy-${nextPolicy++}`,
        version,
        next_run: iso(nextRun),
        schedule_type: 'manual',
        upgrade_type: typeof body.upgrade_type === 'string' ? body.upgrade_type : c.spec.hypershift ? 'ControlPlane' : 'OSD',
        state: { value: 'pending', description: 'Upgrade policy created.' },
      };
      c.policies.push(p);
      recordWrite({ cluster: c.spec.id, method: 'POST', policyId: p.id, version, nextRun: p.next_run, at: iso(nowMs()) });
      return { status: 201, body: policyJson(c, p) };
    }
    if (req.method === 'DELETE' && policy && !state) {
      if (policy.state.value === 'started' || policy.state.value === 'delayed')
        return error(400, "Can't delete an upgrade policy of an upgrade in progress");
      c.policies = c.policies.filter((p) => p !== policy);
      recordWrite({ cluster: c.spec.id, method: 'DELETE', policyId: policy.id, at: iso(nowMs()) });
      return { status: 204 };
    }
    return error(405, `method ${req.method} not allowed on ${req.path}`);
  };

  const server = await serveJson(handle, opts.port);
  return { ...server, ...api, token };
}
