import { describe, expect, it } from 'vitest';
import { openDatabase } from '@/db/open-database';
import { seedDemo } from '@/server/services/demo-seed-service';
import { findFirstOrganization as findOrganization } from '@/server/repositories/organization-repository';
import { loadPlanDocument } from '@/server/repositories/plan-document-repository';
import { decideUpgrades } from '@/server/domain/plan/decide-upgrades';
import type { PlanInput } from '@/server/domain/plan/types';
import { validatePlanInput } from '@/server/domain/plan/validate-plan-input';
import { applyForecastOverrides } from '@/server/domain/forecast/forecast-overrides';
import { defaultTargetVersion, forecastRollout, type ForecastResult } from '@/server/domain/forecast/forecast-rollout';

// Monday 2024-03-04 00:00 UTC
const NOW = '2024-03-04T00:00:00Z';
const DAY = 86_400_000;

type RawCluster = {
  name: string;
  version?: string;
  available?: string[];
  sector?: string;
  soakDays?: number;
  mutexes?: string[];
  schedule?: string;
  workloads?: string[];
  healthy?: boolean;
};

function planInput(
  clusters: RawCluster[],
  sectors: { name: string; dependencies?: string[]; maxParallelUpgrades?: string }[] = [],
): PlanInput {
  const raw = {
    now: NOW,
    organization: {
      name: 'org',
      blockedVersions: [],
      sectors: sectors.map((s) => ({
        name: s.name,
        dependencies: (s.dependencies ?? []).map((name) => ({ name })),
        ...(s.maxParallelUpgrades ? { maxParallelUpgrades: s.maxParallelUpgrades } : {}),
      })),
    },
    clusters: clusters.map((c) => ({
      name: c.name,
      version: c.version ?? '4.13.1',
      availableUpgrades: c.available ?? ['4.13.2'],
      healthy: c.healthy ?? true,
      upgradePolicy: {
        workloads: c.workloads ?? ['wl'],
        schedule: c.schedule ?? '0 10 * * *',
        conditions: {
          ...(c.soakDays !== undefined ? { soakDays: c.soakDays } : {}),
          ...(c.sector ? { sector: c.sector } : {}),
          ...(c.mutexes ? { mutexes: c.mutexes } : {}),
        },
      },
    })),
    versionData: { versions: {} },
  };
  const parsed = validatePlanInput(raw);
  if (!parsed.ok) throw new Error(parsed.problems.map((p) => `${p.path}: ${p.message}`).join('\n'));
  return parsed.input;
}

const startOf = (r: ForecastResult, name: string, i = 0) => r.clusters.find((c) => c.cluster === name)?.upgrades[i]?.start;
const reachOf = (r: ForecastResult, name: string) => r.clusters.find((c) => c.cluster === name)?.reachesTargetAt ?? null;
const ms = (iso: string | null | undefined) => (iso ? Date.parse(iso) : NaN);

describe('forecastRollout', () => {
  it('rolls a chain dev → stage → prod out in sector order', () => {
    const input = planInput(
      [
        { name: 'prod-1', sector: 'prod' },
        { name: 'stage-1', sector: 'stage' },
        { name: 'dev-1', sector: 'dev' },
        { name: 'dev-2', sector: 'dev' },
      ],
      [{ name: 'dev' }, { name: 'stage', dependencies: ['dev'] }, { name: 'prod', dependencies: ['stage'] }],
    );
    const r = forecastRollout(input, { targetVersion: '4.13.2', horizonDays: 10 });
    expect(reachOf(r, 'dev-1')).toBe('2024-03-04T11:30:00Z');
    expect(reachOf(r, 'dev-2')).toBe('2024-03-04T11:30:00Z');
    expect(startOf(r, 'stage-1')).toBe('2024-03-05T10:00:00Z');
    expect(startOf(r, 'prod-1')).toBe('2024-03-06T10:00:00Z');
    const sectors = Object.fromEntries(r.sectors.map((s) => [s.sector, s.allReachAt]));
    expect(sectors).toEqual({ dev: '2024-03-04T11:30:00Z', stage: '2024-03-05T11:30:00Z', prod: '2024-03-06T11:30:00Z' });
  });

  it.each([
    // soak threshold, clusters soaking (rate per day), expected prod start
    { soakDays: 0, soakers: 1, start: '2024-03-04T10:00:00Z' },
    // 1 soaker from 11:30 on day 0: 3 cluster-days at day 3 11:30 → next 10:00 run is day 4
    { soakDays: 3, soakers: 1, start: '2024-03-08T10:00:00Z' },
    // 3 soakers: 3 cluster-days after one day (day 1 11:30) → day 2 10:00
    { soakDays: 3, soakers: 3, start: '2024-03-06T10:00:00Z' },
    // 2.5 cluster-days with 1 soaker: day 2 23:30 → day 3 10:00
    { soakDays: 2.5, soakers: 1, start: '2024-03-07T10:00:00Z' },
  ])('soak $soakDays days with $soakers soaking clusters starts prod at $start', ({ soakDays, soakers, start }) => {
    const devs = Array.from({ length: soakers }, (_, i) => ({ name: `dev-${i}`, soakDays: 0 }));
    const input = planInput([...devs, { name: 'prod-1', soakDays }]);
    const r = forecastRollout(input, { targetVersion: '4.13.2', horizonDays: 10 });
    expect(startOf(r, 'dev-0')).toBe('2024-03-04T10:00:00Z');
    expect(startOf(r, 'prod-1')).toBe(start);
  });

  it('a lower version soaking is taken while the highest waits for a sector', () => {
    // prod's newest candidate 4.13.3 waits for dev (which stays on 4.13.2 for good); 4.13.2 soaks
    // on dev from now on and passes prod's 1 day on Tuesday 00:00, so prod takes it at Tuesday's
    // 10:00 run although nothing else happens in the fleet to wake it up
    const input = planInput(
      [
        { name: 'dev-1', sector: 'dev', version: '4.13.2', available: [] },
        { name: 'prod-1', sector: 'prod', available: ['4.13.2', '4.13.3'], soakDays: 1 },
      ],
      [{ name: 'dev' }, { name: 'prod', dependencies: ['dev'] }],
    );
    const r = forecastRollout(input, { targetVersion: '4.13.2', horizonDays: 5 });
    expect(r.clusters.find((c) => c.cluster === 'prod-1')?.upgrades.map((u) => [u.version, u.start])).toEqual([
      ['4.13.2', '2024-03-05T10:00:00Z'],
    ]);
  });

  it('the time a cluster spent on a version before leaving it soaks that version', () => {
    // a-1 runs 4.13.2 from Monday 00:00 and leaves it at 10:00 (4.13.3 done 11:30): a scheduler
    // ticking every 10 minutes credits 4.13.2 up to 11:20, 0.47 days, past b-1's 0.45 (at 10:48).
    // Crediting it only up to the last decision before the completion (the window at 08:00,
    // 0.33 days) would leave b-1 waiting for ever.
    const input = planInput([
      { name: 'a-1', version: '4.13.2', available: ['4.13.3'] },
      { name: 'b-1', available: ['4.13.2'], soakDays: 0.45 },
    ]);
    const r = forecastRollout(input, { targetVersion: '4.13.2', horizonDays: 3 });
    expect(startOf(r, 'a-1')).toBe('2024-03-04T10:00:00Z');
    expect(r.clusters.find((c) => c.cluster === 'b-1')?.upgrades.map((u) => u.start)).toEqual(['2024-03-05T10:00:00Z']);
  });

  it('a version gate the cluster has not agreed to holds it for the whole forecast, as the scheduler would', () => {
    const input = planInput([
      { name: 'gated-1', version: '4.13.9', available: ['4.14.2'] },
      { name: 'free-1', version: '4.13.9', available: ['4.14.2'] },
    ]);
    const versionGates = new Map([['gated-1', [{ id: 'g-414', minor: '4.14', description: 'Kubernetes 1.27 removes APIs' }]]]);
    const r = forecastRollout(input, { targetVersion: '4.14.2', horizonDays: 5, versionGates });
    expect(startOf(r, 'free-1')).toBe('2024-03-04T10:00:00Z');
    const gated = r.clusters.find((c) => c.cluster === 'gated-1')!;
    expect(gated.upgrades).toEqual([]);
    expect(gated.lastDecision).toMatchObject({ action: 'skip', reason: 'VERSION_GATE' });
  });

  it('a shared mutex makes the upgrades sequential', () => {
    const input = planInput(['a', 'b', 'c'].map((name) => ({ name, mutexes: ['m'], schedule: '0 * * * *' })));
    const r = forecastRollout(input, { targetVersion: '4.13.2', horizonDays: 2 });
    const bars = r.clusters.flatMap((c) => c.upgrades).sort((x, y) => ms(x.start) - ms(y.start));
    expect(bars).toHaveLength(3);
    for (let i = 1; i < bars.length; i++) expect(ms(bars[i]!.start)).toBeGreaterThanOrEqual(ms(bars[i - 1]!.end));
    // 90-minute upgrades on an hourly schedule: every second hour
    expect(bars.map((b) => b.start)).toEqual(['2024-03-04T01:00:00Z', '2024-03-04T03:00:00Z', '2024-03-04T05:00:00Z']);
  });

  it('maxParallelUpgrades lets that many run at once', () => {
    const input = planInput(
      ['a', 'b', 'c', 'd'].map((name) => ({ name, mutexes: ['m'], sector: 's', schedule: '0 * * * *' })),
      [{ name: 's', maxParallelUpgrades: '2' }],
    );
    const r = forecastRollout(input, { horizonDays: 1 });
    expect(r.clusters.map((c) => c.upgrades[0]?.start).sort()).toEqual([
      '2024-03-04T01:00:00Z',
      '2024-03-04T01:00:00Z',
      '2024-03-04T03:00:00Z',
      '2024-03-04T03:00:00Z',
    ]);
  });

  it.each([
    {
      name: 'an organization exclusion delays everyone to the first run after it',
      exclusions: [{ scope: 'organization' as const, startsAt: '2024-03-03T00:00:00Z', endsAt: '2024-03-06T00:00:00Z' }],
      expected: { 'dev-1': '2024-03-06T10:00:00Z', 'prod-1': '2024-03-06T10:00:00Z' },
    },
    {
      name: 'a sector exclusion only delays that sector',
      exclusions: [{ scope: 'sector' as const, subject: 'prod', startsAt: '2024-03-04T00:00:00Z', endsAt: '2024-03-05T12:00:00Z' }],
      expected: { 'dev-1': '2024-03-04T10:00:00Z', 'prod-1': '2024-03-06T10:00:00Z' },
    },
    {
      name: 'a cluster exclusion only delays that cluster',
      exclusions: [{ scope: 'cluster' as const, subject: 'dev-1', startsAt: '2024-03-04T09:00:00Z', endsAt: '2024-03-04T11:00:00Z' }],
      expected: { 'dev-1': '2024-03-05T10:00:00Z', 'prod-1': '2024-03-04T10:00:00Z' },
    },
  ])('$name', ({ exclusions, expected }) => {
    const input = planInput(
      [
        { name: 'dev-1', sector: 'dev' },
        { name: 'prod-1', sector: 'prod' },
      ],
      [{ name: 'dev' }, { name: 'prod' }],
    );
    const r = forecastRollout(input, { horizonDays: 5, exclusions });
    expect({ 'dev-1': startOf(r, 'dev-1'), 'prod-1': startOf(r, 'prod-1') }).toEqual(expected);
  });

  it('a freeze stops every upgrade', () => {
    const input = planInput([{ name: 'a' }, { name: 'b' }]);
    const r = forecastRollout(input, { targetVersion: '4.13.2', horizonDays: 30, frozen: true });
    expect(r.stats.upgrades).toBe(0);
    expect(r.sectors).toEqual([]);
    expect(r.clusters.every((c) => c.reachesTargetAt === null && c.lastDecision?.reason === 'FROZEN')).toBe(true);
  });

  it('follows a chain of versions one upgrade at a time and picks the highest eligible', () => {
    const input = planInput([{ name: 'a', available: ['4.13.2', '4.13.3'] }]);
    const r = forecastRollout(input, { targetVersion: '4.13.3', horizonDays: 3 });
    expect(r.clusters[0]!.upgrades.map((u) => u.version)).toEqual(['4.13.3']);
    expect(r.clusters[0]!.finalVersion).toBe('4.13.3');
  });

  it('reports clusters whose channel never offers the target', () => {
    const input = planInput(
      [
        { name: 'a', sector: 's' },
        { name: 'b', sector: 's', available: [] },
      ],
      [{ name: 's' }],
    );
    const r = forecastRollout(input, { targetVersion: '4.13.2', horizonDays: 3 });
    expect(r.sectors[0]).toMatchObject({ clusters: 2, reached: 1, notOffered: 1, allReachAt: null });
  });

  it('applies what-if overrides in memory', () => {
    const raw = {
      now: NOW,
      organization: { name: 'o', blockedVersions: ['^4\\.13\\.3$'], sectors: [{ name: 'p' }] },
      clusters: [
        {
          name: 'x',
          version: '4.13.1',
          availableUpgrades: ['4.13.3'],
          upgradePolicy: { workloads: ['w'], schedule: '0 10 * * *', conditions: { sector: 'p', soakDays: 5 } },
        },
      ],
    };
    const changed = applyForecastOverrides(raw, { unblockPatterns: ['^4\\.13\\.3$'], sectorSoakDays: [{ sector: 'p', soakDays: 0 }] });
    expect(raw.organization.blockedVersions).toEqual(['^4\\.13\\.3$']);
    const parsed = validatePlanInput(changed);
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    const r = forecastRollout(parsed.input, { horizonDays: 2 });
    expect(r.clusters[0]!.upgrades[0]?.version).toBe('4.13.3');
  });

  describe('on the demo fleet', async () => {
    const now = new Date('2024-07-10T08:00:00Z');
    const db = openDatabase(':memory:');
    await seedDemo(db, now);
    const org = (await findOrganization(db))!;
    const parsed = validatePlanInput(await loadPlanDocument(db, org.id, now));
    if (!parsed.ok) throw new Error(parsed.problems.map((p) => p.path + ': ' + p.message).join('\n'));
    const input = parsed.input;

    it('agrees with decideUpgrades for the first step', () => {
      const engine = decideUpgrades(input)
        .decisions.filter((d) => d.action === 'upgrade')
        .map((d) => ({ cluster: d.cluster, version: d.version, start: d.nextRun }))
        .sort((a, b) => a.cluster.localeCompare(b.cluster));
      const r = forecastRollout(input, { horizonDays: 30, maxEngineRuns: 1 });
      const forecast = r.clusters
        .flatMap((c) => c.upgrades.filter((u) => !u.inFlight).map((u) => ({ cluster: c.cluster, version: u.version, start: u.start })))
        .sort((a, b) => a.cluster.localeCompare(b.cluster));
      expect(forecast).toEqual(engine);
    });

    it('rolls the newest version out over 90 days without breaking the rules', () => {
      const target = defaultTargetVersion(input);
      expect(target).not.toBeNull();
      const r = forecastRollout(input, { targetVersion: target!, horizonDays: 90 });
      expect(r.stats.truncated).toBe(false);
      expect(r.stats.upgrades).toBeGreaterThan(10);
      // a version is never applied in a sector before its dependencies run it (per workload)
      const reach = new Map(r.sectors.map((s) => [s.sector, s.allReachAt]));
      const dev = reach.get('dev');
      const stage = reach.get('stage');
      if (dev && stage) expect(ms(stage)).toBeGreaterThan(ms(dev));
      // no cluster is upgraded twice at the same time
      for (const c of r.clusters) {
        for (let i = 1; i < c.upgrades.length; i++) expect(ms(c.upgrades[i]!.start)).toBeGreaterThanOrEqual(ms(c.upgrades[i - 1]!.end));
      }
    });
  });
});

describe('defaultTargetVersion', () => {
  it("leaves out versions above a cluster's target or cap", () => {
    const input = planInput(
      [
        { name: 'a', version: '4.15.9', available: ['4.15.12', '4.16.3'] },
        { name: 'b', version: '4.15.9', available: ['4.15.12', '4.16.3'], sector: 's' },
      ],
      [{ name: 's' }],
    );
    expect(defaultTargetVersion(input)).toBe('4.16.3');
    const capped = {
      ...input,
      organization: { ...input.organization, maxVersion: { kind: 'minor' as const, major: 4, minor: 15, raw: '4.15.*' } },
    };
    expect(defaultTargetVersion(capped)).toBe('4.15.12');
    // the forecast then tracks 4.15.12, which both reach; asked for 4.16.3, neither is offered it
    const tracked = forecastRollout(capped, { targetVersion: defaultTargetVersion(capped)!, horizonDays: 3 });
    expect(tracked.clusters.map((c) => [c.cluster, c.targetOffered, c.finalVersion])).toEqual([
      ['a', true, '4.15.12'],
      ['b', true, '4.15.12'],
    ]);
    const asked = forecastRollout(capped, { targetVersion: '4.16.3', horizonDays: 3 });
    expect(asked.clusters.map((c) => [c.cluster, c.targetOffered, c.reachesTargetAt])).toEqual([
      ['a', false, null],
      ['b', false, null],
    ]);
  });

  it('is the newest unblocked version offered to a managed cluster', () => {
    const input = planInput([
      { name: 'a', available: ['4.13.2', '4.13.5'] },
      { name: 'b', available: ['4.13.3'] },
    ]);
    expect(defaultTargetVersion(input)).toBe('4.13.5');
  });
});

void DAY;
