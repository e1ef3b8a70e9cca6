/**
 * Kubernetes/OpenShift provider: one cluster per kubeconfig context (bearer-token users).
 *
 * Request shapes relied on (OpenShift config.openshift.io/v1 API, Prometheus HTTP API):
 * - `GET /apis/config.openshift.io/v1/clusterversions/version` → `{metadata: {annotations}, spec: {channel, clusterID, desiredUpdate?},
 *   status: {desired: {version}, history: [{state: "Completed"|"Partial", version, startedTime, completionTime}] (newest first),
 *   availableUpdates: [{version, image}], conditions: [{type: "Progressing"|"Failing"|..., status, message}]}}`
 * - `PATCH` the same path with `application/merge-patch+json` `{spec: {desiredUpdate: {version, image}}}` starts an upgrade
 * - `GET /apis/config.openshift.io/v1/clusteroperators` → `{items: [{metadata: {name}, status: {conditions: [{type: "Degraded", status, message}]}}]}`
 * - Prometheus `GET /api/v1/query?query=ALERTS{alertstate="firing",severity="critical"}` →
 *   `{status: "success", data: {resultType: "vector", result: [{metric: {alertname, namespace}, value: [ts, "1"]}]}}`
 *
 * The cluster-version operator has no notion of a future start, so a scheduled upgrade is kept
 * as an annotation on ClusterVersion (`fleetplan.io/scheduled-upgrade`) and started by setting
 * `spec.desiredUpdate` at the first snapshot after its start time (as an upgrade controller
 * starts its job at the maintenance window).
 */
import fs from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { httpJson } from './http-json';
import type { ClusterRef, ClusterSnapshot, FleetProvider, ProviderUpgrade } from './types';
import { ProviderError } from './types';

export const SCHEDULE_ANNOTATION = 'fleetplan.io/scheduled-upgrade';
const CV_PATH = '/apis/config.openshift.io/v1/clusterversions/version';
const CO_PATH = '/apis/config.openshift.io/v1/clusteroperators';
const CRITICAL_ALERTS = 'ALERTS{alertstate="firing",severity="critical"}';

export interface KubeContext {
  name: string;
  server: string;
  token: string;
  ca?: string;
  insecure?: boolean;
  /** Prometheus (or Thanos querier) base URL; default: the API server's service proxy to thanos-querier */
  prometheusUrl?: string;
}

const ZClusterVersion = z.object({
  metadata: z.object({ annotations: z.record(z.string(), z.string()).optional() }).optional(),
  spec: z
    .object({
      channel: z.string().optional(),
      clusterID: z.string().optional(),
      desiredUpdate: z.object({ version: z.string().optional() }).nullish(),
    })
    .optional(),
  status: z.object({
    desired: z.object({ version: z.string().optional() }).optional(),
    history: z
      .array(z.object({ state: z.string(), version: z.string(), startedTime: z.string().optional(), completionTime: z.string().nullish() }))
      .default([]),
    availableUpdates: z.array(z.object({ version: z.string(), image: z.string().optional() })).nullish(),
    conditions: z.array(z.object({ type: z.string(), status: z.string(), message: z.string().optional() })).default([]),
  }),
});
type ClusterVersion = z.infer<typeof ZClusterVersion>;
const ZOperators = z.object({
  items: z
    .array(
      z.object({
        metadata: z.object({ name: z.string() }),
        status: z
          .object({ conditions: z.array(z.object({ type: z.string(), status: z.string(), message: z.string().optional() })).default([]) })
          .optional(),
      }),
    )
    .default([]),
});
const ZAlerts = z.object({
  status: z.string(),
  data: z.object({ result: z.array(z.object({ metric: z.record(z.string(), z.string()) })).default([]) }),
});
const ZScheduled = z.object({ version: z.string(), nextRun: z.string() });

function iso(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
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

function currentVersion(cv: ClusterVersion): string {
  return cv.status.history.find((h) => h.state === 'Completed')?.version ?? cv.status.desired?.version ?? '0.0.0';
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
    const parsed = ZClusterVersion.safeParse((await call<unknown>(ctx, CV_PATH)).body);
    if (!parsed.success)
      throw new ProviderError('kubernetes', `${ctx.name}: unexpected ClusterVersion: ${parsed.error.issues[0]?.message}`);
    return parsed.data;
  };
  const scheduledOf = (cv: ClusterVersion) => {
    const raw = cv.metadata?.annotations?.[SCHEDULE_ANNOTATION];
    if (!raw) return null;
    try {
      const p = ZScheduled.safeParse(JSON.parse(raw));
      return p.success ? p.data : null;
    } catch {
      return null;
    }
  };
  const startUpgrade = async (ctx: KubeContext, cv: ClusterVersion, version: string) => {
    const image = cv.status.availableUpdates?.find((u) => u.version === version)?.image;
    await call(ctx, CV_PATH, {
      method: 'PATCH',
      body: {
        metadata: { annotations: { [SCHEDULE_ANNOTATION]: null } },
        spec: { desiredUpdate: { version, ...(image ? { image } : {}) } },
      },
    });
  };
  const upgradeOf = (cv: ClusterVersion): ProviderUpgrade | null => {
    const running = cv.status.history[0];
    const progressing = cv.status.conditions.find((c) => c.type === 'Progressing')?.status === 'True';
    if (running && running.state === 'Partial' && progressing) {
      const startedAt = running.startedTime ?? iso(new Date());
      return { version: running.version, nextRun: iso(new Date(startedAt)), state: 'started', startedAt: iso(new Date(startedAt)) };
    }
    const s = scheduledOf(cv);
    return s ? { version: s.version, nextRun: s.nextRun, state: 'scheduled' } : null;
  };
  const health = async (ctx: KubeContext): Promise<string[]> => {
    const issues: string[] = [];
    const ops = ZOperators.safeParse((await call<unknown>(ctx, CO_PATH)).body);
    if (ops.success) {
      for (const o of ops.data.items) {
        const degraded = o.status?.conditions.find((c) => c.type === 'Degraded' && c.status === 'True');
        if (degraded) issues.push(`ClusterOperator ${o.metadata.name} Degraded${degraded.message ? `: ${degraded.message}` : ''}`);
      }
    }
    const promBase =
      ctx.prometheusUrl ??
      `${ctx.server.replace(/\/$/, '')}/api/v1/namespaces/openshift-monitoring/services/https:thanos-querier:9091/proxy`;
    try {
      const res = await httpJson<unknown>(
        `${promBase.replace(/\/$/, '')}/api/v1/query?${new URLSearchParams({ query: CRITICAL_ALERTS })}`,
        { token: ctx.token, ca: ctx.ca, insecure: ctx.insecure, provider: 'kubernetes' },
      );
      const alerts = ZAlerts.safeParse(res.body);
      if (alerts.success)
        for (const a of alerts.data.data.result)
          issues.push(`critical alert ${a.metric.alertname ?? 'unknown'} firing${a.metric.namespace ? ` in ${a.metric.namespace}` : ''}`);
    } catch (err) {
      issues.push(`alerts unavailable: ${err instanceof Error ? err.message : String(err)}`);
    }
    return issues;
  };
  return {
    name: 'kubernetes',
    async listClusters(now) {
      const out: ClusterSnapshot[] = [];
      for (const ctx of contexts) {
        let cv = await readCv(ctx);
        const scheduled = scheduledOf(cv);
        if (scheduled && Date.parse(scheduled.nextRun) <= now.getTime() && upgradeOf(cv)?.state !== 'started') {
          await startUpgrade(ctx, cv, scheduled.version);
          cv = await readCv(ctx);
        }
        const version = currentVersion(cv);
        const issues = await health(ctx);
        const last = cv.status.history.find((h) => h.completionTime);
        const failing = cv.status.conditions.find((c) => c.type === 'Failing' && c.status === 'True');
        let cu = upgradeOf(cv);
        // started through desiredUpdate but the history has not caught up yet
        if (!cu && scheduled && Date.parse(scheduled.nextRun) <= now.getTime())
          cu = { version: scheduled.version, nextRun: scheduled.nextRun, state: 'started', startedAt: scheduled.nextRun };
        out.push({
          externalId: ctx.name,
          name: ctx.name,
          version,
          channel: cv.spec?.channel ?? '',
          availableUpgrades: (cv.status.availableUpdates ?? []).map((u) => u.version),
          healthy: issues.length === 0,
          healthIssues: issues,
          currentUpgrade: cu,
          lastUpgrade: last
            ? {
                version: last.version,
                state: last.state === 'Completed' ? 'completed' : 'failed',
                startedAt: last.startedTime,
                completedAt: last.completionTime ?? undefined,
                ...(failing?.message ? { message: failing.message } : {}),
              }
            : null,
        });
      }
      return out;
    },
    async findUpgrade(ref) {
      return upgradeOf(await readCv(ctxOf(ref)));
    },
    async scheduleUpgrade(req, now) {
      const ctx = ctxOf(req);
      const cv = await readCv(ctx);
      const cu = upgradeOf(cv);
      if (cu?.version === req.version) return;
      if (cu) throw new ProviderError('kubernetes', `${req.name} already has an upgrade to ${cu.version}`);
      if (req.nextRun.getTime() <= now.getTime()) await startUpgrade(ctx, cv, req.version);
      else
        await call(ctx, CV_PATH, {
          method: 'PATCH',
          body: {
            metadata: {
              annotations: {
                [SCHEDULE_ANNOTATION]: JSON.stringify({ version: req.version, nextRun: iso(req.nextRun), key: req.idempotencyKey }),
              },
            },
          },
        });
    },
    async cancelUpgrade(req) {
      const ctx = ctxOf(req);
      const cv = await readCv(ctx);
      const s = scheduledOf(cv);
      if (s && s.version === req.version)
        await call(ctx, CV_PATH, { method: 'PATCH', body: { metadata: { annotations: { [SCHEDULE_ANNOTATION]: null } } } });
    },
  };
}
