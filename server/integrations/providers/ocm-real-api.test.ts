// The OCM provider against the parts of clusters_mgmt a real organization has beyond the basics:
// hosted control planes, automatic policies set by the owner, refused starts (back-off), access
// tokens from Red Hat SSO (offline token, service account), and answers too large to read.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeOcm, type FakeOcmOptions } from '@/tests/fakes/fake-ocm';
import { httpJson } from './http-json';
import { openDatabase } from '@/db/open-database';
import { createOcmRefusalRepository } from '@/server/repositories/ocm-refusal-repository';
import { createOcmProvider, OCM_REFUSAL_BACKOFF_MS, refusalBackoffMs } from './ocm';
import { createOcmTokenSource, type OcmAuth } from './ocm-auth';

const T0 = new Date('2026-03-02T08:00:00Z');
const MIN = 60_000;
let now = T0;
const running: { close(): Promise<void> }[] = [];
afterEach(async () => {
  now = T0;
  await Promise.all(running.splice(0).map((s) => s.close()));
});

const RELEASES = ['4.15.20', '4.15.21', '4.16.3'];
const classic = { id: 'c-classic', name: 'rosa-classic-1', version: '4.15.20', releases: RELEASES };
const hosted = { id: 'c-hcp', name: 'rosa-hcp-1', version: '4.15.20', releases: RELEASES, hypershift: true };

async function fleet(opts: Partial<FakeOcmOptions> & Pick<FakeOcmOptions, 'clusters'>, auth?: (url: string) => OcmAuth) {
  const fake = await startFakeOcm({ now: () => now, ...opts });
  running.push(fake);
  const ocm = createOcmProvider(auth ? { baseUrl: fake.url, auth: auth(fake.url) } : { baseUrl: fake.url, token: fake.token });
  return { fake, ocm };
}

const start = (c: { id: string; name: string }, version: string, minutesAhead = 60) => ({
  externalId: c.id,
  name: c.name,
  version,
  at: new Date(now.getTime() + minutesAhead * MIN),
  idempotencyKey: `${c.id}@${version}`,
});

describe('OCM provider: hosted control planes', () => {
  it('schedules, reads and cancels a hosted control plane through control_plane/upgrade_policies with the state inline', async () => {
    const { fake, ocm } = await fleet({ clusters: [classic, hosted] });
    await ocm.startUpgrade(start(hosted, '4.15.21'), now);
    await ocm.startUpgrade(start(classic, '4.15.21'), now);
    expect(fake.writes().map((w) => [w.cluster, w.method])).toEqual([
      ['c-hcp', 'POST'],
      ['c-classic', 'POST'],
    ]);
    expect(fake.cluster('c-hcp').policies[0]).toMatchObject({ upgrade_type: 'ControlPlane', version: '4.15.21' });
    expect(fake.cluster('c-classic').policies[0]).toMatchObject({ upgrade_type: 'OSD' });

    const { clusters, errors } = await ocm.observe(now);
    expect(errors).toEqual([]);
    expect(clusters.find((c) => c.name === 'rosa-hcp-1')?.currentUpgrade).toMatchObject({ version: '4.15.21', state: 'scheduled' });
    // the hosted one has no /state sub-resource: reading it would have failed the cluster
    expect(fake.requests().some((r) => r.path.includes('control_plane') && r.path.endsWith('/state'))).toBe(false);

    await ocm.cancelUpgrade({ externalId: hosted.id, name: hosted.name, version: '4.15.21', idempotencyKey: 'cancel' }, now);
    expect(fake.writes('c-hcp').map((w) => w.method)).toEqual(['POST', 'DELETE']);
    expect(fake.cluster('c-hcp').policies).toEqual([]);
  });

  it('sees a hosted control plane upgrade start and complete', async () => {
    const { fake, ocm } = await fleet({ clusters: [hosted] });
    await ocm.startUpgrade(start(hosted, '4.16.3', 30), now);
    now = new Date(now.getTime() + 31 * MIN);
    expect((await ocm.observeCluster({ externalId: hosted.id, name: hosted.name }, now)).currentUpgrade).toMatchObject({
      version: '4.16.3',
      state: 'started',
    });
    fake.completeUpgrade('c-hcp');
    const done = await ocm.observeCluster({ externalId: hosted.id, name: hosted.name }, now);
    expect(done).toMatchObject({ version: '4.16.3', currentUpgrade: null });
  });
});

describe('OCM provider: policies the owner set in OCM', () => {
  const owned = {
    id: 'c-auto',
    name: 'self-managed-1',
    version: '4.15.20',
    releases: RELEASES,
    automaticPolicy: { schedule: '0 3 * * 1' },
  };

  it('leaves a cluster with an automatic policy and no scheduled run alone: a read error for that cluster only, and no start', async () => {
    const { fake, ocm } = await fleet({ clusters: [classic, owned] });
    const { clusters, errors } = await ocm.observe(now);
    expect(clusters.map((c) => c.name)).toEqual(['rosa-classic-1']);
    expect(errors.map((e) => e.name)).toEqual(['self-managed-1']);
    expect(errors[0]!.message).toContain("automatic upgrade policy in OCM (schedule '0 3 * * 1')");
    await expect(ocm.startUpgrade(start(owned, '4.15.21'), now)).rejects.toThrow('it upgrades on its own schedule');
    await ocm.cancelUpgrade({ externalId: owned.id, name: owned.name, version: '4.15.21', idempotencyKey: 'c' }, now);
    expect(fake.writes()).toEqual([]);
  });

  it("reports the run an automatic policy scheduled as the cluster's current upgrade, with the schedule as its message, and never cancels it", async () => {
    const scheduled = { ...owned, automaticPolicy: { schedule: '0 3 * * 1', version: '4.15.21' } };
    const { fake, ocm } = await fleet({ clusters: [scheduled] });
    const { clusters, errors } = await ocm.observe(now);
    expect(errors).toEqual([]);
    expect(clusters[0]!.currentUpgrade).toMatchObject({
      version: '4.15.21',
      state: 'scheduled',
      message: expect.stringContaining("automatic upgrade policy in OCM (schedule '0 3 * * 1')") as unknown,
    });
    // the lifecycle may ask for the very same version: still not ours to write
    await expect(ocm.startUpgrade(start(scheduled, '4.15.21'), now)).rejects.toThrow('it upgrades on its own schedule');
    await ocm.cancelUpgrade({ externalId: owned.id, name: owned.name, version: '4.15.21', idempotencyKey: 'c' }, now);
    expect(fake.writes()).toEqual([]);
    expect(fake.cluster('c-auto').policies).toHaveLength(1);
  });
});

describe('OCM provider: refused starts back off', () => {
  it('does not POST for a refused cluster again before 5, then 10 minutes, whatever the version, and forgets once OCM accepts', async () => {
    const { fake, ocm } = await fleet({ clusters: [classic, { ...classic, id: 'c-other', name: 'rosa-classic-2' }] });
    // 4.14.9 is not an available upgrade: OCM refuses it
    await expect(ocm.startUpgrade(start(classic, '4.14.9'), now)).rejects.toThrow(
      /is not an available upgrade.*refusal 1 in a row: no upgrade is sent for rosa-classic-1 before 2026-03-02T08:05:00Z/,
    );
    // the back-off holds the cluster, not the version: another target is not sent either
    await expect(ocm.startUpgrade(start(classic, '4.15.21'), now)).rejects.toThrow(
      'OCM refused 1 start(s) in a row (last: the upgrade to 4.14.9',
    );
    now = new Date(T0.getTime() + OCM_REFUSAL_BACKOFF_MS - 1000);
    await expect(ocm.startUpgrade(start(classic, '4.14.9'), now)).rejects.toThrow('backs off and sends no upgrade for this cluster before');
    expect(fake.refusals()).toHaveLength(1);
    // another cluster is not held back by it
    await ocm.startUpgrade(start({ id: 'c-other', name: 'rosa-classic-2' }, '4.15.21'), now);

    now = new Date(T0.getTime() + OCM_REFUSAL_BACKOFF_MS);
    await expect(ocm.startUpgrade(start(classic, '4.14.9'), now)).rejects.toThrow('refusal 2 in a row');
    expect(fake.refusals()).toHaveLength(2);
    now = new Date(now.getTime() + 2 * OCM_REFUSAL_BACKOFF_MS - 1000);
    await expect(ocm.startUpgrade(start(classic, '4.14.9'), now)).rejects.toThrow('2 start(s) in a row');
    expect(fake.refusals()).toHaveLength(2);

    now = new Date(now.getTime() + 1000);
    await ocm.startUpgrade(start(classic, '4.15.21'), now);
    expect(fake.writes().map((w) => [w.cluster, w.version])).toEqual([
      ['c-other', '4.15.21'],
      ['c-classic', '4.15.21'],
    ]);
  });

  it('waits 5, 10, 20, 40 and then 60 minutes at most', () => {
    expect([1, 2, 3, 4, 5, 6, 12].map((n) => refusalBackoffMs(n) / MIN)).toEqual([5, 10, 20, 40, 60, 60, 60]);
  });

  it('keeps the refusals in its store: a provider built for the next tick does not POST again', async () => {
    const fake = await startFakeOcm({ now: () => now, clusters: [classic] });
    running.push(fake);
    // the store the scheduler's provider uses: the database (a provider is built per tick)
    const refusals = createOcmRefusalRepository(openDatabase(':memory:'));
    const tick = () => createOcmProvider({ baseUrl: fake.url, token: fake.token, refusals });
    await expect(tick().startUpgrade(start(classic, '4.14.9'), now)).rejects.toThrow('refusal 1 in a row');
    now = new Date(T0.getTime() + 2 * MIN);
    await expect(tick().startUpgrade(start(classic, '4.14.9'), now)).rejects.toThrow('backs off');
    expect(fake.refusals()).toHaveLength(1);
  });
});

describe('OCM provider: probe', () => {
  it('tells the fleet size and the first names from one page of the cluster list', async () => {
    const many = Array.from({ length: 25 }, (_, i) => ({ ...classic, id: `c-${i}`, name: `rosa-${String(i).padStart(2, '0')}` }));
    const { fake, ocm } = await fleet({ clusters: many });
    expect(await ocm.probe!(now, 10)).toEqual({ clusters: 25, sample: many.slice(0, 10).map((c) => c.name) });
    expect(fake.requests()).toEqual([{ method: 'GET', path: '/api/clusters_mgmt/v1/clusters' }]);
  });
});

describe('OCM provider: access tokens from Red Hat SSO', () => {
  it('exchanges an offline token for an access token, reuses it, and gets a new one when OCM answers 401', async () => {
    const { fake, ocm } = await fleet(
      { clusters: [classic], offlineToken: 'offline-token-of-the-org', accessTokenTtlSeconds: 900 },
      (url) => ({ kind: 'offline-token', offlineToken: 'offline-token-of-the-org', tokenUrl: `${url}/_sso/token` }),
    );
    await ocm.observe(now);
    await ocm.observe(now);
    // the scheduler builds a provider per tick: the next one reuses the token too
    const nextTick = createOcmProvider({
      baseUrl: fake.url,
      auth: { kind: 'offline-token', offlineToken: 'offline-token-of-the-org', tokenUrl: `${fake.url}/_sso/token` },
    });
    await nextTick.observe(now);
    expect(fake.tokenGrants().map((g) => g.grantType)).toEqual(['refresh_token']);
    // the access token expires at OCM (its clock moved past the 15 minutes)
    now = new Date(T0.getTime() + 20 * MIN);
    const { clusters, errors } = await ocm.observe(now);
    expect(errors).toEqual([]);
    expect(clusters).toHaveLength(1);
    expect(fake.tokenGrants()).toHaveLength(2);
  });

  it('a 401 for a token already replaced does not drop the fresh one (the source is shared by every provider)', async () => {
    const { fake } = await fleet({ clusters: [classic], offlineToken: 'offline-token-shared', accessTokenTtlSeconds: 900 });
    const source = createOcmTokenSource({
      kind: 'offline-token',
      offlineToken: 'offline-token-shared',
      tokenUrl: `${fake.url}/_sso/token`,
    });
    const first = await source.token(now.getTime());
    expect(source.invalidate('an-older-token')).toBe(true);
    expect(await source.token(now.getTime())).toBe(first);
    expect(fake.tokenGrants()).toHaveLength(1);
    source.invalidate(first);
    expect(await source.token(now.getTime())).not.toBe(first);
    expect(fake.tokenGrants()).toHaveLength(2);
  });

  it('uses a service account (client credentials)', async () => {
    const account = { clientId: 'svc-fleetplan', clientSecret: 's3cret' };
    const { fake, ocm } = await fleet({ clusters: [classic], serviceAccount: account }, (url) => ({
      kind: 'service-account',
      ...account,
      tokenUrl: `${url}/_sso/token`,
    }));
    expect((await ocm.observe(now)).clusters).toHaveLength(1);
    expect(fake.tokenGrants().map((g) => g.grantType)).toEqual(['client_credentials']);
  });

  it('says which credential SSO refused', async () => {
    const { ocm } = await fleet({ clusters: [classic], serviceAccount: { clientId: 'svc-fleetplan', clientSecret: 's3cret' } }, (url) => ({
      kind: 'service-account',
      clientId: 'svc-fleetplan',
      clientSecret: 'wrong',
      tokenUrl: `${url}/_sso/token`,
    }));
    await expect(ocm.observe(now)).rejects.toThrow(
      'could not get an OCM access token with the service account svc-fleetplan: POST /_sso/token → HTTP 401: Invalid client credentials',
    );
  });
});

describe('provider HTTP answers', () => {
  it('refuses an answer larger than the limit, counting the bytes that arrive (no Content-Length needed)', async () => {
    const server = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = `"${'x'.repeat(64 * 1024)}",`;
      res.write('[');
      let sent = 0;
      const more = () => {
        while (sent < 64) {
          sent++;
          if (!res.write(chunk)) return void res.once('drain', more);
        }
        res.end('"end"]');
      };
      more();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    running.push({ close: () => new Promise<void>((resolve) => server.close(() => resolve())) });
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/big`;
    await expect(httpJson(url, { provider: 'ocm', maxResponseBytes: 1024 * 1024 })).rejects.toThrow(
      'the answer is larger than 1048576 bytes',
    );
    await expect(httpJson<string[]>(url, { provider: 'ocm' })).resolves.toMatchObject({ status: 200 });
  });
});

describe('OCM provider: discovery', () => {
  it('reports labels from the subscriptions (searched per page of clusters, every page read), cloud, region and nodes', async () => {
    const many = Array.from({ length: 150 }, (_, i) => ({
      id: `c${i}`,
      name: `cluster-${i}`,
      version: '4.15.20',
      releases: RELEASES,
      labels: { team: i % 2 ? 'payments' : 'search' },
    }));
    const labelled = {
      ...classic,
      labels: { env: 'prod', team: 'platform' },
      cloud: 'gcp',
      region: 'europe-west1',
      nodes: { compute: 6, master: 3, infra: 3 },
    };
    const metered = { ...hosted, metricsNodes: { compute: 4, total: 4 } };
    const { fake, ocm } = await fleet({ clusters: [labelled, metered, ...many] });
    const { clusters, errors } = await ocm.observe(now);
    expect(errors).toEqual([]);
    expect(clusters.find((c) => c.name === 'rosa-classic-1')?.discovery).toEqual({
      labels: { env: 'prod', team: 'platform' },
      cloud: 'gcp',
      region: 'europe-west1',
      nodeCount: 12,
    });
    // the nodes running (metrics) rather than those asked for
    expect(clusters.find((c) => c.name === 'rosa-hcp-1')?.discovery).toEqual({
      labels: {},
      cloud: 'aws',
      region: 'us-east-1',
      nodeCount: 4,
    });
    expect(clusters.find((c) => c.name === 'cluster-149')?.discovery?.labels).toEqual({ team: 'payments' });
    const searches = fake.requests().filter((r) => r.path === '/api/accounts_mgmt/v1/subscriptions');
    expect(searches).toHaveLength(2); // 152 subscriptions, 100 ids per search
    expect(fake.writes()).toEqual([]);
  });

  it('leaves discovery out (not "no labels") when the subscriptions cannot be read, and reads the clusters anyway', async () => {
    const { ocm } = await fleet({ clusters: [{ ...classic, labels: { env: 'prod' } }], subscriptionFault: 503 });
    const { clusters, errors } = await ocm.observe(now);
    expect(errors).toEqual([]);
    expect(clusters[0]).toMatchObject({ name: 'rosa-classic-1', version: '4.15.20' });
    expect(clusters[0]!.discovery).toBeUndefined();
  });
});

describe('OCM provider: channel of a route hop', () => {
  it("writes nothing for a channel of the cluster's group (OCM sets the minor channel itself) and refuses another group", async () => {
    const { fake, ocm } = await fleet({ clusters: [classic] });
    const ref = { externalId: classic.id, name: classic.name };
    expect(await ocm.setChannel!(ref, 'stable-4.16', now)).toBe('already-set');
    await expect(ocm.setChannel!(ref, 'eus-4.16', now)).rejects.toThrow(
      "rosa-classic-1 is in OCM's stable channel group; eus-4.16 needs the eus group, which the cluster's owner changes in OCM (fleetplan does not)",
    );
    expect(fake.writes()).toEqual([]);
  });
});

describe('OCM provider: version gates', () => {
  const gates = [
    {
      id: 'gate-416-ocp',
      version_raw_id_prefix: '4.16',
      label: 'api.openshift.com/gate-ocp',
      value: '4.16',
      description: 'OpenShift 4.16 removes deprecated Kubernetes 1.29 APIs; check your workloads first.',
      documentation_url: 'https://access.redhat.com/articles/6955381',
      sts_only: false,
    },
    {
      id: 'gate-416-sts',
      version_raw_id_prefix: '4.16',
      label: 'api.openshift.com/gate-sts',
      value: '4.16',
      description: 'STS clusters need updated IAM roles before 4.16.',
      sts_only: true,
    },
    { id: 'gate-415', version_raw_id_prefix: '4.15', label: 'api.openshift.com/gate-ocp', description: 'old one', sts_only: false },
  ];

  it('lists the gates of the offered minors the cluster has not agreed to (sts_only ones for STS clusters only)', async () => {
    const { fake, ocm } = await fleet({
      clusters: [classic, hosted, { ...classic, id: 'c-agreed', name: 'agreed-1', agreedGates: ['gate-416-ocp'] }],
      versionGates: gates,
    });
    const { clusters } = await ocm.observe(now);
    const pending = (name: string) => clusters.find((c) => c.name === name)?.pendingVersionGates?.map((g) => g.id);
    expect(pending('rosa-classic-1')).toEqual(['gate-416-ocp']);
    expect(pending('rosa-hcp-1')).toEqual(['gate-416-ocp', 'gate-416-sts']);
    expect(pending('agreed-1')).toEqual([]);
    expect(clusters[0]!.pendingVersionGates![0]).toEqual({
      id: 'gate-416-ocp',
      minor: '4.16',
      description: 'OpenShift 4.16 removes deprecated Kubernetes 1.29 APIs; check your workloads first.',
      documentationUrl: 'https://access.redhat.com/articles/6955381',
    });
    // the gates once per read, not per cluster
    expect(fake.requests().filter((r) => r.path.endsWith('/version_gates'))).toHaveLength(1);
    expect(fake.gateAgreementWrites()).toEqual([]);
  });

  it('reads no agreements for a cluster offered no gated minor', async () => {
    const zOnly = { ...classic, releases: ['4.15.20', '4.15.21'] };
    const { fake, ocm } = await fleet({ clusters: [zOnly], versionGates: gates });
    expect((await ocm.observe(now)).clusters[0]!.pendingVersionGates).toEqual([]);
    expect(fake.requests().filter((r) => r.path.includes('gate'))).toEqual([]);
  });

  it('acknowledges a gate with one POST, and not again when it is already agreed', async () => {
    const { fake, ocm } = await fleet({ clusters: [classic], versionGates: gates });
    const ref = { externalId: classic.id, name: classic.name };
    expect(await ocm.acknowledgeVersionGate!(ref, 'gate-416-ocp', now)).toBe('agreed');
    expect(await ocm.acknowledgeVersionGate!(ref, 'gate-416-ocp', now)).toBe('already-agreed');
    expect(fake.gateAgreementWrites()).toMatchObject([{ cluster: 'c-classic', gateId: 'gate-416-ocp' }]);
    expect((await ocm.observeCluster(ref, now)).pendingVersionGates).toEqual([]);
    await expect(ocm.acknowledgeVersionGate!(ref, 'gate-nope', now)).rejects.toThrow('OCM has no version gate gate-nope');
    expect(fake.gateAgreementWrites()).toHaveLength(1);
    expect(fake.writes()).toEqual([]);
  });
});
