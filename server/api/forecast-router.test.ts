import { describe, expect, it } from 'vitest';
import { openDatabase } from '@/db/open-database';
import { seedDemo } from '@/server/services/demo-seed-service';
import { createCaller } from './root';
import { createContextInner } from './trpc';

const NOW = new Date('2024-07-10T08:00:00Z');

describe('forecast / sectors / soak procedures', async () => {
  const db = openDatabase(':memory:');
  await seedDemo(db, NOW);
  const caller = createCaller(createContextInner({ db, fleetNow: () => NOW, actor: { name: 'viewer', role: 'viewer', via: 'token' } }));

  it('forecast.run pages rows and answers per sector', async () => {
    const r = await caller.forecast.run({ horizonDays: 30, upgradeMinutes: 90, limit: 10, offset: 0 });
    expect(r.rows).toHaveLength(10);
    expect(r.total).toBe(r.managedClusters);
    expect(r.sectors.map((s) => s.sector)).toContain('prod-green');
    expect(r.targetVersion).toMatch(/^4\.13\.\d+$/);
    const again = await caller.forecast.run({ horizonDays: 30, upgradeMinutes: 90, limit: 10, offset: 10 });
    expect(again.cached).toBe(true);
    expect(again.rows[0]?.cluster).not.toBe(r.rows[0]?.cluster);
  });

  it('what-if overrides change the forecast without saving', async () => {
    const base = await caller.forecast.run({ horizonDays: 20, upgradeMinutes: 90, sector: 'prod-blue', limit: 200, offset: 0 });
    const blocked = await caller.forecast.run({
      horizonDays: 20,
      upgradeMinutes: 90,
      sector: 'prod-blue',
      limit: 200,
      offset: 0,
      overrides: { blockVersions: ['.*'] },
    });
    expect(blocked.stats.upgrades).toBe(0);
    expect(base.stats.upgrades).toBeGreaterThan(0);
    const stored = db.$client.prepare("select count(*) n from blocked_versions where pattern = '.*'").get() as { n: number };
    expect(stored.n).toBe(0);
  });

  it('reports an invalid what-if at its path', async () => {
    await expect(
      caller.forecast.run({ horizonDays: 5, upgradeMinutes: 90, limit: 5, offset: 0, overrides: { blockVersions: ['(?=x)'] } }),
    ).rejects.toThrow(/not valid/);
  });

  it('sectors.overview and soak procedures answer for viewers', async () => {
    const o = await caller.sectors.overview();
    expect(o.sectors.length).toBe(6);
    const v = await caller.soak.versions();
    const s = await caller.soak.series(v.default!);
    expect(s.version).toBe(v.default!.version);
  });
});
