/**
 * Kubernetes/OpenShift provider: one cluster per kubeconfig context, through
 * @kubernetes/client-node (kubeconfig loading per context in ./kubeconfig.ts: every auth method
 * kubectl has, TLS and proxy settings).
 *
 * What is read (openshift/api config/v1 and machineconfiguration/v1 types, core/v1 Node, the
 * Prometheus HTTP API; see tests/fakes/PROVENANCE.md), every read a GET:
 * - ClusterVersion `version` (CustomObjectsApi, config.openshift.io/v1 clusterversions) →
 *   `{spec: {channel, clusterID, desiredUpdate?: {version, image}}, status: {desired: {version, image},
 *   history: [{state: "Completed"|"Partial", version, image, startedTime, completionTime}] (newest first),
 *   availableUpdates: [{version, image}] | null, conditionalUpdates?: [{release: {version, image}, risks, conditions}],
 *   conditions: [{type: "Available"|"Progressing"|"Failing"|"Upgradeable"|..., status, reason, message}]}}`;
 * - ClusterOperators (config.openshift.io/v1 clusteroperators) →
 *   `{items: [{metadata: {name}, status: {conditions: [{type: "Degraded"|"Available", status, message}]}}]}`;
 * - MachineConfigPools (machineconfiguration.openshift.io/v1 machineconfigpools) →
 *   `{items: [{metadata: {name}, status: {conditions: [{type: "Degraded"|"NodeDegraded"|"RenderDegraded"|"Updating"|…, status, message}]}}]}`:
 *   a Degraded pool is a health issue (`other`); updating is not (every upgrade rolls the pools);
 *   each pool's `spec.paused` and `status.{machineCount, updatedMachineCount, degradedMachineCount}` with
 *   its Updated/Updating/Degraded conditions are the EUS-to-EUS procedure's reading (openshift/api
 *   machineconfiguration/v1 MachineConfigPoolSpec/Status; the master pool is the one named `master`);
 * - firing alerts: Prometheus `GET /api/v1/query?query=ALERTS{alertstate="firing"}` through the API
 *   server's service proxy to thanos-querier (openshift-monitoring, https:thanos-querier:9091), with the
 *   context's credentials → `{status: "success", data: {result: [{metric: {alertname, namespace, severity}}]}}`;
 *   alerts that cannot be read are `null` (not a gate), as before;
 * - discovery, best effort (a failed read leaves its part null): Infrastructure `cluster`
 *   (config.openshift.io/v1 infrastructures) `status.platformStatus.type` → cloud and
 *   `status.platformStatus.<platform>.region` → region; Nodes listed with `limit=1`, counted from
 *   `metadata.remainingItemCount` (paged when the server leaves it out), and the first node's
 *   `topology.kubernetes.io/region` label as the region where the platform has none (Azure,
 *   vSphere); labels from the kubeconfig context's `fleetplan` extension (./kubeconfig.ts).
 *
 * - upgrade inhibitors, best effort (lifecycle/inhibitors.ts): ClusterServiceVersions in all namespaces
 *   (operators.coreos.com/v1alpha1, operator-framework/api: `metadata.annotations["olm.properties"]`
 *   a JSON list holding `{type: "olm.maxOpenShiftVersion", value}`; copies labelled `olm.copiedFrom`
 *   left out) and APIRequestCounts (apiserver.openshift.io/v1, openshift/api: `status.removedInRelease`,
 *   `status.requestCount` over 24 h, `status.last24h[].byNode[].byUser[] {username, requestCount}`).
 *
 * - operator approvals, only for an attempt in the operator-approvals phase (lifecycle/operator-approvals.ts):
 *   InstallPlans and Subscriptions in all namespaces (operators.coreos.com/v1alpha1, operator-framework/api
 *   `installplan_types.go`, `subscription_types.go`): a plan's `spec.approval/approved/clusterServiceVersionNames`,
 *   `status.phase` and its `Installed` condition's message; the Subscriptions it belongs to by its
 *   `metadata.ownerReferences` (kind Subscription) and their `status.installPlanRef`, with the package
 *   `spec.name`. `approveInstallPlan` re-reads the plan and merge-patches `spec.approved: true` only
 *   while it is false (what `oc patch installplan … --type merge -p '{"spec":{"approved":true}}'` does),
 *   with the `metadata.resourceVersion` it read as the precondition (409 Conflict: changed since).
 *
 * The EUS-to-EUS procedure's writes (lifecycle/eus-procedure.ts), each after a re-read and only when
 * not already so: `setMachineConfigPoolPaused` merge-patches a pool's `spec.paused` (what
 * `oc patch mcp worker --type merge -p '{"spec":{"paused":true}}'` does), `acknowledgeAdminGate`
 * merge-patches `data: {GATE: "true"}` on ConfigMap openshift-config/admin-acks (what the update docs'
 * "Providing the administrator acknowledgment" runs: `oc -n openshift-config patch cm admin-acks
 * --patch '{"data":{"ack-4.15-kube-1.29-api-removals-in-4.16":"true"}}' --type=merge`).
 *
 * The writes: `startUpgrade` merge-patches (`application/merge-patch+json`) `spec.desiredUpdate
 * {version, image}` on the ClusterVersion, after `setChannel` merge-patched `spec.channel` when a
 * route's hop needs another channel (nothing written when the cluster is on it already); `cancelUpgrade` merge-patches `spec.desiredUpdate: null`
 * while the cluster-version operator has not begun that update (what `oc adm upgrade --clear` does).
 * The operator has no notion of a future start, so `startUpgrade` begins at once (startLeadMs 0: it
 * is called at the slot).
 *
 * Each request has its own timeout, and each cluster's read a deadline (an exec plugin that hangs
 * is not under the request timeout), so one slow cluster does not hold the tick; errors keep the
 * API server's `Status.message`.
 *
 * How the ClusterVersion reads as an upgrade:
 * - the newest history entry `Partial` without a completion time is the running upgrade; so is a
 *   `spec.desiredUpdate` the operator has not put in the history yet;
 * - `Failing=True` while `Progressing=True` is a running upgrade with a problem (the operator keeps
 *   retrying; the lifecycle's timeout decides); `Failing=True` with `Progressing` not True is a
 *   failed upgrade whose reason is the Failing message;
 * - `Upgradeable` absent means upgradeable (the operator only sets it to object).
 */
import type { ClusterInhibitorFacts, InstalledOperator, RemovedApiUse } from '@/server/domain/lifecycle/inhibitors';
import type { MachineConfigPoolReading } from '@/server/domain/lifecycle/observation';
import type { InstallPlanReading } from '@/server/domain/lifecycle/operator-approvals';
import {
  ApiException,
  CoreV1Api,
  createConfiguration,
  CustomObjectsApi,
  HttpMethod,
  IsomorphicFetchHttpLibrary,
  PatchStrategy,
  ServerConfiguration,
  setHeaderOptions,
  wrapHttpLibrary,
  type Configuration,
  type KubeConfig,
} from '@kubernetes/client-node';
import { z } from 'zod';
import { formatInstantToSecond } from '@/server/domain/plan/time';
import { compareVersions, isSemver } from '@/server/domain/version/version';
import { summarizeHealth } from './health-reading';
import { loadKubeconfig, type LoadedContext } from './kubeconfig';
import { errorMessage, mapSettled } from './map-settled';
import type {
  AlertReading,
  ClusterDiscovery,
  ClusterRef,
  ClusterSnapshot,
  FinishedUpgrade,
  FleetProvider,
  HealthReading,
  OperatorReading,
  ProviderUpgrade,
  UpgradeableCondition,
} from './types';
import { ProviderError } from './types';

const CLUSTER_VERSION = { group: 'config.openshift.io', version: 'v1', plural: 'clusterversions', name: 'version' } as const;
const CLUSTER_OPERATORS = { group: 'config.openshift.io', version: 'v1', plural: 'clusteroperators' } as const;
const INFRASTRUCTURE = { group: 'config.openshift.io', version: 'v1', plural: 'infrastructures', name: 'cluster' } as const;
const CLUSTER_SERVICE_VERSIONS = { group: 'operators.coreos.com', version: 'v1alpha1', plural: 'clusterserviceversions' } as const;
const API_REQUEST_COUNTS = { group: 'apiserver.openshift.io', version: 'v1', plural: 'apirequestcounts' } as const;
const INSTALL_PLANS = { group: 'operators.coreos.com', version: 'v1alpha1', plural: 'installplans' } as const;
const SUBSCRIPTIONS = { group: 'operators.coreos.com', version: 'v1alpha1', plural: 'subscriptions' } as const;
/** callers named per removed API (those with the most requests) */
const REMOVED_API_USERS = 3;
/** the operators and API-use read is optional: it gets its own, shorter deadline and never fails the cluster */
const INHIBITOR_READ_MS = 20_000;
const MACHINE_CONFIG_POOLS = { group: 'machineconfiguration.openshift.io', version: 'v1', plural: 'machineconfigpools' } as const;
export const CLUSTER_VERSION_PATH = '/apis/config.openshift.io/v1/clusterversions/version';
/** the in-cluster route to the Thanos querier (Prometheus API over every Prometheus) through the API server */
export const ALERTS_PROXY_PATH = '/api/v1/namespaces/openshift-monitoring/services/https:thanos-querier:9091/proxy/api/v1/query';
export const FIRING_ALERTS_QUERY = 'ALERTS{alertstate="firing"}';
/** how far in the future a start may lie and still begin now (clock skew between tick and call) */
const START_TOLERANCE_MS = 60_000;
const READ_CONCURRENCY = 8;
/** per request, as the hand-written client had */
export const DEFAULT_REQUEST_TIMEOUT_MS = 15_000;
/** node list pages read when the server does not say how many remain (then counting pages through) */
const MAX_NODE_PAGES = 20;
const NODE_PAGE = 500;

export interface KubernetesProviderOptions {
  /** per request (default 15 s) */
  requestTimeoutMs?: number;
  /** exec credential plugins' time limit (default 30 s) */
  execTimeoutMs?: number;
  /** per cluster read (default 4 requests' worth: one read is the ClusterVersion, then the rest at once) */
  clusterDeadlineMs?: number;
}

const ZCondition = z.object({ type: z.string(), status: z.string(), reason: z.string().optional(), message: z.string().optional() });
const ZRelease = z.object({ version: z.string(), image: z.string().optional() });
const ZClusterVersion = z.object({
  spec: z
    .object({
      channel: z.string().optional(),
      clusterID: z.string().optional(),
      desiredUpdate: z.object({ version: z.string().optional(), image: z.string().optional() }).nullish(),
    })
    .optional(),
  status: z.object({
    desired: z.object({ version: z.string().optional(), image: z.string().optional() }).optional(),
    history: z
      .array(
        z.object({
          state: z.string(),
          version: z.string(),
          startedTime: z.string().optional(),
          completionTime: z.string().nullish(),
        }),
      )
      .nullish()
      .transform((h) => h ?? []),
    availableUpdates: z.array(ZRelease).nullish(),
    conditionalUpdates: z.array(z.object({ release: ZRelease })).nullish(),
    conditions: z
      .array(ZCondition)
      .nullish()
      .transform((c) => c ?? []),
  }),
});
type ClusterVersion = z.infer<typeof ZClusterVersion>;
/** ClusterOperator and MachineConfigPool lists: names and conditions are all that is read */
const ZConditionedList = z.object({
  items: z
    .array(
      z.object({
        metadata: z.object({ name: z.string() }),
        status: z.object({ conditions: z.array(ZCondition).nullish() }).optional(),
      }),
    )
    .nullish(),
});
type ConditionedList = z.infer<typeof ZConditionedList>;
/** MachineConfigPools with what the EUS-to-EUS procedure reads (spec.paused, the status counts) */
const ZPoolList = z.object({
  items: z
    .array(
      z.object({
        metadata: z.object({ name: z.string() }),
        spec: z.object({ paused: z.boolean().nullish() }).nullish(),
        status: z
          .object({
            conditions: z.array(ZCondition).nullish(),
            machineCount: z.number().nullish(),
            updatedMachineCount: z.number().nullish(),
            degradedMachineCount: z.number().nullish(),
          })
          .optional(),
      }),
    )
    .nullish(),
});
type PoolList = z.infer<typeof ZPoolList>;

/** Each MachineConfigPool as the EUS-to-EUS procedure reads it (lifecycle/observation.ts). */
export function readPools(list: PoolList): MachineConfigPoolReading[] {
  return (list.items ?? []).map((pool) => {
    const conditions = pool.status?.conditions ?? [];
    const isTrue = (type: string) => conditions.some((c) => c.type === type && c.status === 'True');
    const { degraded, message } = poolDegradation(conditions);
    return {
      name: pool.metadata.name,
      master: pool.metadata.name === 'master',
      paused: pool.spec?.paused === true,
      machineCount: pool.status?.machineCount ?? 0,
      updatedMachineCount: pool.status?.updatedMachineCount ?? 0,
      degradedMachineCount: pool.status?.degradedMachineCount ?? 0,
      updated: isTrue('Updated'),
      updating: isTrue('Updating'),
      degraded,
      ...(message ? { message } : {}),
    };
  });
}
const ZAlerts = z.object({
  status: z.literal('success'),
  data: z.object({ result: z.array(z.object({ metric: z.record(z.string(), z.string()) })).default([]) }),
});
const ZInfrastructure = z.object({
  status: z
    .object({
      platform: z.string().optional(),
      platformStatus: z.record(z.string(), z.unknown()).optional(),
    })
    .optional(),
});

function isoOf(text: string | undefined, fallback: Date): string {
  const ms = text ? Date.parse(text) : NaN;
  return formatInstantToSecond(Number.isFinite(ms) ? new Date(ms) : fallback);
}

function condition(cv: ClusterVersion, type: string) {
  return cv.status.conditions.find((c) => c.type === type);
}

/** The version the cluster runs: the newest completed update, else what it was installed with. */
function currentVersion(cv: ClusterVersion): string {
  return cv.status.history.find((h) => h.state === 'Completed')?.version ?? cv.status.desired?.version ?? '0.0.0';
}

/** The pure reading of one cluster's API objects (exported for tests). */
export function readClusterVersion(
  cv: ClusterVersion,
  now: Date,
): Pick<
  ClusterSnapshot,
  'version' | 'channel' | 'availableUpgrades' | 'conditionalUpgrades' | 'upgradeable' | 'currentUpgrade' | 'lastUpgrade'
> {
  const version = currentVersion(cv);
  const available = (cv.status.availableUpdates ?? []).map((u) => u.version);
  const conditional = (cv.status.conditionalUpdates ?? []).map((u) => u.release.version).filter((v) => !available.includes(v));
  const up = condition(cv, 'Upgradeable');
  const upgradeable: UpgradeableCondition =
    up && (up.status === 'False' || up.status === 'Unknown')
      ? { status: up.status, ...(up.message ? { message: up.message } : {}) }
      : { status: 'True' };
  const failing = condition(cv, 'Failing');
  const progressing = condition(cv, 'Progressing')?.status === 'True';
  const head = cv.status.history[0];
  const desired = cv.spec?.desiredUpdate?.version;
  let target: { version: string; startedAt: string } | null = null;
  if (head && head.state === 'Partial' && !head.completionTime && head.version !== version)
    target = { version: head.version, startedAt: isoOf(head.startedTime, now) };
  else if (
    desired &&
    desired !== version &&
    desired !== head?.version &&
    !(isSemver(desired) && isSemver(version) && compareVersions(desired, version) < 0)
  )
    target = { version: desired, startedAt: formatInstantToSecond(now) }; // accepted, not yet in the history
  let currentUpgrade: ProviderUpgrade | null = null;
  let lastUpgrade: FinishedUpgrade | null = null;
  const fromOf = (v: string) => cv.status.history.find((h) => h.version !== v && h.state === 'Completed')?.version;
  if (target && failing?.status === 'True' && !progressing) {
    lastUpgrade = {
      fromVersion: version,
      version: target.version,
      state: 'failed',
      startedAt: target.startedAt,
      message: failing.message ?? failing.reason ?? 'Failing',
    };
  } else if (target) {
    const problem = failing?.status === 'True' ? (failing.message ?? failing.reason) : undefined;
    currentUpgrade = {
      version: target.version,
      nextRun: target.startedAt,
      state: 'started',
      startedAt: target.startedAt,
      ...(problem ? { message: problem } : {}),
    };
  }
  if (!lastUpgrade) {
    const done = cv.status.history.find((h) => h.state === 'Completed' && h.completionTime);
    const from = done ? fromOf(done.version) : undefined;
    if (done && from)
      lastUpgrade = {
        fromVersion: from,
        version: done.version,
        state: 'completed',
        ...(done.startedTime ? { startedAt: done.startedTime } : {}),
        ...(done.completionTime ? { completedAt: done.completionTime } : {}),
      };
  }
  return {
    version,
    channel: cv.spec?.channel ?? '',
    availableUpgrades: available,
    conditionalUpgrades: conditional,
    upgradeable,
    currentUpgrade,
    lastUpgrade,
  };
}

/** ClusterOperators as health readings: Degraded=True, or Available=False, with that condition's message. */
function readOperatorList(list: ConditionedList): OperatorReading[] {
  return (list.items ?? []).map((o) => {
    const conditions = o.status?.conditions ?? [];
    const degraded = conditions.find((c) => c.type === 'Degraded' && c.status === 'True');
    const unavailable = conditions.find((c) => c.type === 'Available' && c.status === 'False');
    const message = degraded?.message ?? unavailable?.message;
    return { name: o.metadata.name, degraded: !!degraded, available: !unavailable, ...(message ? { message } : {}) };
  });
}

/** a MachineConfigPool condition that, True, makes the pool Degraded (in the order their messages are preferred) */
const POOL_DEGRADED_TYPES = ['Degraded', 'NodeDegraded', 'RenderDegraded'] as const;

/**
 * Degraded MachineConfigPools as health issues. The machine-config operator sets `Degraded` when
 * `NodeDegraded` or `RenderDegraded` is, and often leaves its own message empty: the first message
 * among the three is kept. `Updating` is not an issue (every upgrade rolls the pools).
 */
export function readPoolList(list: ConditionedList): string[] {
  const issues: string[] = [];
  for (const pool of list.items ?? []) {
    const { degraded, message } = poolDegradation(pool.status?.conditions ?? []);
    if (degraded) issues.push(`MachineConfigPool ${pool.metadata.name} Degraded${message ? `: ${message}` : ''}`);
  }
  return issues;
}

/** Whether a pool's conditions make it Degraded, and the first message among them (health and the EUS procedure read it alike). */
function poolDegradation(conditions: readonly { type: string; status: string; message?: string | null }[]): {
  degraded: boolean;
  message: string | undefined;
} {
  const degraded = POOL_DEGRADED_TYPES.map((type) => conditions.find((c) => c.type === type && c.status === 'True')).filter(
    (c) => c !== undefined,
  );
  return { degraded: degraded.length > 0, message: degraded.map((c) => c.message ?? undefined).find((m) => m) };
}

/**
 * Cloud and region from an Infrastructure object: `status.platformStatus.type` (`AWS`, `GCP`,
 * `Azure`, `BareMetal`, `None`, …; the older `status.platform` when there is no platformStatus)
 * in lower case, and the region of the platform's own member (`aws.region`, `gcp.region`,
 * `powervs.region`, `alibabaCloud.region`, `ibmcloud.location`), null where it has none (Azure).
 */
export function readInfrastructure(body: unknown): { cloud: string | null; region: string | null } {
  const parsed = ZInfrastructure.safeParse(body);
  if (!parsed.success) return { cloud: null, region: null };
  const ps = parsed.data.status?.platformStatus ?? {};
  const type = typeof ps.type === 'string' && ps.type ? ps.type : parsed.data.status?.platform;
  if (!type) return { cloud: null, region: null };
  const member = Object.entries(ps).find(([k]) => k !== 'type' && k.toLowerCase() === type.toLowerCase())?.[1];
  const fields = typeof member === 'object' && member !== null ? (member as Record<string, unknown>) : {};
  const region = [fields.region, fields.location].find((v): v is string => typeof v === 'string' && v !== '') ?? null;
  return { cloud: type.toLowerCase(), region };
}

/** The API server's `Status.message` from an error body (JSON text, or a Buffer of it), when there is one. */
function statusMessage(body: unknown): string | undefined {
  const text = Buffer.isBuffer(body) ? body.toString('utf8') : body;
  if (typeof text !== 'string' || !text) return undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed === 'object' && parsed !== null && 'message' in parsed && typeof parsed.message === 'string') return parsed.message;
  } catch {
    // not JSON: a proxy or load balancer page
  }
  return text.slice(0, 200);
}

/**
 * A client-node failure as a ProviderError naming the request: HTTP errors with the API server's
 * `Status.message` (client-node's own ApiException message is the whole response with its
 * headers; on 401 it drops the body, so that one reads `Unauthorized`), timeouts as such, and
 * connection, TLS and credential (exec plugin, token file) failures with their own message.
 */
export function kubernetesError(what: string, err: unknown, timeoutMs: number): ProviderError {
  if (err instanceof ProviderError) return err;
  if (err instanceof ApiException) {
    const code = Number(err.code);
    const message = statusMessage(err.body) ?? (code === 401 ? 'Unauthorized' : 'no message');
    return new ProviderError('kubernetes', `${what} → HTTP ${code}: ${message}`, code);
  }
  if (err instanceof Error && err.name === 'AbortError')
    return new ProviderError('kubernetes', `${what}: no answer within ${timeoutMs} ms`);
  return new ProviderError('kubernetes', `${what}: ${errorMessage(err).trim() || 'failed without a message'}`);
}

function withDeadline<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ProviderError('kubernetes', `${what}: no answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}

interface Client {
  kubeConfig: KubeConfig;
  config: Configuration;
  custom: CustomObjectsApi;
  core: CoreV1Api;
}

/**
 * The typed APIs of one context, as `KubeConfig.makeApiClient` makes them, with a timeout per
 * request (client-node sets none: its fetch would wait as long as the socket stays open).
 */
function makeClient(kubeConfig: KubeConfig, timeoutMs: number): Client {
  const server = kubeConfig.getCurrentCluster()?.server;
  if (!server) throw new ProviderError('kubernetes', 'the context has no cluster server');
  const fetchLibrary = new IsomorphicFetchHttpLibrary();
  const httpApi = wrapHttpLibrary({
    send(request) {
      request.setSignal(AbortSignal.timeout(timeoutMs));
      return fetchLibrary.send(request).toPromise();
    },
  });
  const config = createConfiguration({ baseServer: new ServerConfiguration(server, {}), authMethods: { default: kubeConfig }, httpApi });
  return { kubeConfig, config, custom: new CustomObjectsApi(config), core: new CoreV1Api(config) };
}

const ZCsvList = z.object({
  items: z
    .array(
      z.object({
        metadata: z.object({
          name: z.string(),
          namespace: z.string().optional(),
          labels: z.record(z.string(), z.string()).nullish(),
          annotations: z.record(z.string(), z.string()).nullish(),
        }),
        status: z.object({ reason: z.string().optional() }).optional(),
      }),
    )
    .nullish(),
});

// `{"type": "olm.maxOpenShiftVersion", "value": V}` in either key order; V a JSON string or number as written
const MAX_OCP_VALUE_AFTER = /"type"\s*:\s*"olm\.maxOpenShiftVersion"\s*,\s*"value"\s*:\s*("(?:[^"\\]|\\.)*"|[-+0-9.eE]+)/;
const MAX_OCP_VALUE_BEFORE = /"value"\s*:\s*("(?:[^"\\]|\\.)*"|[-+0-9.eE]+)\s*,\s*"type"\s*:\s*"olm\.maxOpenShiftVersion"/;

/**
 * The `olm.maxOpenShiftVersion` an `olm.properties` annotation declares, as OLM reads it: from the
 * raw JSON (an unquoted 4.10 is "4.10", not the number 4.1) with surrounding quotes trimmed (a
 * doubly quoted "\"4.16\"" is 4.16). Null: no such property. A value that is not a version is
 * returned as written (the rule holds minor upgrades for it, as OLM does).
 */
export function maxOpenShiftVersionOf(annotation: string): string | null {
  const m = MAX_OCP_VALUE_AFTER.exec(annotation) ?? MAX_OCP_VALUE_BEFORE.exec(annotation);
  if (!m) return null;
  const raw = m[1]!;
  let value = raw;
  if (raw.startsWith('"')) {
    try {
      value = JSON.parse(raw) as string;
    } catch {
      value = raw;
    }
  }
  return value.replace(/^"+|"+$/g, '').trim();
}

/**
 * The installed operators from a ClusterServiceVersion list (all namespaces), each once: OLM
 * copies a global operator's CSV into every namespace (label `olm.copiedFrom`, reason `Copied`;
 * the list asks the server to leave them out, and what still comes is dropped here).
 */
export function readInstalledOperators(body: unknown): InstalledOperator[] {
  const parsed = ZCsvList.safeParse(body);
  if (!parsed.success) throw new ProviderError('kubernetes', `unexpected ClusterServiceVersion list: ${parsed.error.issues[0]?.message}`);
  const operators: InstalledOperator[] = [];
  for (const csv of parsed.data.items ?? []) {
    if (csv.metadata.labels?.['olm.copiedFrom'] !== undefined || csv.status?.reason === 'Copied') continue;
    const annotation = csv.metadata.annotations?.['olm.properties'];
    operators.push({
      name: csv.metadata.name,
      namespace: csv.metadata.namespace ?? '',
      maxOpenShiftVersion: annotation ? maxOpenShiftVersionOf(annotation) : null,
    });
  }
  return operators;
}

const ZUserCount = z.object({ username: z.string(), requestCount: z.number() });
const ZArcList = z.object({
  items: z
    .array(
      z.object({
        metadata: z.object({ name: z.string() }),
        status: z
          .object({
            removedInRelease: z.string().optional(),
            requestCount: z.number().optional(),
            last24h: z.array(z.object({ byNode: z.array(z.object({ byUser: z.array(ZUserCount).nullish() })).nullish() })).nullish(),
          })
          .optional(),
      }),
    )
    .nullish(),
});

/**
 * The APIs a later release removes (APIRequestCount `status.removedInRelease`) that were called in
 * the last 24 hours, with their top callers (by requests, then listed by name so that the stored
 * facts change only when the callers do, not with every request).
 */
export function readRemovedApiUse(body: unknown): RemovedApiUse[] {
  const parsed = ZArcList.safeParse(body);
  if (!parsed.success) throw new ProviderError('kubernetes', `unexpected APIRequestCount list: ${parsed.error.issues[0]?.message}`);
  const used: RemovedApiUse[] = [];
  for (const arc of parsed.data.items ?? []) {
    const removedIn = arc.status?.removedInRelease;
    if (!removedIn || !(arc.status?.requestCount ?? 0)) continue;
    const byUser = new Map<string, number>();
    for (const hour of arc.status?.last24h ?? [])
      for (const node of hour.byNode ?? [])
        for (const u of node.byUser ?? []) byUser.set(u.username, (byUser.get(u.username) ?? 0) + u.requestCount);
    const users = [...byUser]
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
      .slice(0, REMOVED_API_USERS)
      .map(([name]) => name)
      .sort();
    used.push({ resource: arc.metadata.name, removedInRelease: removedIn, users });
  }
  return used;
}

const ZInstallPlanList = z.object({
  items: z
    .array(
      z.object({
        metadata: z.object({
          name: z.string(),
          namespace: z.string(),
          ownerReferences: z.array(z.object({ kind: z.string(), name: z.string() })).nullish(),
        }),
        spec: z.object({
          approval: z.string(),
          approved: z.boolean().nullish(),
          clusterServiceVersionNames: z.array(z.string()).nullish(),
        }),
        status: z
          .object({
            phase: z.string().nullish(),
            conditions: z
              .array(z.object({ type: z.string().nullish(), status: z.string().nullish(), message: z.string().nullish() }))
              .nullish(),
          })
          .nullish(),
      }),
    )
    .nullish(),
});
const ZSubscriptionList = z.object({
  items: z
    .array(
      z.object({
        metadata: z.object({ name: z.string(), namespace: z.string() }),
        spec: z.object({ name: z.string().nullish() }).nullish(),
        status: z.object({ installPlanRef: z.object({ name: z.string(), namespace: z.string().nullish() }).nullish() }).nullish(),
      }),
    )
    .nullish(),
});

/**
 * The InstallPlans of a cluster with the Subscriptions each belongs to: those its ownerReferences
 * name (OLM makes every Subscription a plan resolves for an owner) and those whose
 * `status.installPlanRef` points to it, in the plan's namespace.
 */
export function readInstallPlans(plansBody: unknown, subscriptionsBody: unknown): InstallPlanReading[] {
  const plans = ZInstallPlanList.safeParse(plansBody);
  if (!plans.success) throw new ProviderError('kubernetes', `unexpected InstallPlan list: ${plans.error.issues[0]?.message}`);
  const subs = ZSubscriptionList.safeParse(subscriptionsBody);
  if (!subs.success) throw new ProviderError('kubernetes', `unexpected Subscription list: ${subs.error.issues[0]?.message}`);
  const subscriptions = subs.data.items ?? [];
  return (plans.data.items ?? []).map((ip) => {
    const { name, namespace } = ip.metadata;
    const owners = new Set((ip.metadata.ownerReferences ?? []).filter((o) => o.kind === 'Subscription').map((o) => o.name));
    const mine = subscriptions.filter(
      (s) =>
        s.metadata.namespace === namespace &&
        (owners.has(s.metadata.name) ||
          (s.status?.installPlanRef?.name === name && (s.status.installPlanRef.namespace ?? namespace) === namespace)),
    );
    const known = new Set(mine.map((s) => s.metadata.name));
    const installed = ip.status?.conditions?.find((c) => c.type === 'Installed' && c.status === 'False')?.message;
    return {
      namespace,
      name,
      approval: ip.spec.approval,
      approved: ip.spec.approved === true,
      phase: ip.status?.phase ?? '',
      csvNames: ip.spec.clusterServiceVersionNames ?? [],
      subscriptions: [
        ...mine.map((s) => ({ namespace, name: s.metadata.name, package: s.spec?.name ?? s.metadata.name })),
        // an owner the Subscription list no longer holds (deleted meanwhile): named, its package unknown
        ...[...owners].filter((o) => !known.has(o)).map((o) => ({ namespace, name: o, package: o })),
      ],
      ...(installed ? { message: installed } : {}),
    };
  });
}

export function createKubernetesProviderFromKubeconfig(
  opts: {
    /** one file, or several joined with the path delimiter (as KUBECONFIG) */
    kubeconfigPath: string;
    /** only these contexts (default: every context of the file) */
    contexts?: string[];
  } & KubernetesProviderOptions,
): FleetProvider {
  return createKubernetesProvider(
    loadKubeconfig(opts.kubeconfigPath, opts.contexts, opts.execTimeoutMs === undefined ? {} : { execTimeoutMs: opts.execTimeoutMs }),
    opts,
  );
}

export function createKubernetesProvider(contexts: LoadedContext[], opts: KubernetesProviderOptions = {}): FleetProvider {
  const timeoutMs = opts.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const deadlineMs = opts.clusterDeadlineMs ?? 4 * timeoutMs;
  const clients = new Map<string, Client>();
  const clientOf = (ctx: LoadedContext): Client => {
    if (!ctx.kubeConfig) throw new ProviderError('kubernetes', ctx.error ?? `kubeconfig context ${ctx.name} cannot be used`);
    let client = clients.get(ctx.name);
    if (!client) clients.set(ctx.name, (client = makeClient(ctx.kubeConfig, timeoutMs)));
    return client;
  };
  const ctxOf = (ref: ClusterRef) => {
    const c = contexts.find((x) => x.name === ref.externalId);
    if (!c) throw new ProviderError('kubernetes', `no kubeconfig context ${ref.externalId}`);
    return c;
  };
  /** one request, its failure as a ProviderError naming it */
  const request = async <T>(what: string, send: () => Promise<T>): Promise<T> => {
    try {
      return await send();
    } catch (err) {
      throw kubernetesError(what, err, timeoutMs);
    }
  };
  /**
   * A cluster-wide list of a custom resource; an empty list when its API is not there (404: OLM or
   * APIRequestCount not installed, as on plain Kubernetes). Any other failure throws, named.
   */
  const listUnlessMissing = async (
    client: Client,
    ref: { group: string; version: string; plural: string },
    labelSelector?: string,
  ): Promise<unknown> => {
    try {
      return await client.custom.listClusterCustomObject({ ...ref, ...(labelSelector ? { labelSelector } : {}) });
    } catch (err) {
      const e = kubernetesError(`GET ${ref.plural}.${ref.group}`, err, timeoutMs);
      if (e.status === 404) return { items: [] };
      throw e;
    }
  };
  const readCv = async (client: Client): Promise<ClusterVersion> => {
    const body: unknown = await request('GET clusterversions.config.openshift.io/version', () =>
      client.custom.getClusterCustomObject(CLUSTER_VERSION),
    );
    const parsed = ZClusterVersion.safeParse(body);
    if (!parsed.success) throw new ProviderError('kubernetes', `unexpected ClusterVersion: ${parsed.error.issues[0]?.message}`);
    return parsed.data;
  };
  const readList = async (client: Client, what: string, ref: { group: string; version: string; plural: string }) => {
    const body: unknown = await request(`GET ${what}`, () => client.custom.listClusterCustomObject(ref));
    const parsed = ZConditionedList.safeParse(body);
    if (!parsed.success) throw new ProviderError('kubernetes', `unexpected ${what} list: ${parsed.error.issues[0]?.message}`);
    return parsed.data;
  };
  const readPoolObjects = async (client: Client): Promise<PoolList> => {
    const what = 'machineconfigpools.machineconfiguration.openshift.io';
    const body: unknown = await request(`GET ${what}`, () => client.custom.listClusterCustomObject(MACHINE_CONFIG_POOLS));
    const parsed = ZPoolList.safeParse(body);
    if (!parsed.success) throw new ProviderError('kubernetes', `unexpected ${what} list: ${parsed.error.issues[0]?.message}`);
    return parsed.data;
  };
  /**
   * A merge patch of the ClusterVersion's spec: `desiredUpdate` (null clears it) or `channel` (what
   * `oc adm upgrade channel` writes).
   */
  const patchClusterVersion = (client: Client, spec: { desiredUpdate: { version: string; image?: string } | null } | { channel: string }) =>
    request('PATCH clusterversions.config.openshift.io/version', () =>
      client.custom.patchClusterCustomObject(
        { ...CLUSTER_VERSION, body: { spec } },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      ),
    );
  /** null when the alerts cannot be read (no monitoring, no permission): not a health failure by itself */
  const readAlerts = async (client: Client): Promise<AlertReading[] | null> => {
    try {
      // The service proxy takes the Prometheus query string, which client-node's typed proxy call
      // (connectGetNamespacedServiceProxyWithPath) cannot pass; the request is built on the same
      // configuration (server, TLS, credentials, proxy, timeout) instead.
      const req = client.config.baseServer.makeRequestContext(ALERTS_PROXY_PATH, HttpMethod.GET);
      req.setQueryParam('query', FIRING_ALERTS_QUERY);
      req.setHeaderParam('Accept', 'application/json');
      await client.kubeConfig.applySecurityAuthentication(req);
      const res = await client.config.httpApi.send(req).toPromise();
      const text = await res.body.text();
      if (res.httpStatusCode !== 200) return null;
      const parsed = ZAlerts.safeParse(JSON.parse(text));
      if (!parsed.success) return null;
      return parsed.data.data.result.map((r) => ({
        name: r.metric.alertname ?? 'unknown',
        ...(r.metric.namespace ? { namespace: r.metric.namespace } : {}),
        severity: r.metric.severity ?? 'none',
      }));
    } catch {
      return null;
    }
  };
  /**
   * Node count without downloading every Node: one item with `limit=1`, plus the list's
   * `remainingItemCount`; a server that leaves that out (it may) is paged through, up to
   * MAX_NODE_PAGES pages, else the count is unknown. Also the first node's region label.
   */
  const readNodes = async (client: Client): Promise<{ count: number | null; region: string | null }> => {
    const first = await client.core.listNode({ limit: 1 });
    const region = first.items[0]?.metadata?.labels?.['topology.kubernetes.io/region'] || null;
    let count = first.items.length;
    let next = first.metadata?._continue;
    if (next && typeof first.metadata?.remainingItemCount === 'number') return { count: count + first.metadata.remainingItemCount, region };
    for (let page = 0; next && page < MAX_NODE_PAGES; page++) {
      const list = await client.core.listNode({ limit: NODE_PAGE, _continue: next });
      count += list.items.length;
      next = list.metadata?._continue;
    }
    return { count: next ? null : count, region };
  };
  /**
   * Installed operators and removed-API use, best effort: a cluster without OLM or APIRequestCount
   * (plain Kubernetes), or a credential that may not list them, reports none of that part; when
   * neither can be read the facts are left out (the stored ones stay).
   */
  const readInhibitors = async (client: Client): Promise<ClusterInhibitorFacts | undefined> => {
    // 404: not installed (plain Kubernetes), so none; any other failure (no permission, a timeout,
    // an answer that does not parse): unknown, and the facts are left out so the stored ones stay
    // — a partial read must not erase an operator's limit
    try {
      const [operators, removedApis] = await withDeadline(
        Promise.all([
          listUnlessMissing(client, CLUSTER_SERVICE_VERSIONS, '!olm.copiedFrom').then(readInstalledOperators),
          listUnlessMissing(client, API_REQUEST_COUNTS).then(readRemovedApiUse),
        ]),
        Math.min(deadlineMs, INHIBITOR_READ_MS),
        'reading operators and API use',
      );
      return { operators, removedApis };
    } catch {
      return undefined;
    }
  };
  /**
   * The admin gates the cluster's release declares: the keys of ConfigMap
   * openshift-config-managed/admin-gates (what `oc -n openshift-config-managed get cm admin-gates`
   * shows). None there (404): none. Any other failure (no permission, a timeout): not read, so the
   * EUS procedure falls back to the gates it knows (path/admin-gates.ts).
   */
  const readAdminGates = async (client: Client): Promise<string[] | undefined> => {
    try {
      const cm = await withDeadline(
        client.core.readNamespacedConfigMap({ name: 'admin-gates', namespace: 'openshift-config-managed' }),
        Math.min(deadlineMs, INHIBITOR_READ_MS),
        'reading admin gates',
      );
      return Object.keys(cm.data ?? {}).sort();
    } catch (err) {
      return kubernetesError('GET configmaps openshift-config-managed/admin-gates', err, timeoutMs).status === 404 ? [] : undefined;
    }
  };
  /** best effort: a part that cannot be read is null, never the cluster's failure */
  const readDiscovery = async (client: Client, ctx: LoadedContext): Promise<ClusterDiscovery> => {
    const [infra, nodes] = await Promise.allSettled([client.custom.getClusterCustomObject(INFRASTRUCTURE), readNodes(client)]);
    const { cloud, region } = infra.status === 'fulfilled' ? readInfrastructure(infra.value) : { cloud: null, region: null };
    return {
      labels: { ...ctx.labels },
      cloud,
      region: region ?? (nodes.status === 'fulfilled' ? nodes.value.region : null),
      nodeCount: nodes.status === 'fulfilled' ? nodes.value.count : null,
    };
  };
  const observeContext = (ctx: LoadedContext, now: Date): Promise<ClusterSnapshot> => {
    const read = async (): Promise<ClusterSnapshot> => {
      const client = clientOf(ctx);
      // the ClusterVersion first: without it there is nothing to report, and an exec plugin's
      // credential is then cached for the reads that follow instead of being fetched by each
      const cv = await readCv(client);
      const [operators, pools, alerts, discovery, inhibitors, adminGates] = await Promise.all([
        readList(client, 'clusteroperators.config.openshift.io', CLUSTER_OPERATORS).then(readOperatorList),
        readPoolObjects(client),
        readAlerts(client),
        readDiscovery(client, ctx),
        readInhibitors(client),
        readAdminGates(client),
      ]);
      const health: HealthReading = { operators, alerts, other: readPoolList(pools) };
      return {
        externalId: ctx.name,
        name: ctx.name,
        ...readClusterVersion(cv, now),
        health,
        ...summarizeHealth(health),
        discovery,
        ...(inhibitors ? { inhibitors } : {}),
        machineConfigPools: readPools(pools),
        ...(adminGates ? { adminGates } : {}),
      };
    };
    return withDeadline(read(), deadlineMs, `reading ${ctx.name}`);
  };
  return {
    name: 'kubernetes',
    startLeadMs: 0,
    minStartNoticeMs: 0,
    async observe(now) {
      const results = await mapSettled(contexts, READ_CONCURRENCY, (ctx) => observeContext(ctx, now));
      const snapshot: Awaited<ReturnType<FleetProvider['observe']>> = { clusters: [], errors: [] };
      results.forEach((r, i) => {
        const ctx = contexts[i]!;
        if (r.status === 'fulfilled') snapshot.clusters.push(r.value);
        else snapshot.errors.push({ externalId: ctx.name, name: ctx.name, message: errorMessage(r.reason) });
      });
      return snapshot;
    },
    observeCluster(ref, now) {
      return observeContext(ctxOf(ref), now);
    },
    async startUpgrade(req, now) {
      const client = clientOf(ctxOf(req));
      if (req.at.getTime() > now.getTime() + START_TOLERANCE_MS)
        throw new ProviderError(
          'kubernetes',
          `${req.name}: an upgrade cannot be held for ${formatInstantToSecond(req.at)} (the cluster-version operator starts at once); start it at its slot`,
        );
      const cv = await readCv(client);
      const seen = readClusterVersion(cv, now);
      if (seen.currentUpgrade?.version === req.version || cv.spec?.desiredUpdate?.version === req.version) return; // already asked
      if (isSemver(seen.version) && isSemver(req.version) && compareVersions(seen.version, req.version) >= 0) return; // already there
      if (seen.currentUpgrade)
        throw new ProviderError('kubernetes', `${req.name} already has an upgrade to ${seen.currentUpgrade.version} under way`);
      const release =
        cv.status.availableUpdates?.find((u) => u.version === req.version) ??
        cv.status.conditionalUpdates?.find((u) => u.release.version === req.version)?.release;
      if (!release)
        throw new ProviderError('kubernetes', `${req.name}: ${req.version} is not among the cluster's available or conditional updates`);
      await patchClusterVersion(client, {
        desiredUpdate: { version: release.version, ...(release.image ? { image: release.image } : {}) },
      });
    },
    async listInstallPlans(ref) {
      const client = clientOf(ctxOf(ref));
      // OLM not installed (plain Kubernetes): no plans to approve
      const [plans, subscriptions] = await withDeadline(
        Promise.all([listUnlessMissing(client, INSTALL_PLANS), listUnlessMissing(client, SUBSCRIPTIONS)]),
        deadlineMs,
        `reading the InstallPlans of ${ref.name}`,
      );
      return readInstallPlans(plans, subscriptions);
    },
    async approveInstallPlan(req) {
      const client = clientOf(ctxOf(req));
      const target = { ...INSTALL_PLANS, namespace: req.namespace, name: req.installPlan };
      const what = `installplans.operators.coreos.com ${req.namespace}/${req.installPlan}`;
      const current: unknown = await request(`GET ${what}`, () => client.custom.getNamespacedCustomObject(target));
      const read = z
        .object({ metadata: z.object({ resourceVersion: z.string() }), spec: z.object({ approved: z.boolean().nullish() }) })
        .safeParse(current);
      if (!read.success) throw new ProviderError('kubernetes', `unexpected InstallPlan ${req.namespace}/${req.installPlan}`);
      if (read.data.spec.approved === true) return 'already-approved';
      // The approval holds only for the plan as read: with its resourceVersion in the patch the
      // API server refuses it (409 Conflict) when someone changed the plan since (approved it, or
      // OLM replaced its steps). Then nothing was written and the next tick reads the plan again.
      try {
        await request(`PATCH ${what}`, () =>
          client.custom.patchNamespacedCustomObject(
            { ...target, body: { metadata: { resourceVersion: read.data.metadata.resourceVersion }, spec: { approved: true } } },
            setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
          ),
        );
      } catch (err) {
        if (err instanceof ProviderError && err.status === 409) return 'changed-since-read';
        throw err;
      }
      return 'approved';
    },
    async setMachineConfigPoolPaused(ref, pool, paused) {
      const client = clientOf(ctxOf(ref));
      const target = { ...MACHINE_CONFIG_POOLS, name: pool };
      const what = `machineconfigpools.machineconfiguration.openshift.io/${pool}`;
      const current: unknown = await request(`GET ${what}`, () => client.custom.getClusterCustomObject(target));
      const read = z.object({ spec: z.object({ paused: z.boolean().nullish() }).nullish() }).safeParse(current);
      if (!read.success) throw new ProviderError('kubernetes', `unexpected MachineConfigPool ${pool}`);
      if ((read.data.spec?.paused === true) === paused) return 'already-set';
      await request(`PATCH ${what}`, () =>
        client.custom.patchClusterCustomObject(
          { ...target, body: { spec: { paused } } },
          setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
        ),
      );
      return 'set';
    },
    async acknowledgeAdminGate(ref, gate) {
      const client = clientOf(ctxOf(ref));
      const what = 'configmaps openshift-config/admin-acks';
      const current = await request(`GET ${what}`, () =>
        client.core.readNamespacedConfigMap({ name: 'admin-acks', namespace: 'openshift-config' }),
      );
      if (current.data?.[gate] === 'true') return 'already-set';
      await request(`PATCH ${what}`, () =>
        client.core.patchNamespacedConfigMap(
          { name: 'admin-acks', namespace: 'openshift-config', body: { data: { [gate]: 'true' } } },
          setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
        ),
      );
      return 'set';
    },
    async setChannel(ref, channel) {
      const client = clientOf(ctxOf(ref));
      const cv = await readCv(client);
      if (cv.spec?.channel === channel) return 'already-set';
      await patchClusterVersion(client, { channel });
      return 'set';
    },
    async cancelUpgrade(req) {
      // Only a desiredUpdate the cluster-version operator has not begun is withdrawn (a running
      // update is not rolled back by clearing it): it names this version, which is neither the
      // desired release the operator reports nor in its history (e.g. not accepted yet).
      const client = clientOf(ctxOf(req));
      const cv = await readCv(client);
      if (cv.spec?.desiredUpdate?.version !== req.version) return;
      const begun = cv.status.desired?.version === req.version || cv.status.history.some((h) => h.version === req.version);
      if (begun) return;
      await patchClusterVersion(client, { desiredUpdate: null });
    },
  };
}
