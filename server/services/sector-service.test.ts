import { organizationScope } from '@/server/services/organization-scope';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '@/db/open-database';
import { seedDemo } from '@/server/services/demo-seed-service';
import { createSectorService } from './sector-service';
import { createSoakService } from './soak-service';

const NOW = new Date('2024-07-10T08:00:00Z');

describe('sector service on the demo fleet', () => {
  const db = openDatabase(':memory:');
  seedDemo(db, NOW);
  const overview = createSectorService(db, () => NOW, organizationScope(db)).overview();
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

  it('soak: defaults to the newest version someone waits for and estimates threshold dates', () => {
    const soak = createSoakService(db, () => NOW, organizationScope(db));
    const { default: def, options } = soak.versions();
    expect(def).not.toBeNull();
    const waiting = options.filter((o) => o.waiting > 0 && o.soakDays > 0).map((o) => o.version);
    expect(waiting.every((v) => v.localeCompare(def!.version, 'en', { numeric: true }) <= 0)).toBe(true);
    const series = soak.series(def!);
    expect(series.samples.length).toBeGreaterThan(0);
    expect(series.thresholds.length).toBeGreaterThan(0);
    for (const t of series.thresholds) {
      if (t.reached || series.ratePerDay === 0) continue;
      const days = (Date.parse(t.eta!) - NOW.getTime()) / 86_400_000;
      expect(days).toBeCloseTo((t.soakDays - series.soakDays) / series.ratePerDay, 3);
    }
  });
});
