import { describe, expect, it, beforeAll } from 'vitest';
import { openDatabase, type Db } from '@/db/open-database';
import { seedDemo } from '@/server/services/demo-seed-service';
import { createCaller } from './root';
import { createContextInner } from './trpc';

const NOW = new Date('2026-11-22T12:00:00Z');
let db: Db;

function callerAs(role: 'viewer' | 'operator' | 'admin' | null) {
  return createCaller(createContextInner({ db, fleetNow: () => NOW, actor: role ? { name: `test-${role}`, role, via: 'system' } : null }));
}

beforeAll(async () => {
  db = openDatabase(':memory:');
  await seedDemo(db, NOW);
});

describe('clusters router (tRPC through createCaller on a migrated in-memory database)', () => {
  it('lists the seeded fleet with paging and a total', async () => {
    const page = await callerAs('viewer').clusters.list({ limit: 10 });
    expect(page.total).toBe(57);
    expect(page.items).toHaveLength(10);
    const names = page.items.map((c) => c.name);
    expect([...names].sort()).toEqual(names);
  });

  it('filters by sector and workload on the server', async () => {
    const page = await callerAs('viewer').clusters.list({ filter: { sector: 'prod-green', workload: 'ocm' }, limit: 100 });
    expect(page.total).toBeGreaterThan(0);
    for (const c of page.items) {
      expect(c.sector).toBe('prod-green');
      expect(c.workloads).toContain('ocm');
    }
  });

  it("the version chart counts the clusters the table's filters select", async () => {
    const viewer = callerAs('viewer');
    const all = await viewer.clusters.versionDistribution();
    const sum = (rows: { total: number }[]) => rows.reduce((n, r) => n + r.total, 0);
    expect(sum(all)).toBe((await viewer.clusters.list({ limit: 1 })).total);
    const filter = { sector: 'prod-green', workload: 'ocm' };
    const some = await viewer.clusters.versionDistribution({ filter });
    const listed = await viewer.clusters.list({ filter, limit: 500 });
    expect(sum(some)).toBe(listed.total);
    expect(sum(some)).toBeLessThan(sum(all));
    const perVersion = Object.fromEntries(some.map((r) => [r.version, r.total]));
    const fromList: Record<string, number> = {};
    for (const c of listed.items) fromList[c.version] = (fromList[c.version] ?? 0) + 1;
    expect(perVersion).toEqual(fromList);
  });

  it('lists only the clusters that will never upgrade as configured, and counts them in the facets', async () => {
    const viewer = callerAs('viewer');
    const all = await viewer.clusters.list({ limit: 500 });
    const flagged = all.items.filter((c) => c.neverUpgrades !== null).map((c) => c.name);
    expect(flagged.length).toBeGreaterThan(0);
    const never = await viewer.clusters.list({ filter: { neverUpgrades: true }, limit: 500 });
    expect(never.items.map((c) => c.name)).toEqual(flagged);
    expect(never.total).toBe(flagged.length);
    expect((await viewer.clusters.facets()).neverUpgrades).toBe(flagged.length);
    // with the other filters
    const some = await viewer.clusters.list({ filter: { neverUpgrades: true, search: 'telemeter-stage' }, limit: 500 });
    expect(some.items.map((c) => c.name)).toEqual(flagged.filter((n) => n.includes('telemeter-stage')));
    const chart = await viewer.clusters.versionDistribution({ filter: { neverUpgrades: true } });
    expect(chart.reduce((n, r) => n + r.total, 0)).toBe(flagged.length);
  });

  it('sorts versions numerically, not as text', async () => {
    const page = await callerAs('viewer').clusters.list({ sort: 'version', direction: 'asc', limit: 500 });
    const versions = page.items.map((c) => c.version.split('.').map(Number));
    for (let i = 1; i < versions.length; i++) {
      const [a, b] = [versions[i - 1]!, versions[i]!];
      const cmp = a[0]! - b[0]! || a[1]! - b[1]! || a[2]! - b[2]!;
      expect(cmp).toBeLessThanOrEqual(0);
    }
  });

  it("the EUS demo cluster with a target two minors away shows the stored graph's route in its why-not and its forecast", async () => {
    const viewer = callerAs('viewer');
    const { explanation } = await viewer.clusters.explain({ name: 'eus-legacy-01' });
    const route = explanation!.checks.find((k) => k.rule === 'route');
    expect(route).toMatchObject({
      pass: true,
      message: 'on the route 4.6.30 → 4.7.60 → 4.8.54; next hop 4.7.60 (switching the channel to eus-4.8 first)',
    });
    // its policy takes this route control-plane-only: the decision says so (the attempt runs every hop)
    expect(explanation!.decision).toMatchObject({ action: 'upgrade', version: '4.7.60', eusRoute: ['4.6.30', '4.7.60', '4.8.54'] });
    expect(explanation!.decision!.message).toContain('as one EUS-to-EUS run to 4.8.54 (control plane only, the workers roll once)');
    const forecast = await viewer.forecast.run({ horizonDays: 14, upgradeMinutes: 90, search: 'eus-legacy', limit: 10, offset: 0 });
    // the demo cluster takes its EUS-to-EUS run control-plane-only: one attempt through both hops, each an upgrade's time
    const upgrades = forecast.rows.flatMap((r) => r.upgrades);
    expect(upgrades.map((u) => `${u.from}→${u.version} via ${u.via?.join(',')}`)).toEqual(['4.6.30→4.8.54 via 4.7.60']);
    expect(Date.parse(upgrades[0]!.end) - Date.parse(upgrades[0]!.start)).toBe(2 * 90 * 60_000);
  });

  it('answers NOT_FOUND for an unknown cluster', async () => {
    await expect(callerAs('viewer').clusters.byName({ name: 'no-such-cluster' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('shows soaking upgrades as soak so far against the policy threshold', async () => {
    const { items } = await callerAs('viewer').clusters.list({ filter: { sector: 'prod-green' }, limit: 100 });
    const soaking = items.flatMap((c) => c.soakingUpgrades);
    expect(soaking.length).toBeGreaterThan(0);
    for (const s of soaking) expect(s.soakDays).toBeLessThan(s.requiredDays);
  });

  it('refuses callers that are not signed in', async () => {
    await expect(callerAs(null).clusters.list({})).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
  });
});

describe('clusters router: discovery', () => {
  it('filters by a provider label (key=value, or the key alone) and by region, lists them as facets, and shows them on a cluster', async () => {
    const [first, second] = (await callerAs('viewer').clusters.list({ limit: 2 })).items;
    db.$client
      .prepare(`update clusters set labels = ?, cloud = 'aws' where name = ?`)
      .run(JSON.stringify({ 'api.openshift.com/env': 'prod', team: 'a=b' }), first!.name);
    db.$client.prepare(`update clusters set labels = ? where name = ?`).run(JSON.stringify({ team: 'search' }), second!.name);
    const names = async (filter: { label?: string; region?: string }) =>
      (await callerAs('viewer').clusters.list({ filter, limit: 100 })).items.map((c) => c.name);
    expect(await names({ label: 'api.openshift.com/env=prod' })).toEqual([first!.name]);
    expect(await names({ label: 'team=a=b' })).toEqual([first!.name]);
    expect(await names({ label: 'team' })).toEqual([first!.name, second!.name].sort());
    expect(await names({ label: 'team=nobody' })).toEqual([]);
    expect(await names({ region: first!.region })).toContain(first!.name);
    const facets = await callerAs('viewer').clusters.facets();
    expect(facets.labels).toEqual(['api.openshift.com/env=prod', 'team=a=b', 'team=search']);
    expect(facets.regions).toContain(first!.region);
    expect(await callerAs('viewer').clusters.byName({ name: first!.name })).toMatchObject({
      labels: { 'api.openshift.com/env': 'prod', team: 'a=b' },
      cloud: 'aws',
      pendingVersionGates: [],
    });
  });
});
