// The Set-up page's service: where a fresh installation stands, naming its organization, and the
// provider connection test — against the fake OCM answering as clusters_mgmt does, with the right
// token, a wrong one and nothing listening.
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '@/db/open-database';
import { parseEnv } from '@/server/env';
import { seedDemo } from '@/server/services/demo-seed-service';
import { startFakeOcm } from '@/tests/fakes/fake-ocm';
import { createSetupService, type ConnectionTest } from './setup-service';
import type { FleetProvider, FleetSnapshot } from '@/server/integrations/providers/types';

/** The failed result, or the test fails saying what came back instead. */
function failed(result: ConnectionTest): Extract<ConnectionTest, { ok: false }> {
  if (result.ok) throw new Error(`expected the connection test to fail, it listed ${result.clusters} clusters`);
  return result;
}

const NOW = new Date('2026-03-02T08:00:00Z');
const running: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => s.close()));
});

function setupFor(env: Record<string, string>, db = openDatabase(':memory:')) {
  return {
    db,
    setup: createSetupService({ db, env: parseEnv({ DATABASE_URL: ':memory:', ...env }), fleetNow: () => NOW, realNow: () => NOW }),
  };
}

async function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

describe('set-up status', () => {
  it('a fresh database has nothing; naming creates the organization, audited', async () => {
    const { db, setup } = setupFor({ FLEETPLAN_PROVIDER: 'ocm', FLEETPLAN_OCM_URL: 'https://api.example.test', FLEETPLAN_OCM_TOKEN: 't' });
    expect(await setup.status()).toMatchObject({ organization: null, clusters: 0, managed: 0, complete: false, demo: false });
    expect((await setup.status()).provider).toEqual({
      name: 'ocm',
      target: 'https://api.example.test',
      credentials: 'access token (FLEETPLAN_OCM_TOKEN)',
    });
    await setup.nameOrganization('admin', ' app-sre ');
    expect((await setup.status()).organization).toMatchObject({ name: 'app-sre', named: true });
    const audit = db.$client.prepare("select actor, action, target from audit_log where action = 'organization.create'").all();
    expect(audit).toEqual([{ actor: 'admin', action: 'organization.create', target: 'organization:app-sre' }]);
  });

  it('a bad name is refused and nothing is stored', async () => {
    const { setup } = setupFor({ FLEETPLAN_PROVIDER: 'ocm', FLEETPLAN_OCM_TOKEN: 't' });
    await expect(async () => await setup.nameOrganization('admin', 'no spaces please')).rejects.toThrow(/not an organization name/);
    expect((await setup.status()).organization).toBeNull();
  });

  it('the demo fleet is recognised as the demo and counts as set up', async () => {
    const db = openDatabase(':memory:');
    await seedDemo(db, NOW);
    const { setup } = setupFor({}, db);
    const s = await setup.status();
    expect(s.demo).toBe(true);
    expect(s.complete).toBe(true);
    expect(s.managed).toBeGreaterThan(0);
    expect(s.provider.name).toBe('simulator');
  });
});

describe('set-up: testing the provider connection', () => {
  const clusters = [
    { id: 'c-1', name: 'prod-east-1', version: '4.15.20', releases: ['4.15.20', '4.15.21'] },
    { id: 'c-2', name: 'prod-west-1', version: '4.15.20', releases: ['4.15.20', '4.15.21'] },
  ];

  it('lists the fleet through OCM and writes nothing there', async () => {
    const fake = await startFakeOcm({ clusters, now: () => NOW });
    running.push(fake);
    const { setup } = setupFor({ FLEETPLAN_PROVIDER: 'ocm', FLEETPLAN_OCM_URL: fake.url, FLEETPLAN_OCM_TOKEN: fake.token });
    const result = await setup.testConnection();
    expect(result).toMatchObject({ ok: true, clusters: 2, sample: ['prod-east-1', 'prod-west-1'], unreadable: [] });
    expect(fake.writes()).toEqual([]);
    // one page of the cluster list, not every cluster's policies, gates and labels
    expect(fake.requests()).toEqual([{ method: 'GET', path: '/api/clusters_mgmt/v1/clusters' }]);
  });

  it('a token OCM refuses is reported with the status and OCM’s reason', async () => {
    const fake = await startFakeOcm({ clusters, now: () => NOW });
    running.push(fake);
    const { setup } = setupFor({ FLEETPLAN_PROVIDER: 'ocm', FLEETPLAN_OCM_URL: fake.url, FLEETPLAN_OCM_TOKEN: 'not-the-token' });
    const result = failed(await setup.testConnection());
    expect(result.status).toBe(401);
    expect(result.message).toMatch(/^ocm provider: .*401/);
  });

  it('nothing listening is reported as such, quickly', async () => {
    const port = await closedPort();
    const { setup } = setupFor({ FLEETPLAN_PROVIDER: 'ocm', FLEETPLAN_OCM_URL: `http://127.0.0.1:${port}`, FLEETPLAN_OCM_TOKEN: 't' });
    const result = failed(await setup.testConnection());
    expect(result.status).toBeNull();
    expect(result.message).toMatch(/ECONNREFUSED|refused|connect/i);
  });

  it('tests asked for while one runs share its provider read; none starts while a read outlives its test', async () => {
    let reads = 0;
    let finish: (() => void) | undefined;
    const provider = {
      name: 'slow',
      startLeadMs: 0,
      minStartNoticeMs: 0,
      observe: () => {
        reads++;
        return new Promise<FleetSnapshot>((resolve) => {
          finish = () => resolve({ clusters: [], errors: [] });
        });
      },
    } as unknown as FleetProvider;
    const db = openDatabase(':memory:');
    const setup = createSetupService({
      db,
      env: parseEnv({ DATABASE_URL: ':memory:', FLEETPLAN_PROVIDER: 'ocm', FLEETPLAN_OCM_TOKEN: 't' }),
      fleetNow: () => NOW,
      realNow: () => NOW,
      provider: () => Promise.resolve(provider),
      connectionTestTimeoutMs: 50,
    });
    const first = setup.testConnection();
    const second = setup.testConnection();
    expect(second).toBe(first);
    // the test gives up after its limit; its read goes on, and no new read starts meanwhile
    expect(await first).toMatchObject({ ok: false, message: 'ocm provider: no answer within 0.05 s' });
    expect(await setup.testConnection()).toMatchObject({ ok: false, message: expect.stringContaining('has not finished yet') as string });
    expect(reads).toBe(1);
    finish!();
    await new Promise((r) => setTimeout(r, 10));
    const again = setup.testConnection();
    await new Promise((r) => setTimeout(r, 10));
    expect(reads).toBe(2);
    finish!();
    expect(await again).toMatchObject({ ok: true, clusters: 0 });
  });
});
