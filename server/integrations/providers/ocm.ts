/**
 * OpenShift Cluster Manager (OCM) provider, over its REST API with a bearer token.
 *
 * Request shapes relied on (api.openshift.com clusters_mgmt v1, as the upgrade service uses them,
 * docs/research/upgrade-service.md §1.0 and §1.3):
 * - `GET  /api/clusters_mgmt/v1/clusters?page=N&size=100[&search=...]` →
 *   `{kind: "ClusterList", page, size, total, items: [{id, name, state, channel?, version: {raw_id, channel_group, available_upgrades}}]}`
 * - `GET  /api/clusters_mgmt/v1/clusters/{id}/upgrade_policies` → `{items: [{id, version, schedule_type, next_run, upgrade_type}]}`
 * - `GET  /api/clusters_mgmt/v1/clusters/{id}/upgrade_policies/{policy}/state` → `{value: "scheduled"|"pending"|"started"|"delayed"|"failed"|"completed"|"cancelled", description}`
 * - `POST /api/clusters_mgmt/v1/clusters/{id}/upgrade_policies` body `{version, schedule_type: "manual", next_run, upgrade_type: "OSD"}`
 * - `DELETE /api/clusters_mgmt/v1/clusters/{id}/upgrade_policies/{policy}`
 * OCM removes a policy when its upgrade finishes.
 */
import { z } from 'zod';
import { httpJson } from './http-json';
import type { ClusterRef, ClusterSnapshot, FleetProvider, ProviderUpgrade } from './types';
import { ProviderError } from './types';

const API = '/api/clusters_mgmt/v1';

const ZCluster = z.object({
  id: z.string(),
  name: z.string(),
  state: z.string().optional(),
  channel: z.string().optional(),
  version: z
    .object({
      raw_id: z.string().optional(),
      id: z.string().optional(),
      channel_group: z.string().optional(),
      available_upgrades: z.array(z.string()).optional(),
    })
    .optional(),
});
const ZClusterList = z.object({
  items: z.array(ZCluster).default([]),
  page: z.number().optional(),
  size: z.number().optional(),
  total: z.number().optional(),
});
const ZPolicy = z.object({
  id: z.string(),
  version: z.string().optional(),
  schedule_type: z.string().optional(),
  next_run: z.string().optional(),
  upgrade_type: z.string().optional(),
});
const ZPolicyList = z.object({ items: z.array(ZPolicy).default([]) });
const ZPolicyState = z.object({ value: z.string(), description: z.string().optional() });

export interface OcmProviderOptions {
  baseUrl: string;
  token: string;
  /** OCM search expression, e.g. `organization.id='...' and managed='true'` */
  search?: string;
}

function versionOf(c: z.infer<typeof ZCluster>): string {
  return c.version?.raw_id ?? c.version?.id?.replace(/^openshift-v/, '') ?? '0.0.0';
}

function channelOf(c: z.infer<typeof ZCluster>, version: string): string {
  if (c.channel) return c.channel;
  const minor = version.split('.').slice(0, 2).join('.');
  return `${c.version?.channel_group ?? 'stable'}-${minor}`;
}

function iso(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export function createOcmProvider(opts: OcmProviderOptions): FleetProvider {
  const base = opts.baseUrl.replace(/\/$/, '');
  const get = async <T>(path: string, schema: z.ZodType<T>): Promise<T> => {
    const res = await httpJson<unknown>(`${base}${path}`, { token: opts.token, provider: 'ocm' });
    const parsed = schema.safeParse(res.body);
    if (!parsed.success)
      throw new ProviderError('ocm', `unexpected response from ${path}: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
    return parsed.data;
  };
  const currentPolicy = async (clusterId: string): Promise<{ id: string; upgrade: ProviderUpgrade } | null> => {
    const policies = await get(`${API}/clusters/${encodeURIComponent(clusterId)}/upgrade_policies`, ZPolicyList);
    for (const p of policies.items) {
      if (!p.version || !p.next_run) continue;
      const state = await get(
        `${API}/clusters/${encodeURIComponent(clusterId)}/upgrade_policies/${encodeURIComponent(p.id)}/state`,
        ZPolicyState,
      );
      if (state.value === 'completed' || state.value === 'cancelled' || state.value === 'failed') continue;
      const started = state.value === 'started' || state.value === 'delayed';
      const nextRun = iso(new Date(p.next_run));
      return {
        id: p.id,
        upgrade: { version: p.version, nextRun, state: started ? 'started' : 'scheduled', ...(started ? { startedAt: nextRun } : {}) },
      };
    }
    return null;
  };
  const listAll = async () => {
    const items: z.infer<typeof ZCluster>[] = [];
    for (let page = 1; page < 1000; page++) {
      const q = new URLSearchParams({ page: String(page), size: '100', ...(opts.search ? { search: opts.search } : {}) });
      const list = await get(`${API}/clusters?${q}`, ZClusterList);
      items.push(...list.items);
      if (list.items.length < 100 || (list.total !== undefined && items.length >= list.total)) break;
    }
    return items;
  };
  return {
    name: 'ocm',
    async listClusters(): Promise<ClusterSnapshot[]> {
      const clusters = await listAll();
      const out: ClusterSnapshot[] = [];
      for (const c of clusters) {
        const version = versionOf(c);
        const policy = await currentPolicy(c.id);
        const ready = (c.state ?? 'ready') === 'ready';
        out.push({
          externalId: c.id,
          name: c.name,
          version,
          channel: channelOf(c, version),
          availableUpgrades: c.version?.available_upgrades ?? [],
          healthy: ready,
          healthIssues: ready ? [] : [`cluster state is ${c.state}`],
          currentUpgrade: policy?.upgrade ?? null,
        });
      }
      return out;
    },
    async findUpgrade(ref: ClusterRef) {
      return (await currentPolicy(ref.externalId))?.upgrade ?? null;
    },
    async scheduleUpgrade(req) {
      const existing = await currentPolicy(req.externalId);
      if (existing?.upgrade.version === req.version) return; // already there: idempotent
      if (existing) throw new ProviderError('ocm', `cluster ${req.name} already has an upgrade policy to ${existing.upgrade.version}`);
      await httpJson(`${base}${API}/clusters/${encodeURIComponent(req.externalId)}/upgrade_policies`, {
        method: 'POST',
        token: opts.token,
        provider: 'ocm',
        body: { kind: 'UpgradePolicy', version: req.version, schedule_type: 'manual', upgrade_type: 'OSD', next_run: iso(req.nextRun) },
      });
    },
    async cancelUpgrade(req) {
      const existing = await currentPolicy(req.externalId);
      if (!existing || existing.upgrade.version !== req.version || existing.upgrade.state !== 'scheduled') return;
      await httpJson(`${base}${API}/clusters/${encodeURIComponent(req.externalId)}/upgrade_policies/${encodeURIComponent(existing.id)}`, {
        method: 'DELETE',
        token: opts.token,
        provider: 'ocm',
      });
    },
  };
}
