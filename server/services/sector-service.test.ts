import { organizationScope } from '@/server/services/organization-scope';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '@/db/open-database';
import { seedDemo } from '@/server/services/demo-seed-service';
import { createSectorService } from './sector-service';
import { createSoakService } from './soak-service';

const NOW = new Date('2024-07-10T08:00:00Z');

describe('sector service on the demo fleet', async () => {
  const db = openDatabase(':memory:');
  await seedDemo(db, NOW);
  const overview = await createSectorService(db, () => NOW, organizationScope(db)).overview();
  const byName = new Map(overview.sectors.map((s) => [s.name, s]));
  const raw = db.$client;

  it('lists every sector with its dependencies and layout depth', () => {
    expect(overview.sectors.map((s) => [s.name, s.depth])).toEqual([
      ['dev', 0],
      ['stage', 1],
      ['prod-blue', 2],
      ['prod-green', 3],
      ['hive-integration', 0],
      ['hive-production', 1],
    ]);
    expect(byName.get('prod-blue')?.dependencies).toEqual(['stage']);
    expect(byName.get('prod-blue')?.maxParallelUpgrades).toBe('50%');
  });

  it('counts clusters per sector like a plain query does', () => {
    for (const s of overview.sectors) {
      const row = raw
        .prepare('select count(*) n, sum(healthy) h from clusters where sector = ? and upgrade_policy is not null')
        .get(s.name) as { n: number; h: number };
      expect([s.name, s.clusters, s.healthy]).toEqual([s.name, row.n, row.h]);
    }
  });

  it('gives min and max version per workload from the stored clusters', () => {
    const ocm = byName.get('prod-green')?.workloads.find((w) => w.workload === 'ocm');
    const versions = (
      raw
        .prepare(
          "select c.version v from clusters c join cluster_workloads w on w.cluster_id = c.id where c.sector = 'prod-green' and w.workload = 'ocm'",
        )
        .all() as { v: string }[]
    ).map((r) => r.v);
    const sorted = versions.sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
    expect(ocm).toMatchObject({ clusters: versions.length, minVersion: sorted[0], maxVersion: sorted[sorted.length - 1] });
  });

  it('says which dependency holds a sector back, in words', () => {
    for (const s of overview.sectors) {
      for (const w of s.workloads) {
        if (!w.waitsFor) continue;
        expect(s.dependencies.length).toBeGreaterThan(0);
        expect(s.waits).toContain(`${s.name} waits: ${w.waitsFor.sector} still runs ${w.waitsFor.version} for workload ${w.workload}`);
      }
    }
    expect(overview.sectors.some((s) => s.waits.length > 0)).toBe(true);
  });

  it('reports soaking versions below the sector threshold', () => {
    const soaking = overview.sectors.flatMap((s) => s.workloads.filter((w) => w.soaking).map((w) => w.soaking!));
    for (const x of soaking) expect(x.soakDays).toBeLessThan(x.requiredDays);
  });

  it('soak: defaults to the newest version someone waits for and estimates threshold dates', async () => {
    const soak = createSoakService(db, () => NOW, organizationScope(db));
    const { default: def, options } = await soak.versions();
    expect(def).not.toBeNull();
    const waiting = options.filter((o) => o.waiting > 0 && o.soakDays > 0).map((o) => o.version);
    expect(waiting.every((v) => v.localeCompare(def!.version, 'en', { numeric: true }) <= 0)).toBe(true);
    const series = await soak.series(def!);
    expect(series.samples.length).toBeGreaterThan(0);
    expect(series.thresholds.length).toBeGreaterThan(0);
    for (const t of series.thresholds) {
      if (t.reached || series.ratePerDay === 0) continue;
      const days = (Date.parse(t.eta!) - NOW.getTime()) / 86_400_000;
      expect(days).toBeCloseTo((t.soakDays - series.soakDays) / series.ratePerDay, 3);
    }
  });
});

describe('sector service with a selector-only sector', () => {
  // Three of hive-production's clusters lose the sector their policy named and gain the label a
  // new sector `pool` selects; a fourth keeps its named sector although it carries the label too
  // (a named sector always wins, sector-selectors.ts). The page must count what the engine counts.
  async function setup() {
    const db = openDatabase(':memory:');
    await seedDemo(db, NOW);
    const raw = db.$client;
    const hive = raw
      .prepare("select name, upgrade_policy p from clusters where sector = 'hive-production' and upgrade_policy is not null order by name")
      .all() as { name: string; p: string }[];
    if (hive.length < 4) throw new Error('the demo fleet has fewer than four hive-production clusters');
    const moved = hive.slice(0, 3).map((c) => c.name);
    for (const c of hive.slice(0, 3)) {
      const policy = JSON.parse(c.p) as { conditions: Record<string, unknown> };
      delete policy.conditions.sector;
      raw
        .prepare('update clusters set sector = null, upgrade_policy = ?, labels = json(\'{"pool":"shared"}\') where name = ?')
        .run(JSON.stringify(policy), c.name);
    }
    raw.prepare('update clusters set labels = json(\'{"pool":"shared"}\') where name = ?').run(hive[3]!.name);
    const position = (raw.prepare('select max(position) + 1 p from sectors').get() as { p: number }).p;
    raw
      .prepare("insert into sectors (organization_id, name, position, dependencies, selector) values (1, 'pool', ?, '[]', 'pool=shared')")
      .run(position);
    return { db, raw, moved, kept: hive[3]!.name, hiveTotal: hive.length };
  }

  it('counts the clusters its selector takes, with their versions, health and verdicts', async () => {
    const { db, raw, moved, hiveTotal } = await setup();
    const overview = await createSectorService(db, () => NOW, organizationScope(db)).overview();
    const pool = overview.sectors.find((s) => s.name === 'pool')!;
    const inList = `(${moved.map(() => '?').join(',')})`;
    const healthy = (raw.prepare(`select sum(healthy) h from clusters where name in ${inList}`).get(...moved) as { h: number }).h;
    expect([pool.clusters, pool.healthy]).toEqual([3, healthy]);
    expect(pool.decisions.reduce((n, d) => n + d.clusters, 0)).toBe(3);
    expect(pool.soakThresholds.reduce((n, t) => n + t.clusters, 0)).toBe(3);
    const workloads = raw
      .prepare(
        `select w.workload, count(*) n from clusters c join cluster_workloads w on w.cluster_id = c.id where c.name in ${inList} group by w.workload order by w.workload`,
      )
      .all(...moved) as { workload: string; n: number }[];
    expect(pool.workloads.map((w) => [w.workload, w.clusters])).toEqual(workloads.map((w) => [w.workload, w.n]));
    // the cluster whose policy names hive-production stays there, label or not
    expect(overview.sectors.find((s) => s.name === 'hive-production')!.clusters).toBe(hiveTotal - 3);
  });

  it('falls back to the sectors the policies name while the stored fleet does not validate', async () => {
    const { db, raw, hiveTotal } = await setup();
    // a dependency on a sector that does not exist: plan validation refuses the stored fleet
    raw.prepare(`update sectors set dependencies = '["no-such-sector"]' where name = 'pool'`).run();
    const overview = await createSectorService(db, () => NOW, organizationScope(db)).overview();
    expect(overview.sectors.find((s) => s.name === 'pool')!.clusters).toBe(0);
    expect(overview.sectors.find((s) => s.name === 'hive-production')!.clusters).toBe(hiveTotal - 3);
  });
});
