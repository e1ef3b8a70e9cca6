// The real adapters against local HTTP servers that answer like OCM and the Kubernetes API do.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createOcmProvider } from './ocm';
import { createKubernetesProvider, readKubeconfig } from './kubernetes';

type Req = { method: string; path: string; auth?: string; contentType?: string; body?: unknown };
const servers: http.Server[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.close();
});

async function serve(handler: (req: Req) => { status: number; body?: unknown }): Promise<{ url: string; requests: Req[] }> {
  const requests: Req[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString();
      const r: Req = {
        method: req.method ?? 'GET',
        path: req.url ?? '/',
        auth: req.headers.authorization,
        contentType: req.headers['content-type'],
        body: text ? JSON.parse(text) : undefined,
      };
      requests.push(r);
      const out = handler(r);
      res.writeHead(out.status, { 'content-type': 'application/json' });
      res.end(out.body === undefined ? '' : JSON.stringify(out.body));
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests };
}

const NOW = new Date('2021-08-30T18:00:00Z');

describe('OCM provider', () => {
  function fakeOcm() {
    const policies: { id: string; version: string; next_run: string; schedule_type: string; upgrade_type: string; state: string }[] = [
      { id: 'p-1', version: '4.12.19', next_run: '2021-08-30T19:00:00Z', schedule_type: 'manual', upgrade_type: 'OSD', state: 'scheduled' },
    ];
    let nextId = 2;
    return serve((req) => {
      if (req.auth !== 'Bearer t0ken') return { status: 401, body: { kind: 'Error', reason: 'bad token' } };
      const url = new URL(req.path, 'http://x');
      const p = url.pathname;
      if (req.method === 'GET' && p === '/api/clusters_mgmt/v1/clusters') {
        return {
          status: 200,
          body: {
            kind: 'ClusterList',
            page: 1,
            size: 2,
            total: 2,
            items: [
              {
                kind: 'Cluster',
                id: 'c1id',
                name: 'prod-1',
                state: 'ready',
                version: {
                  id: 'openshift-v4.12.17',
                  raw_id: '4.12.17',
                  channel_group: 'stable',
                  available_upgrades: ['4.12.19', '4.13.1'],
                },
              },
              {
                kind: 'Cluster',
                id: 'c2id',
                name: 'stage-1',
                state: 'ready',
                version: { id: 'openshift-v4.12.19', raw_id: '4.12.19', channel_group: 'fast', available_upgrades: ['4.13.1'] },
              },
            ],
          },
        };
      }
      const m = /^\/api\/clusters_mgmt\/v1\/clusters\/([^/]+)\/upgrade_policies(?:\/([^/]+))?(\/state)?$/.exec(p);
      if (m) {
        const [, cluster, policyId, state] = m;
        const mine = cluster === 'c1id' ? policies : [];
        if (req.method === 'GET' && !policyId)
          return {
            status: 200,
            body: {
              kind: 'UpgradePolicyList',
              items: mine.map(({ state: _s, ...rest }) => ({ kind: 'UpgradePolicy', cluster_id: cluster, ...rest })),
            },
          };
        if (req.method === 'GET' && state) {
          const pol = mine.find((x) => x.id === policyId);
          return pol
            ? { status: 200, body: { kind: 'UpgradePolicyState', value: pol.state, description: '' } }
            : { status: 404, body: { reason: 'not found' } };
        }
        if (req.method === 'POST' && !policyId && cluster === 'c2id')
          return { status: 201, body: { kind: 'UpgradePolicy', id: `p-${nextId++}`, ...(req.body as object) } };
        if (req.method === 'DELETE' && policyId) {
          const i = policies.findIndex((x) => x.id === policyId);
          if (i >= 0) policies.splice(i, 1);
          return { status: 204 };
        }
      }
      return { status: 404, body: { reason: `no route ${req.method} ${p}` } };
    });
  }

  it('lists clusters with available upgrades and their current upgrade policy', async () => {
    const { url, requests } = await fakeOcm();
    const ocm = createOcmProvider({ baseUrl: url, token: 't0ken' });
    const { clusters, errors } = await ocm.observe(NOW);
    expect(errors).toEqual([]);
    expect(clusters).toMatchObject([
      {
        externalId: 'c1id',
        name: 'prod-1',
        version: '4.12.17',
        channel: 'stable-4.12',
        availableUpgrades: ['4.12.19', '4.13.1'],
        currentUpgrade: { version: '4.12.19', nextRun: '2021-08-30T19:00:00Z', state: 'scheduled' },
      },
      { externalId: 'c2id', name: 'stage-1', version: '4.12.19', channel: 'fast-4.12', currentUpgrade: null },
    ]);
    expect(requests.map((r) => `${r.method} ${r.path.split('?')[0]}`)).toContain(
      'GET /api/clusters_mgmt/v1/clusters/c1id/upgrade_policies/p-1/state',
    );
    expect(requests.every((r) => r.auth === 'Bearer t0ken')).toBe(true);
  });

  it('creates a manual upgrade policy with next_run, and deletes it to cancel', async () => {
    const { url, requests } = await fakeOcm();
    const ocm = createOcmProvider({ baseUrl: url, token: 't0ken' });
    await ocm.startUpgrade(
      { externalId: 'c2id', name: 'stage-1', version: '4.13.1', at: new Date('2021-08-30T18:07:00Z'), idempotencyKey: 'k' },
      NOW,
    );
    const post = requests.find((r) => r.method === 'POST');
    expect(post).toMatchObject({
      path: '/api/clusters_mgmt/v1/clusters/c2id/upgrade_policies',
      contentType: 'application/json',
      body: { version: '4.13.1', schedule_type: 'manual', next_run: '2021-08-30T18:07:00Z', upgrade_type: 'OSD' },
    });
    // scheduling what already exists is a no-op (no second POST)
    await ocm.startUpgrade(
      { externalId: 'c1id', name: 'prod-1', version: '4.12.19', at: new Date('2021-08-30T19:00:00Z'), idempotencyKey: 'k2' },
      NOW,
    );
    expect(requests.filter((r) => r.method === 'POST')).toHaveLength(1);
    await ocm.cancelUpgrade({ externalId: 'c1id', name: 'prod-1', version: '4.12.19', idempotencyKey: 'k3' }, NOW);
    expect(requests.find((r) => r.method === 'DELETE')?.path).toBe('/api/clusters_mgmt/v1/clusters/c1id/upgrade_policies/p-1');
    expect((await ocm.observe(NOW)).clusters.find((c) => c.externalId === 'c1id')?.currentUpgrade).toBeNull();
  });

  it('reports API errors with the status', async () => {
    const { url } = await fakeOcm();
    await expect(createOcmProvider({ baseUrl: url, token: 'wrong' }).observe(NOW)).rejects.toMatchObject({
      name: 'ProviderError',
      status: 401,
    });
  });
});

describe('Kubernetes provider', () => {
  function fakeCluster() {
    const cv = {
      apiVersion: 'config.openshift.io/v1',
      kind: 'ClusterVersion',
      metadata: { name: 'version', annotations: {} as Record<string, string> },
      spec: { channel: 'stable-4.13', clusterID: 'abc' } as Record<string, unknown>,
      status: {
        desired: { version: '4.13.10', image: 'quay.io/openshift-release-dev/ocp-release@sha256:aa' },
        history: [
          { state: 'Completed', version: '4.13.10', startedTime: '2021-08-01T10:00:00Z', completionTime: '2021-08-01T11:00:00Z' },
        ] as { state: string; version: string; startedTime: string; completionTime: string | null }[],
        availableUpdates: [
          { version: '4.13.11', image: 'quay.io/openshift-release-dev/ocp-release@sha256:bb' },
          { version: '4.13.12', image: 'quay.io/openshift-release-dev/ocp-release@sha256:cc' },
        ],
        conditions: [{ type: 'Progressing', status: 'False' }] as { type: string; status: string }[],
      },
    };
    return serve((req) => {
      if (req.auth !== 'Bearer kube-token') return { status: 401, body: { kind: 'Status', message: 'Unauthorized' } };
      const p = new URL(req.path, 'http://x');
      if (p.pathname === '/apis/config.openshift.io/v1/clusterversions/version' && req.method === 'GET') return { status: 200, body: cv };
      if (p.pathname === '/apis/config.openshift.io/v1/clusterversions/version' && req.method === 'PATCH') {
        const patch = req.body as {
          metadata?: { annotations?: Record<string, string | null> };
          spec?: { desiredUpdate?: { version: string } };
        };
        for (const [k, v] of Object.entries(patch.metadata?.annotations ?? {})) {
          if (v === null) delete cv.metadata.annotations[k];
          else cv.metadata.annotations[k] = v;
        }
        if (patch.spec?.desiredUpdate) {
          cv.spec.desiredUpdate = patch.spec.desiredUpdate;
          cv.status.history.unshift({
            state: 'Partial',
            version: patch.spec.desiredUpdate.version,
            startedTime: '2021-08-30T18:08:00Z',
            completionTime: null,
          });
          cv.status.conditions = [{ type: 'Progressing', status: 'True' }];
        }
        return { status: 200, body: cv };
      }
      if (p.pathname === '/apis/config.openshift.io/v1/clusteroperators') {
        return {
          status: 200,
          body: {
            kind: 'ClusterOperatorList',
            items: [
              { metadata: { name: 'dns' }, status: { conditions: [{ type: 'Degraded', status: 'False' }] } },
              {
                metadata: { name: 'ingress' },
                status: { conditions: [{ type: 'Degraded', status: 'True', message: 'router pods crashlooping' }] },
              },
            ],
          },
        };
      }
      if (p.pathname === '/api/v1/query') {
        expect(p.searchParams.get('query')).toBe('ALERTS{alertstate="firing"}');
        return {
          status: 200,
          body: {
            status: 'success',
            data: {
              resultType: 'vector',
              result: [
                {
                  metric: { alertname: 'KubeAPIErrorBudgetBurn', namespace: 'openshift-kube-apiserver', severity: 'critical' },
                  value: [1630346400, '1'],
                },
              ],
            },
          },
        };
      }
      return { status: 404, body: { kind: 'Status', message: 'not found' } };
    }).then((s) => ({ ...s, cv }));
  }

  it('reads ClusterVersion, degraded operators and critical alerts', async () => {
    const { url } = await fakeCluster();
    const kube = createKubernetesProvider([{ name: 'prod-east', server: url, token: 'kube-token', prometheusUrl: url }]);
    const [c] = (await kube.observe(NOW)).clusters;
    expect(c).toMatchObject({
      externalId: 'prod-east',
      version: '4.13.10',
      channel: 'stable-4.13',
      availableUpgrades: ['4.13.11', '4.13.12'],
      healthy: false,
      currentUpgrade: null,
    });
    expect(c!.healthIssues).toEqual([
      'ClusterOperator ingress Degraded: router pods crashlooping',
      'critical alert KubeAPIErrorBudgetBurn firing in openshift-kube-apiserver',
    ]);
  });

  it('reading writes nothing; startUpgrade merge-patches spec.desiredUpdate with the release image', async () => {
    const { url, requests, cv } = await fakeCluster();
    const kube = createKubernetesProvider([{ name: 'prod-east', server: url, token: 'kube-token', prometheusUrl: url }]);
    await kube.observe(NOW);
    await kube.observeCluster({ externalId: 'prod-east', name: 'prod-east' }, NOW);
    expect(requests.filter((r) => r.method !== 'GET')).toEqual([]);
    await kube.startUpgrade({ externalId: 'prod-east', name: 'prod-east', version: '4.13.12', at: NOW, idempotencyKey: 'k' }, NOW);
    const patch = requests.find((r) => r.method === 'PATCH');
    expect(patch?.contentType).toBe('application/merge-patch+json');
    expect(patch?.body).toEqual({
      spec: { desiredUpdate: { version: '4.13.12', image: 'quay.io/openshift-release-dev/ocp-release@sha256:cc' } },
    });
    const [after] = (await kube.observe(NOW)).clusters;
    expect(after!.currentUpgrade).toMatchObject({ version: '4.13.12', state: 'started' });
    // the same start again writes nothing
    await kube.startUpgrade({ externalId: 'prod-east', name: 'prod-east', version: '4.13.12', at: NOW, idempotencyKey: 'k' }, NOW);
    expect(requests.filter((r) => r.method === 'PATCH')).toHaveLength(1);
    expect(cv.spec.desiredUpdate).toEqual({ version: '4.13.12', image: 'quay.io/openshift-release-dev/ocp-release@sha256:cc' });
  });

  it('refuses to hold a future start (the operator starts at once) and writes nothing', async () => {
    const { url, requests } = await fakeCluster();
    const kube = createKubernetesProvider([{ name: 'c', server: url, token: 'kube-token', prometheusUrl: url }]);
    await expect(
      kube.startUpgrade({ externalId: 'c', name: 'c', version: '4.13.11', at: new Date('2021-08-30T19:00:00Z'), idempotencyKey: 'k' }, NOW),
    ).rejects.toThrow(/cannot be held/);
    await kube.cancelUpgrade({ externalId: 'c', name: 'c', version: '4.13.11', idempotencyKey: 'k2' }, NOW);
    expect(requests.filter((r) => r.method !== 'GET')).toEqual([]);
  });

  it('reads token contexts from a kubeconfig', () => {
    const ctx = readKubeconfig(`apiVersion: v1
kind: Config
clusters:
- name: east
  cluster: {server: "https://api.east.example:6443", insecure-skip-tls-verify: true}
users:
- name: admin
  user: {token: sha256~abc}
contexts:
- name: prod-east
  context: {cluster: east, user: admin}
`);
    expect(ctx).toEqual([
      { name: 'prod-east', server: 'https://api.east.example:6443', token: 'sha256~abc', ca: undefined, insecure: true },
    ]);
  });
});
