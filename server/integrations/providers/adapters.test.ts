// The real OCM and Kubernetes providers over real HTTP, against the fake APIs in tests/fakes
// (loopback only), which answer with the shapes the real APIs use (tests/fakes/PROVENANCE.md).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeOcm, type FakeOcm, type FakeOcmClusterSpec } from '@/tests/fakes/fake-ocm';
import {
  fakeTls,
  fakeTlsFiles,
  releaseImage,
  startFakeOpenShift,
  type FakeOpenShift,
  type FakeOpenShiftClusterSpec,
} from '@/tests/fakes/fake-openshift';
import { httpJson } from './http-json';
import { createKubernetesProviderFromKubeconfig } from './kubernetes';
import { MIN_LEAD_MS } from '@/server/domain/plan/decide-upgrades';
import { createOcmProvider, OCM_START_LEAD_MS } from './ocm';

const T0 = new Date('2021-08-30T18:00:00Z');
const MIN = 60_000;
let now = T0;
const running: { close(): Promise<void> }[] = [];
afterEach(async () => {
  now = T0;
  await Promise.all(running.splice(0).map((s) => s.close()));
});

const RELEASES = ['4.12.17', '4.12.19', '4.13.1'];

async function ocmFleet(clusters: FakeOcmClusterSpec[]): Promise<{ fake: FakeOcm; ocm: ReturnType<typeof createOcmProvider> }> {
  const fake = await startFakeOcm({ clusters, now: () => now });
  running.push(fake);
  return { fake, ocm: createOcmProvider({ baseUrl: fake.url, token: fake.token }) };
}

const prod1 = { id: 'c1id', name: 'prod-1', version: '4.12.17', releases: RELEASES };
const stage1 = { id: 'c2id', name: 'stage-1', version: '4.12.17', channelGroup: 'fast', releases: RELEASES };
const ref = (c: { id: string; name: string }) => ({ externalId: c.id, name: c.name });

describe('OCM provider', () => {
  it('reads every page of clusters with their available upgrades and current upgrade policy', async () => {
    const many = Array.from({ length: 130 }, (_, i) => ({ id: `c${i}`, name: `cluster-${i}`, version: '4.12.19', releases: RELEASES }));
    const { fake, ocm } = await ocmFleet([prod1, ...many]);
    await ocm.startUpgrade({ ...ref(prod1), version: '4.12.19', at: new Date(T0.getTime() + 60 * MIN), idempotencyKey: 'k' }, now);
    const { clusters, errors } = await ocm.observe(now);
    expect(errors).toEqual([]);
    expect(clusters).toHaveLength(131);
    expect(clusters[0]).toMatchObject({
      externalId: 'c1id',
      name: 'prod-1',
      version: '4.12.17',
      channel: 'stable-4.12',
      availableUpgrades: ['4.12.19', '4.13.1'],
      conditionalUpgrades: [],
      upgradeable: null,
      health: { operators: [], alerts: null, other: [] },
      healthy: true,
      currentUpgrade: { version: '4.12.19', nextRun: '2021-08-30T19:00:00Z', state: 'scheduled' },
    });
    expect(clusters[130]).toMatchObject({ name: 'cluster-129', availableUpgrades: ['4.13.1'], currentUpgrade: null });
    expect(fake.requests().filter((r) => r.path === '/api/clusters_mgmt/v1/clusters').length).toBeGreaterThanOrEqual(2);
    expect(fake.writes()).toHaveLength(1);
  });

  it('starts with one POST of a manual policy at the slot, writes nothing the second time, cancels with DELETE', async () => {
    const { fake, ocm } = await ocmFleet([prod1, stage1]);
    const at = new Date(T0.getTime() + 7 * MIN);
    await ocm.startUpgrade({ ...ref(stage1), version: '4.13.1', at, idempotencyKey: 'k' }, now);
    await ocm.startUpgrade({ ...ref(stage1), version: '4.13.1', at, idempotencyKey: 'k' }, now);
    expect(fake.writes('c2id')).toMatchObject([{ method: 'POST', version: '4.13.1', nextRun: '2021-08-30T18:07:00Z' }]);
    expect(fake.cluster('c2id').policies).toMatchObject([{ schedule_type: 'manual', upgrade_type: 'OSD' }]);
    await expect(ocm.startUpgrade({ ...ref(stage1), version: '4.12.19', at, idempotencyKey: 'k2' }, now)).rejects.toThrow(
      /already has an upgrade policy to 4.13.1/,
    );
    await ocm.cancelUpgrade({ ...ref(stage1), version: '4.13.1', idempotencyKey: 'k3' }, now);
    expect(fake.writes('c2id').map((w) => w.method)).toEqual(['POST', 'DELETE']);
    expect((await ocm.observeCluster(ref(stage1), now)).currentUpgrade).toBeNull();
    // nothing to cancel: no request
    await ocm.cancelUpgrade({ ...ref(stage1), version: '4.13.1', idempotencyKey: 'k4' }, now);
    expect(fake.writes('c2id')).toHaveLength(2);
  });

  it("refuses a start closer than OCM's minimum lead without sending it, as OCM itself would refuse it", async () => {
    const { fake, ocm } = await ocmFleet([prod1]);
    expect(ocm.startLeadMs).toBe(OCM_START_LEAD_MS);
    expect(OCM_START_LEAD_MS).toBeGreaterThan(5 * MIN);
    const soon = new Date(T0.getTime() + 4 * MIN);
    await expect(ocm.startUpgrade({ ...ref(prod1), version: '4.12.19', at: soon, idempotencyKey: 'k' }, now)).rejects.toThrow(
      /less than 5 minutes ahead/,
    );
    expect(fake.requests().filter((r) => r.method !== 'GET')).toEqual([]);
    // the fake is as strict as OCM: sent anyway, it is refused
    await expect(
      httpJson(`${fake.url}/api/clusters_mgmt/v1/clusters/c1id/upgrade_policies`, {
        method: 'POST',
        token: fake.token,
        provider: 'ocm',
        body: { version: '4.12.19', schedule_type: 'manual', upgrade_type: 'OSD', next_run: soon.toISOString() },
      }),
    ).rejects.toMatchObject({ status: 400 });
    expect(fake.refusals()).toHaveLength(1);
    expect(fake.writes()).toEqual([]);
  });

  it("a start moved past its slot for OCM's notice still reaches OCM in time, up to a minute after its tick; next_run is never before it", async () => {
    const { fake, ocm } = await ocmFleet([prod1]);
    // the lifecycle's moved start: its tick's now (to the millisecond) plus the provider's notice
    const tickNow = T0.getTime() + 2_936;
    const at = new Date(tickNow + ocm.minStartNoticeMs);
    // no more than the engine's own lead: a slot planned at a tick is not moved at that tick
    expect(ocm.minStartNoticeMs).toBeGreaterThan(5 * MIN);
    expect(ocm.minStartNoticeMs).toBeLessThanOrEqual(MIN_LEAD_MS);
    // the request goes out at the end of a long tick
    now = new Date(tickNow + MIN - 1_000);
    await ocm.startUpgrade({ ...ref(prod1), version: '4.12.19', at, idempotencyKey: 'k' }, now);
    expect(fake.refusals()).toEqual([]);
    // 18:06:02.936 planned: OCM's whole seconds round it up, not down to before the plan
    expect(fake.writes('c1id')).toMatchObject([{ method: 'POST', version: '4.12.19', nextRun: '2021-08-30T18:06:03Z' }]);
  });

  it('a start OCM took before a crash, replayed once less than its notice is left, is done: not refused, not sent again', async () => {
    const { fake, ocm } = await ocmFleet([prod1]);
    const at = new Date(T0.getTime() + 7 * MIN);
    await ocm.startUpgrade({ ...ref(prod1), version: '4.12.19', at, idempotencyKey: 'k' }, now);
    now = new Date(T0.getTime() + 4 * MIN); // 3 minutes before next_run
    await ocm.startUpgrade({ ...ref(prod1), version: '4.12.19', at, idempotencyKey: 'k' }, now);
    expect(fake.writes('c1id').map((w) => w.method)).toEqual(['POST']);
    expect(fake.refusals()).toEqual([]);
  });

  it('reads started, delayed (its own flag) and failed (with OCM description) policy states', async () => {
    const { fake, ocm } = await ocmFleet([prod1]);
    await ocm.startUpgrade({ ...ref(prod1), version: '4.12.19', at: new Date(T0.getTime() + 10 * MIN), idempotencyKey: 'k' }, now);
    now = new Date(T0.getTime() + 11 * MIN);
    expect((await ocm.observeCluster(ref(prod1), now)).currentUpgrade).toMatchObject({
      state: 'started',
      startedAt: '2021-08-30T18:10:00Z',
    });
    expect((await ocm.observeCluster(ref(prod1), now)).currentUpgrade?.delayed).toBeUndefined();
    fake.setPolicyState('c1id', 'delayed', 'Upgrade is taking longer than expected: worker nodes draining');
    expect((await ocm.observeCluster(ref(prod1), now)).currentUpgrade).toMatchObject({
      state: 'started',
      delayed: true,
      message: 'Upgrade is taking longer than expected: worker nodes draining',
    });
    fake.failUpgrade('c1id', 'Upgrade failed: machine-config pool worker degraded');
    const failed = await ocm.observeCluster(ref(prod1), now);
    expect(failed.currentUpgrade).toBeNull();
    expect(failed.lastUpgrade).toMatchObject({
      version: '4.12.19',
      state: 'failed',
      message: 'Upgrade failed: machine-config pool worker degraded',
    });
    expect(failed.version).toBe('4.12.17');
  });

  it('sees an upgrade that completes between the cluster list and the policy read as completed, never as removed', async () => {
    const { fake, ocm } = await ocmFleet([prod1, stage1]);
    await ocm.startUpgrade({ ...ref(prod1), version: '4.12.19', at: new Date(T0.getTime() + 10 * MIN), idempotencyKey: 'k' }, now);
    now = new Date(T0.getTime() + 30 * MIN);
    // the upgrade finishes (OCM removes the policy) just as the provider asks for the policies
    fake.onRequest((req) => {
      if (req.path === '/api/clusters_mgmt/v1/clusters/c1id/upgrade_policies' && fake.cluster('c1id').policies.length)
        fake.completeUpgrade('c1id');
    });
    const [c] = (await ocm.observe(now)).clusters;
    expect(c).toMatchObject({ name: 'prod-1', version: '4.12.19', currentUpgrade: null });
  });

  it('sees an upgrade that completes after its policy was read as completed too', async () => {
    const { fake, ocm } = await ocmFleet([prod1]);
    await ocm.startUpgrade({ ...ref(prod1), version: '4.12.19', at: new Date(T0.getTime() + 10 * MIN), idempotencyKey: 'k' }, now);
    now = new Date(T0.getTime() + 30 * MIN);
    let lists = 0;
    fake.onRequest((req) => {
      if (req.path === '/api/clusters_mgmt/v1/clusters' && ++lists === 2) fake.completeUpgrade('c1id');
    });
    const [c] = (await ocm.observe(now)).clusters;
    expect(c).toMatchObject({ version: '4.12.19', currentUpgrade: null, lastUpgrade: { version: '4.12.19', state: 'completed' } });
  });

  it("reports one cluster's failing policies as its error and returns the others", async () => {
    const { fake, ocm } = await ocmFleet([prod1, stage1]);
    fake.setPolicyFault('c1id', 500);
    const snapshot = await ocm.observe(now);
    expect(snapshot.clusters.map((c) => c.name)).toEqual(['stage-1']);
    expect(snapshot.errors.map((e) => [e.externalId, e.name])).toEqual([['c1id', 'prod-1']]);
    expect(snapshot.errors[0]!.message).toMatch(/HTTP 500/);
  });

  it('reports a non-ready cluster as unhealthy and API errors with their status', async () => {
    const { fake, ocm } = await ocmFleet([prod1]);
    fake.setClusterState('c1id', 'installing');
    expect((await ocm.observe(now)).clusters[0]).toMatchObject({
      healthy: false,
      health: { other: ['cluster state is installing'] },
      healthIssues: ['cluster state is installing'],
    });
    await expect(createOcmProvider({ baseUrl: fake.url, token: 'wrong' }).observe(now)).rejects.toMatchObject({
      name: 'ProviderError',
      status: 401,
    });
  });
});

/** The fake over HTTPS (its CA in the kubeconfig), read through a kubeconfig file with one token context per cluster. */
async function openShift(
  clusters: FakeOpenShiftClusterSpec[],
  opts: { tls?: boolean } = {},
): Promise<{ fake: FakeOpenShift; kube: ReturnType<typeof createKubernetesProviderFromKubeconfig> }> {
  const fake = await startFakeOpenShift({ clusters, now: () => now, ...(opts.tls === false ? {} : { tls: fakeTls() }) });
  running.push(fake);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fleetplan-kubeconfig-'));
  running.push({ close: () => Promise.resolve(fs.rmSync(dir, { recursive: true, force: true })) });
  const file = path.join(dir, 'kubeconfig');
  fs.writeFileSync(file, fake.kubeconfig());
  return { fake, kube: createKubernetesProviderFromKubeconfig({ kubeconfigPath: file }) };
}

const K_RELEASES = ['4.13.10', '4.13.11', '4.13.12', '4.14.1'];
const east = { name: 'prod-east', version: '4.13.10', releases: K_RELEASES };
const kref = { externalId: 'prod-east', name: 'prod-east' };

describe('Kubernetes provider', () => {
  it('reads ClusterVersion, Upgradeable, conditional updates, operators and firing alerts, and writes nothing', async () => {
    const { fake, kube } = await openShift([{ ...east, conditional: ['4.13.12'] }]);
    fake.degradeOperator('prod-east', 'ingress', 'router pods crashlooping');
    fake.makeOperatorUnavailable('prod-east', 'authentication', 'oauth pods not ready');
    fake.fireAlert('prod-east', { alertname: 'KubeAPIErrorBudgetBurn', namespace: 'openshift-kube-apiserver', severity: 'critical' });
    fake.fireAlert('prod-east', { alertname: 'KubePodNotReady', namespace: 'my-app', severity: 'warning' });
    fake.setUpgradeable('prod-east', 'False', 'Cluster operator kube-apiserver should not be upgraded between minor versions');
    const { clusters, errors } = await kube.observe(now);
    expect(errors).toEqual([]);
    const c = clusters[0]!;
    expect(c).toMatchObject({
      externalId: 'prod-east',
      version: '4.13.10',
      channel: 'stable-4.13',
      availableUpgrades: ['4.13.11', '4.14.1'],
      conditionalUpgrades: ['4.13.12'],
      upgradeable: { status: 'False', message: 'Cluster operator kube-apiserver should not be upgraded between minor versions' },
      healthy: false,
      currentUpgrade: null,
    });
    expect(c.health.operators.filter((o) => o.degraded || !o.available)).toEqual([
      { name: 'authentication', degraded: false, available: false, message: 'oauth pods not ready' },
      { name: 'ingress', degraded: true, available: true, message: 'router pods crashlooping' },
    ]);
    expect(c.health.alerts).toEqual([
      { name: 'Watchdog', namespace: 'openshift-monitoring', severity: 'none' },
      { name: 'KubeAPIErrorBudgetBurn', namespace: 'openshift-kube-apiserver', severity: 'critical' },
      { name: 'KubePodNotReady', namespace: 'my-app', severity: 'warning' },
    ]);
    expect(c.healthIssues).toEqual([
      'ClusterOperator authentication not Available: oauth pods not ready',
      'ClusterOperator ingress Degraded: router pods crashlooping',
      'critical alert KubeAPIErrorBudgetBurn firing in openshift-kube-apiserver',
    ]);
    await kube.observeCluster(kref, now);
    expect(fake.writes()).toEqual([]);
  });

  it('reads alerts it cannot query as null, which alone is not unhealthy', async () => {
    const { fake, kube } = await openShift([east]);
    fake.setAlertsReadable('prod-east', false);
    const c = await kube.observeCluster(kref, now);
    expect(c.health.alerts).toBeNull();
    expect(c.healthy).toBe(true);
  });

  it('starts with one merge-patch of spec.desiredUpdate {version, image}, then follows the update to completion', async () => {
    const { fake, kube } = await openShift([east]);
    await kube.startUpgrade({ ...kref, version: '4.13.11', at: now, idempotencyKey: 'k' }, now);
    await kube.startUpgrade({ ...kref, version: '4.13.11', at: now, idempotencyKey: 'k' }, now);
    expect(fake.writes('prod-east')).toEqual([
      {
        cluster: 'prod-east',
        method: 'PATCH',
        path: '/apis/config.openshift.io/v1/clusterversions/version',
        body: { spec: { desiredUpdate: { version: '4.13.11', image: releaseImage('4.13.11') } } },
        at: '2021-08-30T18:00:00Z',
      },
    ]);
    expect(fake.clusterVersion('prod-east').spec.desiredUpdate).toEqual({ version: '4.13.11', image: releaseImage('4.13.11') });
    expect(fake.clusterVersion('prod-east').spec.channel).toBe('stable-4.13'); // the merge kept the rest of spec
    now = new Date(T0.getTime() + 5 * MIN);
    expect((await kube.observeCluster(kref, now)).currentUpgrade).toMatchObject({
      version: '4.13.11',
      state: 'started',
      startedAt: '2021-08-30T18:00:00Z',
    });
    fake.completeUpdate('prod-east');
    const done = await kube.observeCluster(kref, now);
    expect(done).toMatchObject({
      version: '4.13.11',
      currentUpgrade: null,
      lastUpgrade: { fromVersion: '4.13.10', version: '4.13.11', state: 'completed' },
      availableUpgrades: ['4.13.12', '4.14.1'],
    });
  });

  it('starts a conditional update with its image, and refuses a withdrawn one or a future start without writing', async () => {
    const { fake, kube } = await openShift([{ ...east, conditional: ['4.13.12'] }]);
    fake.withdrawRelease('prod-east', '4.13.11');
    await expect(kube.startUpgrade({ ...kref, version: '4.13.11', at: now, idempotencyKey: 'k' }, now)).rejects.toThrow(
      /4.13.11 is not among the cluster's available or conditional updates/,
    );
    await expect(
      kube.startUpgrade({ ...kref, version: '4.13.12', at: new Date(T0.getTime() + 60 * MIN), idempotencyKey: 'k' }, now),
    ).rejects.toThrow(/cannot be held/);
    await kube.cancelUpgrade({ ...kref, version: '4.13.12', idempotencyKey: 'k' }, now);
    expect(fake.writes()).toEqual([]);
    await kube.startUpgrade({ ...kref, version: '4.13.12', at: now, idempotencyKey: 'k' }, now);
    expect(fake.writes()[0]?.body).toEqual({ spec: { desiredUpdate: { version: '4.13.12', image: releaseImage('4.13.12') } } });
    expect((await kube.observeCluster(kref, now)).currentUpgrade?.version).toBe('4.13.12');
  });

  it('reports a failed update with the Failing message, and a stalled one as running with its problem', async () => {
    const { fake, kube } = await openShift([east, { ...east, name: 'prod-west' }]);
    for (const name of ['prod-east', 'prod-west'])
      await kube.startUpgrade({ externalId: name, name, version: '4.13.11', at: now, idempotencyKey: 'k' }, now);
    fake.stallUpdate('prod-east', 'Cluster operator machine-config is not available');
    fake.failUpdate('prod-west', 'Cluster operator etcd is degraded');
    const [stalled, failed] = (await kube.observe(now)).clusters;
    expect(stalled).toMatchObject({
      version: '4.13.10',
      currentUpgrade: { version: '4.13.11', state: 'started', message: 'Cluster operator machine-config is not available' },
    });
    expect(failed).toMatchObject({
      version: '4.13.10',
      currentUpgrade: null,
      lastUpgrade: { version: '4.13.11', state: 'failed', message: 'Cluster operator etcd is degraded' },
    });
  });

  it('reports an unreachable cluster and one answering 500 as their errors and returns the others', async () => {
    const { fake, kube } = await openShift([east, { ...east, name: 'prod-west' }, { ...east, name: 'stage' }]);
    fake.setFault('prod-east', 'unreachable');
    fake.setFault('prod-west', 500);
    const { clusters, errors } = await kube.observe(now);
    expect(clusters.map((c) => c.name)).toEqual(['stage']);
    expect(errors.map((e) => e.name)).toEqual(['prod-east', 'prod-west']);
    expect(errors[1]!.message).toMatch(/HTTP 500/);
    await expect(kube.observeCluster(kref, now)).rejects.toMatchObject({ name: 'ProviderError' });
  });

  it('the fake API refuses a patch that is not a JSON merge patch, as the API server does', async () => {
    const { fake } = await openShift([east]);
    await expect(
      httpJson(`${fake.serverUrl('prod-east')}/apis/config.openshift.io/v1/clusterversions/version`, {
        method: 'PATCH',
        token: fake.token,
        provider: 'kubernetes',
        ca: fs.readFileSync(fakeTlsFiles().ca),
        contentType: 'application/json-patch+json',
        body: [{ op: 'add', path: '/spec/desiredUpdate', value: { version: '4.13.11' } }],
      }),
    ).rejects.toMatchObject({ status: 415 });
    expect(fake.clusterVersion('prod-east').spec.desiredUpdate).toBeUndefined();
  });

  it('works from the fake cluster kubeconfig over plain HTTP too (e.g. kubectl proxy), without insecure-skip-tls-verify', async () => {
    const { fake, kube } = await openShift([east], { tls: false });
    expect(fake.url).toMatch(/^http:/);
    expect((await kube.observe(now)).clusters.map((c) => c.version)).toEqual(['4.13.10']);
  });
});
