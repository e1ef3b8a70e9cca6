/**
 * A fake OpenShift API server over real HTTP (loopback): one process serves any number of
 * clusters, each under its own base URL `${url}/clusters/${name}` (use it as the kubeconfig
 * `server`). Per cluster it speaks:
 * - `GET  /apis/config.openshift.io/v1/clusterversions/version` (a ClusterVersion, fixtures/clusterversion.json)
 * - `PATCH` the same with `Content-Type: application/merge-patch+json` (RFC 7396; any other patch
 *   type is refused with 415 as the API server does for a type it does not support here). As the
 *   cluster-version operator does, a new `spec.desiredUpdate` naming an offered (available or
 *   conditional) release starts the update: `status.desired`, a `Partial` history entry,
 *   `Progressing=True`; an unknown one is not accepted (`ReleaseAccepted=False`).
 * - `GET  /apis/config.openshift.io/v1/clusteroperators` (fixtures/clusteroperator.json per operator)
 * - `GET  /apis/machineconfiguration.openshift.io/v1/machineconfigpools` (fixtures/machineconfigpool.json
 *   per pool: master and worker, or the spec's `pools`), `GET` and merge-`PATCH` one pool
 *   (`…/machineconfigpools/{name}`: only `spec` is taken, e.g. `spec.paused`); `rollPool` scripts what
 *   the machine-config operator reports (pending on a new rendered config, rolling, done)
 * - `GET` and merge-`PATCH` `/api/v1/namespaces/openshift-config/configmaps/admin-acks`
 *   (fixtures/configmap-admin-acks.json; the admin-gate acknowledgements), and `GET`
 *   `/api/v1/namespaces/openshift-config-managed/configmaps/admin-gates` (fixtures/configmap-admin-gates.json,
 *   or the spec's `adminGates`; 404 for `null`: the gates the release declares)
 * - `GET  /apis/operators.coreos.com/v1alpha1/clusterserviceversions` (fixtures/clusterserviceversion.json
 *   per installed operator, plus OLM's copy of it in another namespace) and
 *   `GET  /apis/apiserver.openshift.io/v1/apirequestcounts` (fixtures/apirequestcount.json per removed
 *   API in use, plus one API nothing removes); 404 for both when the spec says `olm: false`
 * - OLM InstallPlans and Subscriptions (fixtures/installplan.json, fixtures/subscription.json; spec
 *   `installPlans`): `GET /apis/operators.coreos.com/v1alpha1/{installplans,subscriptions}` (all
 *   namespaces), `GET` and merge-`PATCH` `/apis/operators.coreos.com/v1alpha1/namespaces/{ns}/installplans/{name}`
 *   (as OLM: an approved plan in RequiresApproval moves to Installing; `completeInstallPlan` /
 *   `failInstallPlan` / `changeInstallPlan` script the rest; a patch with `metadata.resourceVersion`
 *   is refused with 409 Conflict when the plan changed since); 404 for the lists when the spec says `olm: false`
 * - `GET  /apis/config.openshift.io/v1/infrastructures/cluster` (fixtures/infrastructure.json; the
 *   platform type and region per cluster)
 * - `GET  /api/v1/nodes?limit=N[&continue=T]` (fixtures/node.json per node): chunked as the API server
 *   does, with `metadata.continue` and `metadata.remainingItemCount` (which can be switched off, as
 *   servers may omit it)
 * - Prometheus `GET /api/v1/query?query=ALERTS{...}`, directly and through the API server's
 *   service proxy to thanos-querier (the provider's default), label matchers `=` honoured.
 * Authentication: the bearer token, or (over HTTPS with `tls.ca`) a client certificate chaining to
 * that CA whose common name is `certUser`. Errors are Kubernetes `Status` objects.
 * Scriptable (in process, or `POST /_fake/clusters/{name}/{action}` with a JSON body when run
 * standalone by tests/fakes/serve.ts): complete or fail the running update, degrade an operator
 * or make it unavailable, fire alerts or make them unreadable, withdraw a release, offer one
 * conditionally, publish a new release, set Upgradeable, make the cluster unreachable, answer 500 or
 * never answer (`hang`), degrade a MachineConfigPool, answer one path with a given error `Status`.
 * Every write (PATCH) is counted per cluster; `onWrite` runs once a write is accepted, before it
 * is answered (the crash test kills the server there).
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { bearer, mergePatch, serveJson, type FakeRequest, type FakeResponse, type FakeTls, type RunningFake } from './http-server';

const FIXTURES = path.join(__dirname, 'fixtures');
const CV_PATH = '/apis/config.openshift.io/v1/clusterversions/version';
const CO_PATH = '/apis/config.openshift.io/v1/clusteroperators';
const MCP_PATH = '/apis/machineconfiguration.openshift.io/v1/machineconfigpools';
const ONE_MCP_PATH = /^\/apis\/machineconfiguration\.openshift\.io\/v1\/machineconfigpools\/([^/]+)$/;
const ADMIN_ACKS_PATH = '/api/v1/namespaces/openshift-config/configmaps/admin-acks';
const ADMIN_GATES_PATH = '/api/v1/namespaces/openshift-config-managed/configmaps/admin-gates';

/** The release's admin-gates ConfigMap: the fixture's, with the spec's gates when it names some (null: none there). */
function adminGatesObject(gates: Record<string, string> | null | undefined): Json | null {
  if (gates === null) return null;
  const fixture = readFixture<Json>('configmap-admin-gates.json');
  return gates === undefined ? fixture : { ...fixture, data: { ...gates } };
}
const INFRA_PATH = '/apis/config.openshift.io/v1/infrastructures/cluster';
const CSV_PATH = '/apis/operators.coreos.com/v1alpha1/clusterserviceversions';
const ARC_PATH = '/apis/apiserver.openshift.io/v1/apirequestcounts';
const IP_PATH = '/apis/operators.coreos.com/v1alpha1/installplans';
const SUB_PATH = '/apis/operators.coreos.com/v1alpha1/subscriptions';
const ONE_IP_PATH = /^\/apis\/operators\.coreos\.com\/v1alpha1\/namespaces\/([^/]+)\/installplans\/([^/]+)$/;
const NODES_PATH = '/api/v1/nodes';
const PROXY_PREFIX = '/api/v1/namespaces/openshift-monitoring/services/https:thanos-querier:9091/proxy';
export const DEFAULT_OPERATORS = ['authentication', 'dns', 'etcd', 'ingress', 'kube-apiserver', 'machine-config', 'network'];

type Json = Record<string, unknown>;
interface Condition {
  type: string;
  status: string;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}
interface Release {
  version: string;
  image: string;
}
interface HistoryEntry {
  state: 'Completed' | 'Partial';
  startedTime: string;
  completionTime: string | null;
  version: string;
  image: string;
  verified: boolean;
  acceptedRisks?: string;
}
interface ClusterVersion {
  apiVersion: string;
  kind: string;
  metadata: Json & { resourceVersion: string; generation: number };
  spec: Json & { channel?: string; desiredUpdate?: { version?: string; image?: string; force?: boolean } };
  status: {
    desired: Json & { version: string; image: string };
    history: HistoryEntry[];
    conditions: Condition[];
    availableUpdates: Release[] | null;
    conditionalUpdates: { release: Release; risks: Json[]; conditions: Condition[] }[];
  } & Json;
}

export interface FakeAlert {
  alertname: string;
  namespace?: string;
  severity: string;
}

export interface FakeOpenShiftClusterSpec {
  name: string;
  version: string;
  channel?: string;
  /** every release of the channel; those newer than the cluster's version are offered */
  releases: string[];
  /** offered only as conditional updates (status.conditionalUpdates, with a risk) */
  conditional?: string[];
  operators?: string[];
  /** Infrastructure status.platformStatus: `type` as OpenShift spells it (AWS, GCP, Azure, BareMetal, …); default AWS in us-east-1 */
  platform?: { type: string; region?: string };
  /** Node objects (the first three are masters); default 6 */
  nodes?: number;
  /**
   * OLM ClusterServiceVersions installed (fixtures/clusterversion.json shape); `maxOpenShiftVersion`
   * goes into `olm.properties`. Each is also listed as a copy in `openshift-operators-copy` (OLM
   * copies a global operator's CSV into every namespace), which a reader must leave out. Absent: none.
   */
  installedOperators?: { name: string; namespace: string; maxOpenShiftVersion?: string }[];
  /** APIRequestCounts of APIs a later release removes (fixtures/apirequestcount.json shape); users and their requests in 24 h */
  removedApiUse?: { resource: string; removedInRelease: string; users: { username: string; requests: number }[] }[];
  /** false: OLM and APIRequestCount are not installed (404 for both lists) */
  olm?: boolean;
  /**
   * OLM InstallPlans, each with the Subscription it belongs to (`subscription` in the plan's
   * namespace; its package `spec.name` is `package`, default the subscription's name). Default:
   * Manual, not approved, RequiresApproval. A plan without `subscription` has no owner (and no
   * Subscription points to it).
   */
  installPlans?: FakeInstallPlanSpec[];
  /** MachineConfigPools (default master and worker) and those the admin paused */
  pools?: string[];
  pausedPools?: string[];
  /**
   * the release's admin gates (ConfigMap openshift-config-managed/admin-gates `data`: gate → its
   * description); default fixtures/configmap-admin-gates.json's; null: no such ConfigMap (404)
   */
  adminGates?: Record<string, string> | null;
}

export interface FakeInstallPlanSpec {
  namespace: string;
  name: string;
  subscription?: string;
  package?: string;
  csv: string;
  approval?: 'Manual' | 'Automatic';
  approved?: boolean;
  phase?: string;
}

/** The throw-away TLS material in fixtures/tls (see generate.sh there): a CA, a server and a client certificate. */
export function fakeTlsFiles(): { ca: string; serverCert: string; serverKey: string; clientCert: string; clientKey: string } {
  const dir = path.join(FIXTURES, 'tls');
  return {
    ca: path.join(dir, 'ca.crt'),
    serverCert: path.join(dir, 'server.crt'),
    serverKey: path.join(dir, 'server.key'),
    clientCert: path.join(dir, 'client.crt'),
    clientKey: path.join(dir, 'client.key'),
  };
}

/** HTTPS for the fake with the fixtures' server certificate, verifying client certificates against their CA. */
export function fakeTls(): FakeTls {
  const f = fakeTlsFiles();
  return { key: fs.readFileSync(f.serverKey), cert: fs.readFileSync(f.serverCert), ca: fs.readFileSync(f.ca) };
}

export interface FakeOpenShiftOptions {
  clusters: FakeOpenShiftClusterSpec[];
  token?: string;
  now?: () => Date;
  port?: number;
  /** serve HTTPS (see fakeTls()); plain HTTP without */
  tls?: FakeTls;
  /** the client certificate common name accepted as authenticated (default `fleetplan-cert-user`, as in fixtures/tls) */
  certUser?: string;
  /** extra `/_fake/...` routes (serve.ts adds its own); undefined falls through to the fake's */
  control?: (req: FakeRequest) => FakeResponse | undefined;
}

export interface FakeRequestRecord {
  cluster: string;
  method: string;
  path: string;
  query: Record<string, string>;
  /** bearer token, or `cert:CN` for a client certificate, or null */
  identity: string | null;
}

export type FakeFault = 'unreachable' | 500 | 'hang' | null;

export interface FakeWrite {
  cluster: string;
  method: string;
  path: string;
  body: unknown;
  at: string;
}

interface ClusterState {
  spec: FakeOpenShiftClusterSpec;
  cv: ClusterVersion;
  operators: Json[];
  pools: Json[];
  adminAcks: Json;
  adminGates: Json | null;
  infrastructure: Json;
  nodes: Json[];
  csvs: Json[];
  apiRequestCounts: Json[];
  installPlans: Json[];
  subscriptions: Json[];
  remainingItemCount: boolean;
  /** `METHOD path` (or `* path`) → an error Status answered instead */
  pathFaults: Map<string, FakeResponse>;
  alerts: FakeAlert[];
  alertsReadable: boolean;
  withdrawn: Set<string>;
  conditional: Set<string>;
  fault: FakeFault;
}

export interface FakeOpenShift extends RunningFake {
  token: string;
  serverUrl(cluster: string): string;
  /** a kubeconfig with one token context per cluster, named after it */
  kubeconfig(): string;
  clusterVersion(cluster: string): ClusterVersion;
  writes(cluster?: string): FakeWrite[];
  completeUpdate(cluster: string): void;
  /** the update stops: Failing=True with `message`, Progressing=False */
  failUpdate(cluster: string, message: string): void;
  /** the update keeps going but reports a problem (Failing=True while Progressing=True) */
  stallUpdate(cluster: string, message: string): void;
  degradeOperator(cluster: string, operator: string, message: string): void;
  makeOperatorUnavailable(cluster: string, operator: string, message: string): void;
  recoverOperator(cluster: string, operator: string): void;
  fireAlert(cluster: string, alert: FakeAlert): void;
  clearAlerts(cluster: string): void;
  setAlertsReadable(cluster: string, readable: boolean): void;
  withdrawRelease(cluster: string, version: string): void;
  offerConditionally(cluster: string, version: string): void;
  setUpgradeable(cluster: string, status: 'True' | 'False' | 'Unknown', message?: string): void;
  setFault(cluster: string, fault: FakeFault): void;
  /** answer `path` (e.g. CV_PATH; only `method` requests when given) with a `Status` of this code and message until cleared (code null) */
  setPathFault(cluster: string, path: string, code: number | null, message?: string, method?: string): void;
  degradePool(cluster: string, pool: string, message: string): void;
  /**
   * what the machine-config operator reports of a pool: `pending` (a new rendered config it has not
   * begun: Updated=False, Updating=False — a paused pool after the control plane's update), `rolling`
   * (Updating=True, one machine updated), `done` (Updated=True, every machine updated)
   */
  rollPool(cluster: string, pool: string, state: 'pending' | 'rolling' | 'done'): void;
  /** the pool as the fake holds it */
  pool(cluster: string, pool: string): Json;
  /** the admin-acks ConfigMap's data */
  adminAcks(cluster: string): Record<string, string>;
  /** whether node lists carry metadata.remainingItemCount (servers may leave it out) */
  setRemainingItemCount(cluster: string, on: boolean): void;
  /** every request answered (or dropped), in order */
  requests(cluster?: string): FakeRequestRecord[];
  /** a new release appears in the cluster's channel (offered once newer than its version) */
  publishRelease(cluster: string, version: string): void;
  /** called when a write is accepted, before it is answered */
  onWrite(hook: ((write: FakeWrite) => void) | null): void;
  /** called when a GET has been answered (before the answer is sent): another client can act between a read and a write */
  onRead(hook: ((read: { cluster: string; path: string }) => void) | null): void;
  /** another client (OLM, or someone with `oc patch`) changed the plan: a new resourceVersion */
  changeInstallPlan(cluster: string, namespace: string, name: string, change: { approved?: boolean; phase?: string }): void;
  /** the InstallPlan as the fake holds it */
  installPlan(cluster: string, namespace: string, name: string): Json;
  /** OLM finished an approved plan: phase Complete, Installed=True */
  completeInstallPlan(cluster: string, namespace: string, name: string): void;
  /** OLM gave up on a plan: phase Failed, Installed=False with `message` */
  failInstallPlan(cluster: string, namespace: string, name: string, message: string): void;
  /** OLM created a new plan (e.g. the next version of a channel) */
  addInstallPlan(cluster: string, plan: FakeInstallPlanSpec): void;
}

function readFixture<T>(name: string): T {
  return JSON.parse(fs.readFileSync(path.join(FIXTURES, name), 'utf8')) as T;
}

/** a stable fake release image digest per version */
export function releaseImage(version: string): string {
  return `quay.io/openshift-release-dev/ocp-release@sha256:${createHash('sha256').update(version).digest('hex')}`;
}

function compare(a: string, b: string): number {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < 3; i++) if ((pa[i] ?? 0) !== (pb[i] ?? 0)) return (pa[i] ?? 0) - (pb[i] ?? 0);
  return 0;
}

function status(code: number, reason: string, message: string): FakeResponse {
  return { status: code, body: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code } };
}

/** Every write of an object gives it a new resourceVersion (opaque to clients; a counter here). */
function bumpResourceVersion(obj: Json): void {
  obj.metadata = { ...(obj.metadata as Json), resourceVersion: String(Number((obj.metadata as Json).resourceVersion) + 1) };
}

/**
 * A patch carrying `metadata.resourceVersion` is a precondition: the API server refuses it with
 * 409 Conflict when the object has changed since (k8s.io/apimachinery `errors.NewConflict`: reason
 * Conflict, details {name, group, kind: the resource}, the message `Operation cannot be fulfilled
 * on <resource>.<group> "<name>": the object has been modified; please apply your changes to the
 * latest version and try again`, as `kubectl` prints it). Null: no precondition, or it holds.
 */
function resourceVersionConflict(obj: Json, patch: Json, resource: string, group: string): FakeResponse | null {
  const wanted = (patch.metadata as Json | undefined)?.resourceVersion;
  const metadata = obj.metadata as Json;
  if (wanted === undefined || wanted === metadata.resourceVersion) return null;
  const name = String(metadata.name);
  const conflict = status(
    409,
    'Conflict',
    `Operation cannot be fulfilled on ${resource}.${group} "${name}": the object has been modified; please apply your changes to the latest version and try again`,
  );
  return { ...conflict, body: { ...(conflict.body as Json), details: { name, group, kind: resource } } };
}

/** The API server's answer to a PATCH this fake does not take: only a merge patch of a JSON object is (null: it is one). */
function mergePatchRefusal(req: FakeRequest): FakeResponse | null {
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim();
  if (type !== 'application/merge-patch+json')
    return status(
      415,
      'UnsupportedMediaType',
      `the body of the request was in an unknown format - accepted media types include: application/merge-patch+json (got ${type || 'none'})`,
    );
  if (req.body === null || typeof req.body !== 'object') return status(400, 'BadRequest', 'the patch is not a JSON object');
  return null;
}

/** Parses `ALERTS{a="b",c="d"}` into its equality matchers (all this fake needs). */
function alertMatchers(query: string): Record<string, string> | null {
  const m = /^ALERTS(?:\{(.*)\})?$/.exec(query.trim());
  if (!m) return null;
  const out: Record<string, string> = {};
  for (const part of (m[1] ?? '').split(',').filter((p) => p.trim())) {
    const kv = /^\s*(\w+)\s*=\s*"([^"]*)"\s*$/.exec(part);
    if (!kv) return null;
    out[kv[1]!] = kv[2]!;
  }
  return out;
}

export async function startFakeOpenShift(opts: FakeOpenShiftOptions): Promise<FakeOpenShift> {
  const token = opts.token ?? 'fake-kube-token';
  const now = () => (opts.now ? opts.now() : new Date()).toISOString().replace(/\.\d{3}Z$/, 'Z');
  const writes: FakeWrite[] = [];
  const requestLog: FakeRequestRecord[] = [];
  const certUser = opts.certUser ?? 'fleetplan-cert-user';
  let writeHook: ((write: FakeWrite) => void) | null = null;
  let readHook: ((read: { cluster: string; path: string }) => void) | null = null;
  const clusters = new Map<string, ClusterState>();

  const currentVersion = (s: ClusterState) =>
    s.cv.status.history.find((h) => h.state === 'Completed')?.version ?? s.cv.status.desired.version;
  const setCondition = (s: ClusterState, c: Condition) => {
    const rest = s.cv.status.conditions.filter((x) => x.type !== c.type);
    s.cv.status.conditions = [...rest, { lastTransitionTime: now(), ...c }];
  };
  const refreshOffers = (s: ClusterState) => {
    const current = currentVersion(s);
    const newer = s.spec.releases.filter((v) => compare(v, current) > 0 && !s.withdrawn.has(v));
    const recommended = newer.filter((v) => !s.conditional.has(v)).map((v) => ({ version: v, image: releaseImage(v) }));
    s.cv.status.availableUpdates = recommended.length ? recommended : null;
    s.cv.status.conditionalUpdates = newer
      .filter((v) => s.conditional.has(v))
      .map((v) => ({
        release: { version: v, image: releaseImage(v) },
        risks: [
          {
            name: 'FakeRisk',
            url: 'https://example.invalid/risk',
            message: `a known issue affects ${v}`,
            matchingRules: [{ type: 'Always' }],
          },
        ],
        conditions: [
          { type: 'Recommended', status: 'False', reason: 'FakeRisk', message: `a known issue affects ${v}`, lastTransitionTime: now() },
        ],
      }));
  };
  const operatorObject = (name: string, version: string): Json =>
    JSON.parse(
      JSON.stringify(readFixture<Json>('clusteroperator.json')).replaceAll('OPERATOR_NAME', name).replaceAll('4.13.10', version),
    ) as Json;
  const poolObject = (name: string): Json =>
    JSON.parse(JSON.stringify(readFixture<Json>('machineconfigpool.json')).replaceAll('POOL_NAME', name)) as Json;
  const infrastructureObject = (spec: FakeOpenShiftClusterSpec): Json => {
    const infra = readFixture<Json & { status: Json }>('infrastructure.json');
    const type = spec.platform?.type ?? 'AWS';
    const region = spec.platform ? spec.platform.region : 'us-east-1';
    // platformStatus carries a member named after the platform (aws, gcp, ibmcloud, …) holding the
    // region where the platform has one (openshift/api PlatformStatus)
    const member = type.toLowerCase();
    infra.status = {
      ...infra.status,
      infrastructureName: `${spec.name}-x7k2p`,
      platform: type,
      platformStatus: { type, ...(region ? { [member]: { region } } : type === 'None' ? {} : { [member]: {} }) },
    };
    infra.spec = { ...(infra.spec as Json), platformSpec: { type, ...(type === 'None' ? {} : { [member]: {} }) } };
    return infra;
  };
  const csvObjects = (spec: FakeOpenShiftClusterSpec): Json[] =>
    (spec.installedOperators ?? []).flatMap((op) => {
      const csv = readFixture<Json & { metadata: Json & { annotations: Record<string, string>; labels: Record<string, string> } }>(
        'clusterserviceversion.json',
      );
      csv.metadata = { ...csv.metadata, name: op.name, namespace: op.namespace };
      csv.metadata.annotations = {
        ...csv.metadata.annotations,
        'olm.properties': JSON.stringify(
          op.maxOpenShiftVersion ? [{ type: 'olm.maxOpenShiftVersion', value: op.maxOpenShiftVersion }] : [],
        ),
      };
      // OLM's copy of a global operator's CSV in another namespace: labelled olm.copiedFrom, status reason Copied
      const copy = structuredClone(csv);
      copy.metadata = { ...copy.metadata, namespace: 'openshift-operators-copy' };
      copy.metadata.labels = { ...copy.metadata.labels, 'olm.copiedFrom': op.namespace };
      copy.status = {
        ...(copy.status as Json),
        reason: 'Copied',
        message: 'The operator is running in openshift-logging but is managing this namespace',
      };
      return [csv, copy];
    });
  const apiRequestCountObjects = (spec: FakeOpenShiftClusterSpec): Json[] => {
    const used = (spec.removedApiUse ?? []).map((api) => {
      const arc = readFixture<Json & { metadata: Json; status: Json }>('apirequestcount.json');
      const total = api.users.reduce((n, u) => n + u.requests, 0);
      const byUser = api.users.map((u) => ({
        username: u.username,
        userAgent: 'kubectl/v1.27.4',
        requestCount: u.requests,
        byVerb: [{ verb: 'get', requestCount: u.requests }],
      }));
      arc.metadata = { ...arc.metadata, name: api.resource };
      arc.status = {
        ...arc.status,
        removedInRelease: api.removedInRelease,
        requestCount: total,
        currentHour: { requestCount: 0, byNode: [] },
        last24h: [{ requestCount: total, byNode: [{ nodeName: '10.0.131.17', requestCount: total, byUser }] }],
      };
      return arc;
    });
    // an API nothing removes, in use (every cluster has thousands): not an inhibitor
    const kept = readFixture<Json & { metadata: Json; status: Json }>('apirequestcount.json');
    kept.metadata = { ...kept.metadata, name: 'pods.v1' };
    kept.status = { ...kept.status, removedInRelease: '' };
    return [...used, kept];
  };
  const installPlanObject = (p: FakeInstallPlanSpec): Json => {
    const ip = readFixture<Json & { metadata: Json; spec: Json; status: Json }>('installplan.json');
    const uid = createHash('sha256').update(`${p.namespace}/${p.name}`).digest('hex').slice(0, 32);
    ip.metadata = {
      ...ip.metadata,
      name: p.name,
      namespace: p.namespace,
      uid,
      labels: p.subscription ? { [`operators.coreos.com/${p.package ?? p.subscription}.${p.namespace}`]: '' } : {},
      ownerReferences: p.subscription
        ? [{ ...((ip.metadata.ownerReferences as Json[])[0] as Json), name: p.subscription, uid: `sub-${p.namespace}-${p.subscription}` }]
        : [],
    };
    ip.spec = { ...ip.spec, approval: p.approval ?? 'Manual', approved: p.approved ?? false, clusterServiceVersionNames: [p.csv] };
    const phase = p.phase ?? 'RequiresApproval';
    ip.status = {
      ...ip.status,
      phase,
      conditions: [
        phase === 'Complete'
          ? { type: 'Installed', status: 'True', lastUpdateTime: now(), lastTransitionTime: now() }
          : {
              type: 'Installed',
              status: 'False',
              reason: phase === 'RequiresApproval' ? 'RequiresApproval' : 'Installing',
              lastUpdateTime: now(),
              lastTransitionTime: now(),
            },
      ],
      bundleLookups: [],
      plan: [{ ...((ip.status.plan as Json[])[0] as Json), resolving: p.csv }],
    };
    return ip;
  };
  const subscriptionObject = (p: FakeInstallPlanSpec, plan: Json): Json => {
    const sub = readFixture<Json & { metadata: Json; spec: Json; status: Json }>('subscription.json');
    sub.metadata = { ...sub.metadata, name: p.subscription, namespace: p.namespace, uid: `sub-${p.namespace}-${p.subscription}` };
    sub.spec = { ...sub.spec, name: p.package ?? p.subscription, installPlanApproval: p.approval ?? 'Manual' };
    const ref = {
      apiVersion: 'operators.coreos.com/v1alpha1',
      kind: 'InstallPlan',
      name: p.name,
      namespace: p.namespace,
      uid: (plan.metadata as Json).uid,
    };
    sub.status = { ...sub.status, currentCSV: p.csv, installPlanRef: ref, installplan: { ...ref, uuid: ref.uid } };
    return sub;
  };
  const olmObjects = (plans: FakeInstallPlanSpec[]) => {
    const installPlans = plans.map(installPlanObject);
    // one Subscription per (namespace, name); it points to its newest plan (the last listed)
    const subscriptions = new Map<string, Json>();
    plans.forEach((p, i) => {
      if (p.subscription) subscriptions.set(`${p.namespace}/${p.subscription}`, subscriptionObject(p, installPlans[i]!));
    });
    return { installPlans, subscriptions: [...subscriptions.values()] };
  };
  const nodeObjects = (spec: FakeOpenShiftClusterSpec): Json[] =>
    Array.from({ length: spec.nodes ?? 6 }, (_, i) => {
      const role = i < 3 ? 'master' : 'worker';
      const name = `ip-10-0-${i}-${100 + i}.ec2.internal`;
      return JSON.parse(
        JSON.stringify(readFixture<Json>('node.json'))
          .replaceAll('NODE_NAME', name)
          .replaceAll('NODE_ROLE', role)
          .replaceAll('NODE_REGION', spec.platform?.region ?? 'us-east-1'),
      ) as Json;
    });
  for (const spec of opts.clusters) {
    const cv = readFixture<ClusterVersion>('clusterversion.json');
    const image = releaseImage(spec.version);
    cv.spec.channel = spec.channel ?? `stable-${spec.version.split('.').slice(0, 2).join('.')}`;
    cv.spec.clusterID = createHash('sha256')
      .update(spec.name)
      .digest('hex')
      .slice(0, 32)
      .replace(/^(.{8})(.{4})(.{4})(.{4})/, '$1-$2-$3-$4-');
    cv.status.desired = { ...cv.status.desired, version: spec.version, image };
    cv.status.history = [{ ...cv.status.history[0]!, version: spec.version, image }];
    cv.status.conditions = cv.status.conditions.map((c) => (c.message ? { ...c, message: c.message.replace('4.13.10', spec.version) } : c));
    const state: ClusterState = {
      spec,
      cv,
      operators: (spec.operators ?? DEFAULT_OPERATORS).map((o) => operatorObject(o, spec.version)),
      pools: (spec.pools ?? ['master', 'worker']).map(poolObject).map((p) => {
        if (spec.pausedPools?.includes((p.metadata as Json).name as string)) (p.spec as Json).paused = true;
        return p;
      }),
      adminAcks: readFixture<Json>('configmap-admin-acks.json'),
      adminGates: adminGatesObject(spec.adminGates),
      infrastructure: infrastructureObject(spec),
      nodes: nodeObjects(spec),
      csvs: csvObjects(spec),
      apiRequestCounts: apiRequestCountObjects(spec),
      ...olmObjects(spec.installPlans ?? []),
      remainingItemCount: true,
      pathFaults: new Map(),
      alerts: [],
      alertsReadable: true,
      withdrawn: new Set(),
      conditional: new Set(spec.conditional ?? []),
      fault: null,
    };
    refreshOffers(state);
    clusters.set(spec.name, state);
  }
  const get = (name: string) => {
    const s = clusters.get(name);
    if (!s) throw new Error(`fake OpenShift: no cluster ${name}`);
    return s;
  };
  const running = (s: ClusterState) => {
    const head = s.cv.status.history[0];
    return head && head.state === 'Partial' && !head.completionTime ? head : null;
  };
  const findPlan = (name: string, ns: string, plan: string): Json => {
    const ip = get(name).installPlans.find((p) => (p.metadata as Json).namespace === ns && (p.metadata as Json).name === plan);
    if (!ip) throw new Error(`fake OpenShift: no InstallPlan ${ns}/${plan} on ${name}`);
    return ip;
  };
  const setOperatorCondition = (name: string, operator: string, type: string, value: string, message?: string) => {
    const s = get(name);
    const op = s.operators.find((o) => (o.metadata as Json).name === operator);
    if (!op) throw new Error(`fake OpenShift: no operator ${operator} on ${name}`);
    const st = op.status as { conditions: Condition[] };
    st.conditions = st.conditions.map((c) =>
      c.type === type
        ? {
            ...c,
            status: value,
            lastTransitionTime: now(),
            reason: message ? 'FakeProblem' : 'AsExpected',
            ...(message ? { message } : {}),
          }
        : c,
    );
    if (!message) st.conditions = st.conditions.map((c) => (c.type === type ? (({ message: _m, ...rest }) => rest)(c) : c));
  };

  const acceptDesiredUpdate = (s: ClusterState) => {
    const want = s.cv.spec.desiredUpdate;
    if (!want?.version || want.version === currentVersion(s) || running(s)?.version === want.version) return;
    const offered = [...(s.cv.status.availableUpdates ?? []), ...s.cv.status.conditionalUpdates.map((c) => c.release)].find(
      (r) => r.version === want.version && (!want.image || want.image === r.image),
    );
    if (!offered) {
      setCondition(s, {
        type: 'ReleaseAccepted',
        status: 'False',
        reason: 'VersionNotFound',
        message: `Unable to find ${want.version} among the available updates`,
      });
      return;
    }
    const h = running(s);
    if (h) h.completionTime = now(); // superseded, stays Partial
    s.cv.status.desired = { ...s.cv.status.desired, version: offered.version, image: offered.image };
    s.cv.status.history.unshift({
      state: 'Partial',
      startedTime: now(),
      completionTime: null,
      version: offered.version,
      image: offered.image,
      verified: true,
      acceptedRisks: '',
    });
    setCondition(s, {
      type: 'ReleaseAccepted',
      status: 'True',
      reason: 'PayloadLoaded',
      message: `Payload loaded version="${offered.version}"`,
    });
    setCondition(s, { type: 'Progressing', status: 'True', message: `Working towards ${offered.version}: 0 of 842 done (0% complete)` });
    setCondition(s, { type: 'Failing', status: 'False' });
  };

  const handleCluster = (s: ClusterState, req: FakeRequest, rest: string): FakeResponse | Promise<FakeResponse> => {
    const identity = req.clientCertCN ? `cert:${req.clientCertCN}` : (bearer(req) ?? null);
    requestLog.push({ cluster: s.spec.name, method: req.method, path: rest, query: Object.fromEntries(req.query), identity });
    if (s.fault === 'unreachable') return { status: 0, drop: true };
    if (s.fault === 'hang') return new Promise<FakeResponse>(() => {}); // answered never; close() drops the connection
    if (s.fault === 500) return status(500, 'InternalError', 'Internal error occurred: etcdserver: request timed out');
    // as the API server: a valid bearer token wins; else a verified client certificate
    if (bearer(req) !== token && req.clientCertCN !== certUser) return status(401, 'Unauthorized', 'Unauthorized');
    const pathFault = s.pathFaults.get(`${req.method} ${rest}`) ?? s.pathFaults.get(`* ${rest}`);
    if (pathFault) return pathFault;
    if (rest === CV_PATH && req.method === 'GET') return { status: 200, body: s.cv };
    if (rest === CV_PATH && req.method === 'PATCH') {
      const refused = mergePatchRefusal(req);
      if (refused) return refused;
      const write: FakeWrite = { cluster: s.spec.name, method: 'PATCH', path: rest, body: req.body, at: now() };
      writes.push(write);
      const patched = mergePatch(s.cv, req.body) as ClusterVersion;
      // the main resource ignores status (a subresource) and identity changes
      const specChanged = JSON.stringify(patched.spec) !== JSON.stringify(s.cv.spec);
      s.cv = {
        ...s.cv,
        metadata: {
          ...(patched.metadata ?? s.cv.metadata),
          name: 'version',
          resourceVersion: String(Number(s.cv.metadata.resourceVersion) + 1),
          generation: s.cv.metadata.generation + (specChanged ? 1 : 0),
        },
        spec: patched.spec ?? {},
      };
      acceptDesiredUpdate(s);
      writeHook?.(write);
      return { status: 200, body: s.cv };
    }
    if (rest === CO_PATH && req.method === 'GET')
      return {
        status: 200,
        body: { apiVersion: 'config.openshift.io/v1', kind: 'ClusterOperatorList', metadata: { resourceVersion: '1' }, items: s.operators },
      };
    if (rest === MCP_PATH && req.method === 'GET')
      return {
        status: 200,
        body: {
          apiVersion: 'machineconfiguration.openshift.io/v1',
          kind: 'MachineConfigPoolList',
          metadata: { resourceVersion: '1' },
          items: s.pools,
        },
      };
    const onePool = ONE_MCP_PATH.exec(rest);
    if (onePool && (req.method === 'GET' || req.method === 'PATCH')) {
      const name = decodeURIComponent(onePool[1]!);
      const pool = s.pools.find((p) => (p.metadata as Json).name === name);
      if (!pool) return status(404, 'NotFound', `machineconfigpools.machineconfiguration.openshift.io "${name}" not found`);
      if (req.method === 'GET') return { status: 200, body: pool };
      const refused = mergePatchRefusal(req);
      if (refused) return refused;
      const write: FakeWrite = { cluster: s.spec.name, method: 'PATCH', path: rest, body: req.body, at: now() };
      writes.push(write);
      const patched = mergePatch(pool, req.body) as Json & { spec: Json };
      // the main resource ignores status (a subresource)
      pool.spec = patched.spec;
      pool.metadata = { ...(pool.metadata as Json), resourceVersion: String(Number((pool.metadata as Json).resourceVersion) + 1) };
      writeHook?.(write);
      return { status: 200, body: pool };
    }
    if (rest === ADMIN_GATES_PATH && req.method === 'GET') {
      if (s.adminGates) return { status: 200, body: s.adminGates };
      const missing = status(404, 'NotFound', 'configmaps "admin-gates" not found');
      return { ...missing, body: { ...(missing.body as Json), details: { name: 'admin-gates', kind: 'configmaps' } } };
    }
    if (rest === ADMIN_ACKS_PATH && (req.method === 'GET' || req.method === 'PATCH')) {
      if (req.method === 'GET') return { status: 200, body: s.adminAcks };
      const refused = mergePatchRefusal(req);
      if (refused) return refused;
      const write: FakeWrite = { cluster: s.spec.name, method: 'PATCH', path: rest, body: req.body, at: now() };
      writes.push(write);
      const patched = mergePatch(s.adminAcks, req.body) as Json;
      s.adminAcks = {
        ...patched,
        metadata: {
          ...(s.adminAcks.metadata as Json),
          resourceVersion: String(Number((s.adminAcks.metadata as Json).resourceVersion) + 1),
        },
      };
      writeHook?.(write);
      return { status: 200, body: s.adminAcks };
    }
    if (rest === INFRA_PATH && req.method === 'GET') return { status: 200, body: s.infrastructure };
    if ((rest === CSV_PATH || rest === ARC_PATH) && req.method === 'GET') {
      const csv = rest === CSV_PATH;
      if (s.spec.olm === false) {
        const what = csv ? 'clusterserviceversions.operators.coreos.com' : 'apirequestcounts.apiserver.openshift.io';
        return {
          status: 404,
          body: {
            kind: 'Status',
            apiVersion: 'v1',
            metadata: {},
            status: 'Failure',
            message: `the server could not find the requested resource (get ${what})`,
            reason: 'NotFound',
            code: 404,
          },
        };
      }
      return {
        status: 200,
        body: csv
          ? {
              apiVersion: 'operators.coreos.com/v1alpha1',
              kind: 'ClusterServiceVersionList',
              metadata: { resourceVersion: '1' },
              items: s.csvs,
            }
          : {
              apiVersion: 'apiserver.openshift.io/v1',
              kind: 'APIRequestCountList',
              metadata: { resourceVersion: '1' },
              items: s.apiRequestCounts,
            },
      };
    }
    if ((rest === IP_PATH || rest === SUB_PATH) && req.method === 'GET') {
      const plans = rest === IP_PATH;
      if (s.spec.olm === false)
        return status(
          404,
          'NotFound',
          `the server could not find the requested resource (get ${plans ? 'installplans' : 'subscriptions'}.operators.coreos.com)`,
        );
      return {
        status: 200,
        body: {
          apiVersion: 'operators.coreos.com/v1alpha1',
          kind: plans ? 'InstallPlanList' : 'SubscriptionList',
          metadata: { resourceVersion: '1' },
          items: plans ? s.installPlans : s.subscriptions,
        },
      };
    }
    const one = ONE_IP_PATH.exec(rest);
    if (one && (req.method === 'GET' || req.method === 'PATCH')) {
      const [ns, name] = [decodeURIComponent(one[1]!), decodeURIComponent(one[2]!)];
      const ip = s.installPlans.find((p) => (p.metadata as Json).namespace === ns && (p.metadata as Json).name === name);
      if (!ip) return status(404, 'NotFound', `installplans.operators.coreos.com "${name}" not found`);
      if (req.method === 'GET') {
        const answer = { status: 200, body: structuredClone(ip) };
        readHook?.({ cluster: s.spec.name, path: rest });
        return answer;
      }
      const refused = mergePatchRefusal(req) ?? resourceVersionConflict(ip, req.body as Json, 'installplans', 'operators.coreos.com');
      if (refused) return refused;
      const write: FakeWrite = { cluster: s.spec.name, method: 'PATCH', path: rest, body: req.body, at: now() };
      writes.push(write);
      const patched = mergePatch(ip, req.body) as Json & { spec: Json; status: Json; metadata: Json };
      // the main resource ignores status (a subresource)
      ip.spec = patched.spec;
      bumpResourceVersion(ip);
      // OLM's catalog operator picks an approved plan up
      if (patched.spec.approved === true && (ip.status as Json).phase === 'RequiresApproval') (ip.status as Json).phase = 'Installing';
      writeHook?.(write);
      return { status: 200, body: ip };
    }
    if (rest === NODES_PATH && req.method === 'GET') {
      // chunked lists (API concepts, "Retrieving large results sets in chunks"): `limit` items, an
      // opaque `continue` token while more remain, and remainingItemCount
      const limit = Number(req.query.get('limit') ?? 0);
      const from = Number(req.query.get('continue') ?? 0);
      const items = limit > 0 ? s.nodes.slice(from, from + limit) : s.nodes.slice(from);
      const remaining = s.nodes.length - from - items.length;
      return {
        status: 200,
        body: {
          kind: 'NodeList',
          apiVersion: 'v1',
          metadata: {
            resourceVersion: '1',
            ...(remaining > 0
              ? { continue: String(from + items.length), ...(s.remainingItemCount ? { remainingItemCount: remaining } : {}) }
              : {}),
          },
          items,
        },
      };
    }
    if ((rest === '/api/v1/query' || rest === `${PROXY_PREFIX}/api/v1/query`) && req.method === 'GET') {
      if (!s.alertsReadable) return { status: 503, body: { status: 'error', errorType: 'unavailable', error: 'no healthy upstream' } };
      const matchers = alertMatchers(req.query.get('query') ?? '');
      if (!matchers)
        return {
          status: 400,
          body: { status: 'error', errorType: 'bad_data', error: 'this fake only evaluates ALERTS{label="value",...}' },
        };
      const template = readFixture<{ data: { result: { value: [number, string] }[] } }>('prometheus-alerts.json');
      const ts = Date.parse(now()) / 1000;
      const series = [{ alertname: 'Watchdog', namespace: 'openshift-monitoring', severity: 'none' }, ...s.alerts]
        .map((a) => ({ __name__: 'ALERTS', alertstate: 'firing', ...a }))
        .filter((m) => Object.entries(matchers).every(([k, v]) => (m as Record<string, string | undefined>)[k] === v))
        .map((metric) => ({ metric, value: [ts, '1'] as [number, string] }));
      return { status: 200, body: { ...template, data: { resultType: 'vector', result: series } } };
    }
    return status(404, 'NotFound', `the server could not find the requested resource (${req.method} ${rest})`);
  };

  const api: Omit<FakeOpenShift, keyof RunningFake | 'token' | 'serverUrl' | 'kubeconfig'> = {
    clusterVersion: (name) => get(name).cv,
    writes: (name) => writes.filter((w) => !name || w.cluster === name),
    completeUpdate(name) {
      const s = get(name);
      const h = running(s);
      if (!h) throw new Error(`fake OpenShift: ${name} has no update running`);
      h.state = 'Completed';
      h.completionTime = now();
      setCondition(s, { type: 'Progressing', status: 'False', message: `Cluster version is ${h.version}` });
      setCondition(s, { type: 'Failing', status: 'False' });
      for (const o of s.operators)
        (o.status as { versions: { name: string; version: string }[] }).versions = [{ name: 'operator', version: h.version }];
      refreshOffers(s);
    },
    failUpdate(name, message) {
      const s = get(name);
      if (!running(s)) throw new Error(`fake OpenShift: ${name} has no update running`);
      setCondition(s, { type: 'Failing', status: 'True', reason: 'ClusterOperatorDegraded', message });
      setCondition(s, { type: 'Progressing', status: 'False', message: `Error while reconciling: ${message}` });
    },
    stallUpdate(name, message) {
      const s = get(name);
      const h = running(s);
      if (!h) throw new Error(`fake OpenShift: ${name} has no update running`);
      setCondition(s, { type: 'Failing', status: 'True', reason: 'ClusterOperatorNotAvailable', message });
      setCondition(s, { type: 'Progressing', status: 'True', message: `Unable to apply ${h.version}: ${message}` });
    },
    degradeOperator: (name, operator, message) => setOperatorCondition(name, operator, 'Degraded', 'True', message),
    makeOperatorUnavailable: (name, operator, message) => setOperatorCondition(name, operator, 'Available', 'False', message),
    recoverOperator(name, operator) {
      setOperatorCondition(name, operator, 'Degraded', 'False');
      setOperatorCondition(name, operator, 'Available', 'True');
    },
    fireAlert: (name, alert) => void get(name).alerts.push(alert),
    clearAlerts: (name) => void (get(name).alerts = []),
    setAlertsReadable: (name, readable) => void (get(name).alertsReadable = readable),
    withdrawRelease(name, version) {
      const s = get(name);
      s.withdrawn.add(version);
      refreshOffers(s);
    },
    offerConditionally(name, version) {
      const s = get(name);
      s.conditional.add(version);
      refreshOffers(s);
    },
    setUpgradeable(name, value, message) {
      const s = get(name);
      setCondition(s, { type: 'Upgradeable', status: value, ...(message ? { reason: 'FakeReason', message } : {}) });
    },
    setFault: (name, fault) => void (get(name).fault = fault),
    setPathFault(name, p, code, message, method) {
      const key = `${method ?? '*'} ${p}`;
      const s = get(name);
      if (code === null) s.pathFaults.delete(key);
      else {
        const reason = code === 403 ? 'Forbidden' : code === 404 ? 'NotFound' : code === 401 ? 'Unauthorized' : 'InternalError';
        s.pathFaults.set(key, status(code, reason, message ?? reason));
      }
    },
    degradePool(name, pool, message) {
      const p = get(name).pools.find((x) => (x.metadata as Json).name === pool);
      if (!p) throw new Error(`fake OpenShift: no pool ${pool} on ${name}`);
      const st = p.status as { conditions: Condition[]; degradedMachineCount: number };
      st.degradedMachineCount = 1;
      st.conditions = st.conditions.map((c) =>
        c.type === 'Degraded' || c.type === 'NodeDegraded'
          ? {
              ...c,
              status: 'True',
              reason: c.type === 'NodeDegraded' ? '1 nodes are reporting degraded status on sync' : '',
              message,
              lastTransitionTime: now(),
            }
          : c,
      );
    },
    rollPool(name, pool, state) {
      const p = get(name).pools.find((x) => (x.metadata as Json).name === pool);
      if (!p) throw new Error(`fake OpenShift: no pool ${pool} on ${name}`);
      const st = p.status as { conditions: Condition[]; machineCount: number; updatedMachineCount: number; readyMachineCount: number };
      st.updatedMachineCount = state === 'done' ? st.machineCount : state === 'rolling' ? 1 : 0;
      st.readyMachineCount = st.updatedMachineCount;
      const set = (type: string, on: boolean) =>
        (st.conditions = st.conditions.map((c) =>
          c.type === type ? { ...c, status: on ? 'True' : 'False', lastTransitionTime: now() } : c,
        ));
      set('Updated', state === 'done');
      set('Updating', state === 'rolling');
    },
    pool: (name, pool) => {
      const p = get(name).pools.find((x) => (x.metadata as Json).name === pool);
      if (!p) throw new Error(`fake OpenShift: no pool ${pool} on ${name}`);
      return p;
    },
    adminAcks: (name) => (get(name).adminAcks.data ?? {}) as Record<string, string>,
    setRemainingItemCount: (name, on) => void (get(name).remainingItemCount = on),
    requests: (name) => requestLog.filter((r) => !name || r.cluster === name),
    publishRelease(name, version) {
      const s = get(name);
      if (!s.spec.releases.includes(version)) s.spec = { ...s.spec, releases: [...s.spec.releases, version] };
      refreshOffers(s);
    },
    onWrite: (h) => void (writeHook = h),
    onRead: (h) => void (readHook = h),
    installPlan: (name, ns, plan) => findPlan(name, ns, plan),
    changeInstallPlan(name, ns, plan, change) {
      const ip = findPlan(name, ns, plan);
      if (change.approved !== undefined) ip.spec = { ...(ip.spec as Json), approved: change.approved };
      if (change.phase !== undefined) ip.status = { ...(ip.status as Json), phase: change.phase };
      bumpResourceVersion(ip);
    },
    completeInstallPlan(name, ns, plan) {
      const ip = findPlan(name, ns, plan);
      bumpResourceVersion(ip);
      ip.status = {
        ...(ip.status as Json),
        phase: 'Complete',
        conditions: [{ type: 'Installed', status: 'True', lastUpdateTime: now(), lastTransitionTime: now() }],
      };
    },
    failInstallPlan(name, ns, plan, message) {
      const ip = findPlan(name, ns, plan);
      bumpResourceVersion(ip);
      ip.status = {
        ...(ip.status as Json),
        phase: 'Failed',
        conditions: [
          {
            type: 'Installed',
            status: 'False',
            reason: 'InstallComponentFailed',
            message,
            lastUpdateTime: now(),
            lastTransitionTime: now(),
          },
        ],
      };
    },
    addInstallPlan(name, plan) {
      const s = get(name);
      const specs = [...(s.spec.installPlans ?? []), plan];
      s.spec = { ...s.spec, installPlans: specs };
      const ip = installPlanObject(plan);
      s.installPlans.push(ip);
      if (plan.subscription) {
        const sub = subscriptionObject(plan, ip);
        s.subscriptions = [
          ...s.subscriptions.filter(
            (x) => !((x.metadata as Json).namespace === plan.namespace && (x.metadata as Json).name === plan.subscription),
          ),
          sub,
        ];
      }
    },
  };

  const control = (req: FakeRequest, name: string, action: string): FakeResponse => {
    const args = (req.body ?? {}) as Record<string, unknown>;
    const str = (k: string) => (typeof args[k] === 'string' ? args[k] : '');
    switch (action) {
      case 'complete':
        api.completeUpdate(name);
        break;
      case 'fail':
        api.failUpdate(name, str('message'));
        break;
      case 'stall':
        api.stallUpdate(name, str('message'));
        break;
      case 'degrade':
        api.degradeOperator(name, str('operator'), str('message'));
        break;
      case 'recover':
        api.recoverOperator(name, str('operator'));
        break;
      case 'withdraw':
        api.withdrawRelease(name, str('version'));
        break;
      case 'publish':
        api.publishRelease(name, str('version'));
        break;
      case 'fault':
        api.setFault(name, args.fault === 500 || args.fault === 'unreachable' || args.fault === 'hang' ? args.fault : null);
        break;
      default:
        return { status: 404, body: { message: `no action ${action}` } };
    }
    return { status: 200, body: get(name).cv };
  };

  const server = await serveJson(
    (req) => {
      const extra = req.path.startsWith('/_fake/') ? opts.control?.(req) : undefined;
      if (extra) return extra;
      if (req.path === '/_fake/writes') return { status: 200, body: { writes } };
      const ctl = /^\/_fake\/clusters\/([^/]+)\/([a-z]+)$/.exec(req.path);
      if (ctl && req.method === 'POST') return control(req, decodeURIComponent(ctl[1]!), ctl[2]!);
      const m = /^\/clusters\/([^/]+)(\/.*)$/.exec(req.path);
      const s = m ? clusters.get(decodeURIComponent(m[1]!)) : undefined;
      if (!m || !s) return status(404, 'NotFound', `no such cluster (${req.path})`);
      return handleCluster(s, req, m[2]!);
    },
    opts.port,
    opts.tls,
  );
  const serverUrl = (name: string) => `${server.url}/clusters/${encodeURIComponent(name)}`;
  return {
    ...server,
    ...api,
    token,
    serverUrl,
    kubeconfig: () =>
      [
        'apiVersion: v1',
        'kind: Config',
        'clusters:',
        ...opts.clusters.map(
          (c) =>
            `- name: ${c.name}\n  cluster: {server: "${serverUrl(c.name)}"${opts.tls ? `, certificate-authority-data: "${Buffer.from(opts.tls.ca ?? opts.tls.cert).toString('base64')}"` : ''}}`,
        ),
        'users:',
        `- name: fake-admin\n  user: {token: "${token}"}`,
        'contexts:',
        ...opts.clusters.map((c) => `- name: ${c.name}\n  context: {cluster: ${c.name}, user: fake-admin}`),
        '',
      ].join('\n'),
  };
}
