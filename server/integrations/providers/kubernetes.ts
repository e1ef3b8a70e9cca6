/**
 * Kubernetes/OpenShift provider: one cluster per kubeconfig context (bearer-token users).
 *
 * Request shapes relied on (openshift/api config/v1 ClusterVersion and ClusterOperator, the
 * Prometheus HTTP API; see tests/fakes/PROVENANCE.md):
 * - `GET /apis/config.openshift.io/v1/clusterversions/version` → `{spec: {channel, clusterID, desiredUpdate?: {version, image}},
 *   status: {desired: {version, image}, history: [{state: "Completed"|"Partial", version, image, startedTime, completionTime}] (newest first),
 *   availableUpdates: [{version, image}] | null, conditionalUpdates?: [{release: {version, image}, risks, conditions}],
 *   conditions: [{type: "Available"|"Progressing"|"Failing"|"Upgradeable"|..., status, reason, message}]}}`
 * - `PATCH` the same path with `application/merge-patch+json` `{spec: {desiredUpdate: {version, image}}}` starts an upgrade;
 *   it is this provider's only write.
 * - `GET /apis/config.openshift.io/v1/clusteroperators` → `{items: [{metadata: {name}, status: {conditions: [{type: "Degraded"|"Available", status, message}]}}]}`
 * - Prometheus `GET /api/v1/query?query=ALERTS{alertstate="firing"}` →
 *   `{status: "success", data: {resultType: "vector", result: [{metric: {alertname, namespace, severity}, value: [ts, "1"]}]}}`
 *
 * Reading never writes. The cluster-version operator has no notion of a future start, so
 * `startUpgrade` begins the upgrade at once (startLeadMs 0: it is called at the slot).
 *
 * How the ClusterVersion reads as an upgrade:
 * - the newest history entry `Partial` without a completion time is the running upgrade; so is a
 *   `spec.desiredUpdate` the operator has not put in the history yet;
 * - `Failing=True` while `Progressing=True` is a running upgrade with a problem (the operator keeps
 *   retrying; the lifecycle's timeout decides); `Failing=True` with `Progressing` not True is a
 *   failed upgrade whose reason is the Failing message;
 * - `Upgradeable` absent means upgradeable (the operator only sets it to object).
 */
import { formatInstantToSecond } from '@/server/domain/plan/time';
import fs from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { compareVersions, isSemver } from '@/server/domain/version/version';
import { httpJson } from './http-json';
import { errorMessage, mapSettled } from './map-settled';
import type {
  AlertReading,
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
import { summarizeHealth } from './health-reading';

export const CLUSTER_VERSION_PATH = '/apis/config.openshift.io/v1/clusterversions/version';
export const CLUSTER_OPERATORS_PATH = '/apis/config.openshift.io/v1/clusteroperators';
export const FIRING_ALERTS_QUERY = 'ALERTS{alertstate="firing"}';
/** how far in the future a start may lie and still begin now (clock skew between tick and call) */
const START_TOLERANCE_MS = 60_000;
const READ_CONCURRENCY = 8;

export interface KubeContext {
  name: string;
  server: string;
  token: string;
  ca?: string;
  insecure?: boolean;
  /** Prometheus (or Thanos querier) base URL; default: the API server's service proxy to thanos-querier */
  prometheusUrl?: string;
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
const ZOperators = z.object({
  items: z
    .array(
      z.object({
        metadata: z.object({ name: z.string() }),
        status: z.object({ conditions: z.array(ZCondition).nullish() }).optional(),
      }),
    )
    .nullish(),
});
const ZAlerts = z.object({
  status: z.literal('success'),
  data: z.object({ result: z.array(z.object({ metric: z.record(z.string(), z.string()) })).default([]) }),
});

function isoOf(text: string | undefined, fallback: Date): string {
  const ms = text ? Date.parse(text) : NaN;
  return formatInstantToSecond(Number.isFinite(ms) ? new Date(ms) : fallback);
}
/** Reads the contexts of a kubeconfig (token users only; client certificates are not supported). */
export function readKubeconfig(text: string, only?: string[]): KubeContext[] {
  const doc = parseYaml(text) as {
    clusters?: {
      name: string;
      cluster: {
        server: string;
        'certificate-authority-data'?: string;
        'certificate-authority'?: string;
        'insecure-skip-tls-verify'?: boolean;
      };
    }[];
    users?: { name: string; user: { token?: string } }[];
    contexts?: { name: string; context: { cluster: string; user: string } }[];
  };
  const out: KubeContext[] = [];
  for (const ctx of doc.contexts ?? []) {
    if (only && only.length && !only.includes(ctx.name)) continue;
    const cluster = doc.clusters?.find((c) => c.name === ctx.context.cluster)?.cluster;
    const token = doc.users?.find((u) => u.name === ctx.context.user)?.user.token;
    if (!cluster || !token) throw new Error(`kubeconfig context ${ctx.name}: needs a cluster server and a user token`);
    const ca = cluster['certificate-authority-data']
      ? Buffer.from(cluster['certificate-authority-data'], 'base64').toString('utf8')
      : cluster['certificate-authority']
        ? fs.readFileSync(cluster['certificate-authority'], 'utf8')
        : undefined;
    out.push({ name: ctx.name, server: cluster.server, token, ca, insecure: cluster['insecure-skip-tls-verify'] });
  }
  return out;
}

export function createKubernetesProviderFromKubeconfig(opts: {
  kubeconfigPath: string;
  contexts?: string[];
  prometheusUrls?: Record<string, string>;
}): FleetProvider {
  const contexts = readKubeconfig(fs.readFileSync(opts.kubeconfigPath, 'utf8'), opts.contexts).map((c) => ({
    ...c,
    prometheusUrl: opts.prometheusUrls?.[c.name],
  }));
  return createKubernetesProvider(contexts);
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

export function createKubernetesProvider(contexts: KubeContext[]): FleetProvider {
  const call = <T>(ctx: KubeContext, path: string, init: { method?: 'GET' | 'PATCH'; body?: unknown } = {}) =>
    httpJson<T>(`${ctx.server.replace(/\/$/, '')}${path}`, {
      token: ctx.token,
      ca: ctx.ca,
      insecure: ctx.insecure,
      provider: 'kubernetes',
      method: init.method,
      body: init.body,
      contentType: 'application/merge-patch+json',
    });
  const ctxOf = (ref: ClusterRef) => {
    const c = contexts.find((x) => x.name === ref.externalId);
    if (!c) throw new ProviderError('kubernetes', `no kubeconfig context ${ref.externalId}`);
    return c;
  };
  const readCv = async (ctx: KubeContext) => {
    const parsed = ZClusterVersion.safeParse((await call<unknown>(ctx, CLUSTER_VERSION_PATH)).body);
    if (!parsed.success)
      throw new ProviderError('kubernetes', `${ctx.name}: unexpected ClusterVersion: ${parsed.error.issues[0]?.message}`);
    return parsed.data;
  };
  const readOperators = async (ctx: KubeContext): Promise<OperatorReading[]> => {
    const parsed = ZOperators.safeParse((await call<unknown>(ctx, CLUSTER_OPERATORS_PATH)).body);
    if (!parsed.success)
      throw new ProviderError('kubernetes', `${ctx.name}: unexpected ClusterOperator list: ${parsed.error.issues[0]?.message}`);
    return (parsed.data.items ?? []).map((o) => {
      const conditions = o.status?.conditions ?? [];
      const degraded = conditions.find((c) => c.type === 'Degraded' && c.status === 'True');
      const unavailable = conditions.find((c) => c.type === 'Available' && c.status === 'False');
      const message = degraded?.message ?? unavailable?.message;
      return { name: o.metadata.name, degraded: !!degraded, available: !unavailable, ...(message ? { message } : {}) };
    });
  };
  /** null when the alerts cannot be read (no monitoring, no permission): not a health failure by itself */
  const readAlerts = async (ctx: KubeContext): Promise<AlertReading[] | null> => {
    const promBase =
      ctx.prometheusUrl ??
      `${ctx.server.replace(/\/$/, '')}/api/v1/namespaces/openshift-monitoring/services/https:thanos-querier:9091/proxy`;
    try {
      const res = await httpJson<unknown>(
        `${promBase.replace(/\/$/, '')}/api/v1/query?${new URLSearchParams({ query: FIRING_ALERTS_QUERY })}`,
        { token: ctx.token, ca: ctx.ca, insecure: ctx.insecure, provider: 'kubernetes' },
      );
      const parsed = ZAlerts.safeParse(res.body);
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
  const observeContext = async (ctx: KubeContext, now: Date): Promise<ClusterSnapshot> => {
    const [cv, operators, alerts] = await Promise.all([readCv(ctx), readOperators(ctx), readAlerts(ctx)]);
    const health: HealthReading = { operators, alerts, other: [] };
    return { externalId: ctx.name, name: ctx.name, ...readClusterVersion(cv, now), health, ...summarizeHealth(health) };
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
      const ctx = ctxOf(req);
      if (req.at.getTime() > now.getTime() + START_TOLERANCE_MS)
        throw new ProviderError(
          'kubernetes',
          `${req.name}: an upgrade cannot be held for ${formatInstantToSecond(req.at)} (the cluster-version operator starts at once); start it at its slot`,
        );
      const cv = await readCv(ctx);
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
      await call(ctx, CLUSTER_VERSION_PATH, {
        method: 'PATCH',
        body: { spec: { desiredUpdate: { version: release.version, ...(release.image ? { image: release.image } : {}) } } },
      });
    },
    async cancelUpgrade() {
      // Nothing is ever held at the cluster for later (startUpgrade begins at once), and a running
      // cluster-version update is not withdrawn: there is nothing to cancel.
    },
  };
}
