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
 * OCM removes a policy when its upgrade finishes. Policy lists are paged like the cluster list. A
 * cluster with an automatic (recurring) policy set by its owner in OCM upgrades on its own
 * schedule: it is reported as a read error for that cluster (PROVIDER_ERROR), never overridden.
 * A start OCM refuses (4xx) is not sent again for the same cluster and version until a back-off
 * (2, 4, 8 … 60 minutes) has passed: a stuck cluster must not be POSTed every tick.
 *
 * Consistency of a snapshot: every cluster's policies (and their states) are read BEFORE the
 * cluster list whose versions the snapshot reports. An upgrade that completes in between shows
 * as a policy that is gone (or `completed`) together with the new version — completed — and
 * never as an old version without its policy, which would read as "removed at the provider".
 * A running policy whose target the cluster already reports is completed too.
 */
import { formatInstantToSecond } from '@/server/domain/plan/time';
import { z } from 'zod';
import { compareVersions, isSemver } from '@/server/domain/version/version';
import { httpJson } from './http-json';
import { createOcmTokenSource, type OcmAuth } from './ocm-auth';
import { errorMessage, mapSettled } from './map-settled';
import type { ClusterRef, ClusterSnapshot, FinishedUpgrade, FleetProvider, FleetSnapshot, HealthReading, ProviderUpgrade } from './types';
import { ProviderError } from './types';
import { summarizeHealth } from './health-reading';

const API = '/api/clusters_mgmt/v1';
/** OCM (ClusterService) refuses an upgrade policy whose next_run is less than this far ahead. */
export const OCM_MIN_LEAD_MS = 5 * 60_000;
/** startUpgrade is called this long before the slot: the minimum lead plus room for a late tick. */
export const OCM_START_LEAD_MS = 10 * 60_000;
const PAGE_SIZE = 100;
const READ_CONCURRENCY = 8;
/** the first wait after OCM refused a start, doubled per refusal up to the maximum */
export const OCM_REFUSAL_BACKOFF_MS = 2 * 60_000;
export const OCM_REFUSAL_BACKOFF_MAX_MS = 60 * 60_000;

const ZCluster = z.object({
  id: z.string(),
  name: z.string(),
  state: z.string().optional(),
  channel: z.string().optional(),
  hypershift: z.object({ enabled: z.boolean().optional() }).nullish(),
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
const ZPolicyList = z.object({ items: z.array(ZPolicy).nullish(), total: z.number().optional() });

export interface OcmProviderOptions {
  baseUrl: string;
  /** how to authenticate; `token` alone is a fixed bearer token */
  auth?: OcmAuth;
  token?: string;
  /** OCM search expression, e.g. `organization.id='...' and managed='true'` */
  search?: string;
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
}

export function createOcmProvider(opts: OcmProviderOptions): FleetProvider {
  const base = opts.baseUrl.replace(/\/$/, '');
  const auth: OcmAuth | undefined = opts.auth ?? (opts.token !== undefined ? { kind: 'bearer', token: opts.token } : undefined);
  if (!auth) throw new ProviderError('ocm', 'no OCM credentials: a token, an offline token or a service account');
  const tokens = createOcmTokenSource(auth);
  const clusterPath = (id: string) => `${API}/clusters/${encodeURIComponent(id)}`;
  const policiesPath = (c: OcmCluster) => `${clusterPath(c.id)}/${isHostedControlPlane(c) ? 'control_plane/' : ''}upgrade_policies`;
  /** refused starts per cluster and version: when the next POST may be sent */
  const refused = new Map<string, { refusals: number; notBefore: number; reason: string }>();

  /** one request; a 401 fetches a new access token once (an expired or revoked one) */
  const call = async <T>(path: string, init: { method?: 'GET' | 'POST' | 'DELETE'; body?: unknown } = {}) => {
    const send = async () => httpJson<T>(`${base}${path}`, { ...init, token: await tokens.token(), provider: 'ocm' });
    try {
      return await send();
    } catch (err) {
      if (err instanceof ProviderError && err.status === 401 && tokens.invalidate()) return send();
      throw err;
    }
  };
  const get = async <T>(path: string, schema: z.ZodType<T>): Promise<T> => {
    const parsed = schema.safeParse((await call<unknown>(path)).body);
    if (!parsed.success)
      throw new ProviderError('ocm', `unexpected response from ${path}: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
    return parsed.data;
  };
  const readCluster = (id: string) => get(clusterPath(id), ZCluster);
  const readPolicies = async (cluster: OcmCluster): Promise<PolicyReading> => {
    const items: z.infer<typeof ZPolicy>[] = [];
    for (let page = 1; page < 1_000; page++) {
      const list = await get(
        `${policiesPath(cluster)}?${new URLSearchParams({ page: String(page), size: String(PAGE_SIZE) })}`,
        ZPolicyList,
      );
      const got = list.items ?? [];
      items.push(...got);
      if (got.length < PAGE_SIZE || (list.total !== undefined && items.length >= list.total)) break;
    }
    const reading: PolicyReading = { active: null, finished: null };
    for (const p of items) {
      if (p.schedule_type !== undefined && p.schedule_type !== 'manual')
        throw new ProviderError(
          'ocm',
          `${cluster.name} has an ${p.schedule_type} upgrade policy in OCM${p.schedule ? ` (schedule '${p.schedule}')` : ''}: ` +
            'it upgrades on its own schedule, so fleetplan leaves it alone; remove that policy in OCM to let fleetplan plan its upgrades',
        );
      if (!p.version || !p.next_run) continue;
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
      const description = state.description || undefined;
      if (state.value === 'completed' || state.value === 'failed')
        reading.finished = { version: p.version, value: state.value, nextRun, ...(description ? { description } : {}) };
      else if (state.value !== 'cancelled' && !reading.active)
        reading.active = { id: p.id, version: p.version, nextRun, value: state.value, ...(description ? { description } : {}) };
    }
    return reading;
  };
  const listAll = async (): Promise<OcmCluster[]> => {
    const items: OcmCluster[] = [];
    for (let page = 1; page < 10_000; page++) {
      const q = new URLSearchParams({ page: String(page), size: String(PAGE_SIZE), ...(opts.search ? { search: opts.search } : {}) });
      const list = await get(`${API}/clusters?${q}`, ZClusterList);
      const got = list.items ?? [];
      items.push(...got);
      if (got.length < PAGE_SIZE || (list.total !== undefined && items.length >= list.total)) break;
    }
    return items;
  };
  const snapshotOf = (c: OcmCluster, policies: PolicyReading): ClusterSnapshot => {
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
    return {
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
    };
  };
  return {
    name: 'ocm',
    startLeadMs: OCM_START_LEAD_MS,
    minStartNoticeMs: OCM_MIN_LEAD_MS,
    async observe(): Promise<FleetSnapshot> {
      const known = await listAll();
      const policies = await mapSettled(known, READ_CONCURRENCY, (c) => readPolicies(c));
      // read again after the policies: the versions reported are at least as new as the policies
      const fresh = new Map((await listAll()).map((c) => [c.id, c]));
      const snapshot: FleetSnapshot = { clusters: [], errors: [] };
      known.forEach((first, i) => {
        const p = policies[i]!;
        const c = fresh.get(first.id);
        if (p.status === 'rejected') snapshot.errors.push({ externalId: first.id, name: first.name, message: errorMessage(p.reason) });
        else if (c) snapshot.clusters.push(snapshotOf(c, p.value));
        // a cluster gone from the second list was deleted meanwhile: not reported, as if read after
      });
      for (const c of fresh.values())
        if (!known.some((k) => k.id === c.id))
          snapshot.errors.push({ externalId: c.id, name: c.name, message: 'appeared during the read; read next time' });
      return snapshot;
    },
    async observeCluster(ref: ClusterRef) {
      // the kind of cluster says where its policies are; its version is read after them (see above)
      const policies = await readPolicies(await readCluster(ref.externalId));
      return snapshotOf(await readCluster(ref.externalId), policies);
    },
    async startUpgrade(req, now) {
      if (req.at.getTime() < now.getTime() + OCM_MIN_LEAD_MS)
        throw new ProviderError(
          'ocm',
          `${req.name}: next_run ${formatInstantToSecond(req.at)} is less than ${OCM_MIN_LEAD_MS / 60_000} minutes ahead, which OCM refuses; plan a later start`,
        );
      const key = `${req.externalId}@${req.version}`;
      const backoff = refused.get(key);
      if (backoff && now.getTime() < backoff.notBefore)
        throw new ProviderError(
          'ocm',
          `${req.name}: OCM refused the upgrade to ${req.version} ${backoff.refusals} time(s) (${backoff.reason}); not asked again before ${formatInstantToSecond(new Date(backoff.notBefore))}`,
        );
      const cluster = await readCluster(req.externalId);
      const existing = (await readPolicies(cluster)).active;
      if (existing?.version === req.version) return; // already there: idempotent
      if (existing) throw new ProviderError('ocm', `cluster ${req.name} already has an upgrade policy to ${existing.version}`);
      try {
        await call(policiesPath(cluster), {
          method: 'POST',
          body: {
            kind: isHostedControlPlane(cluster) ? 'ControlPlaneUpgradePolicy' : 'UpgradePolicy',
            version: req.version,
            schedule_type: 'manual',
            upgrade_type: isHostedControlPlane(cluster) ? 'ControlPlane' : 'OSD',
            next_run: formatInstantToSecond(req.at),
          },
        });
        refused.delete(key);
      } catch (err) {
        if (err instanceof ProviderError && err.status !== undefined && err.status >= 400 && err.status < 500 && err.status !== 401) {
          const refusals = (backoff?.refusals ?? 0) + 1;
          const wait = Math.min(OCM_REFUSAL_BACKOFF_MS * 2 ** (refusals - 1), OCM_REFUSAL_BACKOFF_MAX_MS);
          refused.set(key, { refusals, notBefore: now.getTime() + wait, reason: err.message });
        }
        throw err;
      }
    },
    async cancelUpgrade(req) {
      const cluster = await readCluster(req.externalId);
      const existing = (await readPolicies(cluster)).active;
      if (!existing || existing.version !== req.version || (existing.value !== 'scheduled' && existing.value !== 'pending')) return;
      await call(`${policiesPath(cluster)}/${encodeURIComponent(existing.id)}`, { method: 'DELETE' });
    },
  };
}
