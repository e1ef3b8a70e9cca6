// The OCM provider against the parts of clusters_mgmt a real organization has beyond the basics:
// hosted control planes, automatic policies set by the owner, refused starts (back-off), access
// tokens from Red Hat SSO (offline token, service account), and answers too large to read.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeOcm, type FakeOcmOptions } from '@/tests/fakes/fake-ocm';
import { httpJson } from './http-json';
import { createOcmProvider, OCM_REFUSAL_BACKOFF_MS } from './ocm';
import type { OcmAuth } from './ocm-auth';

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
  it('leaves a cluster with an automatic upgrade policy alone: a read error for that cluster only, and no start', async () => {
    const owned = {
      id: 'c-auto',
      name: 'self-managed-1',
      version: '4.15.20',
      releases: RELEASES,
      automaticPolicy: { schedule: '0 3 * * 1' },
    };
    const { fake, ocm } = await fleet({ clusters: [classic, owned] });
    const { clusters, errors } = await ocm.observe(now);
    expect(clusters.map((c) => c.name)).toEqual(['rosa-classic-1']);
    expect(errors.map((e) => e.name)).toEqual(['self-managed-1']);
    expect(errors[0]!.message).toContain("automatic upgrade policy in OCM (schedule '0 3 * * 1')");
    await expect(ocm.startUpgrade(start(owned, '4.15.21'), now)).rejects.toThrow('it upgrades on its own schedule');
    expect(fake.writes()).toEqual([]);
  });
});

describe('OCM provider: refused starts back off', () => {
  it('does not POST a refused start again before 2, then 4 minutes, and forgets the refusals once OCM accepts', async () => {
    const { fake, ocm } = await fleet({ clusters: [classic] });
    // 4.14.9 is not an available upgrade: OCM refuses it
    await expect(ocm.startUpgrade(start(classic, '4.14.9'), now)).rejects.toThrow('is not an available upgrade');
    await expect(ocm.startUpgrade(start(classic, '4.14.9'), now)).rejects.toThrow('not asked again before 2026-03-02T08:02:00Z');
    now = new Date(T0.getTime() + OCM_REFUSAL_BACKOFF_MS - 1000);
    await expect(ocm.startUpgrade(start(classic, '4.14.9'), now)).rejects.toThrow('refused the upgrade to 4.14.9 1 time(s)');
    expect(fake.refusals()).toHaveLength(1);

    now = new Date(T0.getTime() + OCM_REFUSAL_BACKOFF_MS);
    await expect(ocm.startUpgrade(start(classic, '4.14.9'), now)).rejects.toThrow('is not an available upgrade');
    expect(fake.refusals()).toHaveLength(2);
    await expect(ocm.startUpgrade(start(classic, '4.14.9'), now)).rejects.toThrow('2 time(s)');
    now = new Date(now.getTime() + 2 * OCM_REFUSAL_BACKOFF_MS - 1000);
    await expect(ocm.startUpgrade(start(classic, '4.14.9'), now)).rejects.toThrow('2 time(s)');
    expect(fake.refusals()).toHaveLength(2);

    // another version of the same cluster is not held back by it
    await ocm.startUpgrade(start(classic, '4.15.21'), now);
    expect(fake.writes().map((w) => w.version)).toEqual(['4.15.21']);
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
    expect(fake.tokenGrants().map((g) => g.grantType)).toEqual(['refresh_token']);
    // the access token expires at OCM (its clock moved past the 15 minutes)
    now = new Date(T0.getTime() + 20 * MIN);
    const { clusters, errors } = await ocm.observe(now);
    expect(errors).toEqual([]);
    expect(clusters).toHaveLength(1);
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
