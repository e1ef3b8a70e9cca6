// Targets, caps and sector concurrency (beyond the reference upgrade service): table tests of the
// engine's verdicts, and properties over random fleets and runs — no upgrade is ever decided above
// a bound that applies, and no sector ever has more clusters upgrading than its limit.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decideUpgrades, percentOfRoundedHalfEven } from './decide-upgrades';
import { lintPolicies } from './lint-policies';
import { testCluster, testPlanInput, type RawCluster } from './test-plan-input';
import { parseVersionBound, reachesBound, withinBound, type VersionBound } from './version-bounds';
import { validatePlanInput } from './validate-plan-input';

const decide = (clusters: RawCluster[], extra: Record<string, unknown> = {}) =>
  decideUpgrades(testPlanInput(clusters, extra)).decisions.map((d) => [d.cluster, d.action, d.reason ?? d.version ?? '', d.message]);

const bound = (raw: string): VersionBound => {
  const b = parseVersionBound(raw);
  if (typeof b === 'string') throw new Error(b);
  return b;
};

describe('version bounds', () => {
  it.each([
    ['4.16.3', '4.16.3', true, true],
    ['4.16.2', '4.16.3', true, false],
    ['4.16.4', '4.16.3', false, true],
    ['4.16.0-rc.1', '4.16.*', true, true],
    ['4.16.99', '4.16.*', true, true],
    ['4.17.0-ec.1', '4.16.*', false, true],
    ['4.15.30', '4.16.*', true, false],
    ['5.0.0', '4.16.*', false, true],
  ])('%s within %s: %s, reaches it: %s', (version, raw, within, reaches) => {
    expect(withinBound(version, bound(raw))).toBe(within);
    expect(reachesBound(version, bound(raw))).toBe(reaches);
  });

  it.each(['4.16', '4.*', 'v4.16.3', '4.16.x', '4.16.*.*', '', ' 4.16.3'])('refuses %j', (raw) => {
    expect(typeof parseVersionBound(raw)).toBe('string');
  });

  it('reports a bad bound at its path and accepts good ones at every level', () => {
    const r = validatePlanInput({
      now: '2021-08-30T18:00:00Z',
      organization: { name: 'org', targetVersion: '4.16', sectors: [{ name: 's', maxVersion: 4.16, maxConcurrentUpgrades: '0' }] },
      clusters: [testCluster('a', {}, { targetVersion: '4.16.x' })],
    });
    expect(r.ok).toBe(false);
    expect(r.ok ? [] : r.problems.map((p) => p.path)).toEqual([
      'organization.targetVersion',
      'organization.sectors[0].maxConcurrentUpgrades',
      'organization.sectors[0].maxVersion',
      'clusters[0].upgradePolicy.conditions.targetVersion',
    ]);
    const good = validatePlanInput({
      now: '2021-08-30T18:00:00Z',
      organization: { name: 'org', maxVersion: '4.16.*', sectors: [{ name: 's', targetVersion: '4.15.9', maxConcurrentUpgrades: '50%' }] },
      clusters: [testCluster('a', {}, { sector: 's', targetVersion: '4.15.*' })],
    });
    expect(good.ok).toBe(true);
  });
});

describe('the engine with targets and caps', () => {
  const offered = { version: '4.15.9', availableUpgrades: ['4.15.12', '4.16.3', '4.16.5', '4.17.1'] };

  it('takes the highest candidate within the bound, never past it', () => {
    expect(decide([testCluster('a', offered, { maxVersion: '4.16.*' })]).map((d) => d.slice(0, 3))).toEqual([['a', 'upgrade', '4.16.5']]);
    expect(decide([testCluster('a', offered, { targetVersion: '4.16.3' })]).map((d) => d.slice(0, 3))).toEqual([
      ['a', 'upgrade', '4.16.3'],
    ]);
    expect(decide([testCluster('a', offered)], { organization: { targetVersion: '4.15.*' } }).map((d) => d.slice(0, 3))).toEqual([
      ['a', 'upgrade', '4.15.12'],
    ]);
  });

  it('the lowest bound that applies wins: organization, sector and policy', () => {
    const out = decide([testCluster('a', offered, { sector: 'prod', maxVersion: '4.17.*' })], {
      organization: { maxVersion: '4.16.*', sectors: [{ name: 'prod', targetVersion: '4.16.3' }] },
    });
    expect(out.map((d) => d.slice(0, 3))).toEqual([['a', 'upgrade', '4.16.3']]);
  });

  it('a cluster at its target waits with AT_TARGET; one below a cap with only higher releases with ABOVE_CAP', () => {
    const at = decide([testCluster('a', { version: '4.16.3', availableUpgrades: ['4.16.5', '4.17.1'] }, { targetVersion: '4.16.3' })]);
    expect(at).toEqual([['a', 'skip', 'AT_TARGET', 'runs 4.16.3, at its targetVersion 4.16.3 (cluster); 4.17.1, 4.16.5 not taken']]);
    const capped = decide([testCluster('b', { version: '4.15.9', availableUpgrades: ['4.17.1'] })], {
      organization: { maxVersion: '4.16.*' },
    });
    expect(capped).toEqual([['b', 'skip', 'ABOVE_CAP', '4.17.1 is above maxVersion 4.16.* (organization)']]);
  });

  it('a scheduled upgrade above a new cap is cancelled; a started one is left alone', () => {
    const scheduled = {
      version: '4.15.9',
      availableUpgrades: ['4.17.1'],
      currentUpgrade: { version: '4.17.1', nextRun: '2021-08-30T19:00:00Z', state: 'scheduled' },
    };
    const started = { ...scheduled, currentUpgrade: { ...scheduled.currentUpgrade, state: 'started', nextRun: '2021-08-30T17:00:00Z' } };
    const out = decide([testCluster('s', scheduled, { maxVersion: '4.16.*' }), testCluster('r', started, { maxVersion: '4.16.*' })]);
    expect(out.map((d) => d.slice(0, 3))).toEqual([
      ['s', 'cancel', 'ABOVE_CAP'],
      ['r', 'skip', 'UPGRADE_PENDING'],
    ]);
  });

  it('without any bound the decisions are those of the reference', () => {
    const plain = decide([testCluster('a', offered)]);
    expect(plain.map((d) => d.slice(0, 3))).toEqual([['a', 'upgrade', '4.17.1']]);
  });
});

describe('maxConcurrentUpgrades', () => {
  it('limits the clusters of a sector upgrading at once without any mutex', () => {
    const clusters = ['a', 'b', 'c', 'd'].map((n) => testCluster(n, {}, { sector: 'prod' }));
    const out = decide(clusters, { organization: { sectors: [{ name: 'prod', maxConcurrentUpgrades: '2' }] } });
    expect(out.map((d) => d.slice(0, 3))).toEqual([
      ['a', 'upgrade', '4.12.19'],
      ['b', 'upgrade', '4.12.19'],
      ['c', 'skip', 'MAX_CONCURRENT_UPGRADES'],
      ['d', 'skip', 'MAX_CONCURRENT_UPGRADES'],
    ]);
    expect(out[2]![3]).toBe('sector prod reached maxConcurrentUpgrades 2: 2 of its 4 clusters are upgrading (limit 2)');
  });

  it('counts upgrades already under way, and takes a percentage of the sector (at least one)', () => {
    const busy = { currentUpgrade: { version: '4.12.19', nextRun: '2021-08-30T17:00:00Z', state: 'started' } };
    const clusters = [testCluster('a', busy, { sector: 'prod' }), ...['b', 'c'].map((n) => testCluster(n, {}, { sector: 'prod' }))];
    const out = decide(clusters, { organization: { sectors: [{ name: 'prod', maxConcurrentUpgrades: '10%' }] } });
    expect(out.map((d) => d.slice(0, 3))).toEqual([
      ['a', 'skip', 'UPGRADE_PENDING'],
      ['b', 'skip', 'MAX_CONCURRENT_UPGRADES'],
      ['c', 'skip', 'MAX_CONCURRENT_UPGRADES'],
    ]);
  });
});

const VERSIONS = ['4.15.9', '4.15.12', '4.16.0-rc.2', '4.16.3', '4.16.5', '4.17.0', '4.17.1'];
const BOUNDS = ['4.15.*', '4.16.*', '4.16.3', '4.15.12', '4.17.*'];

const arbFleet = fc
  .record({
    orgBound: fc.option(fc.constantFrom(...BOUNDS), { nil: undefined }),
    sectorBound: fc.option(fc.constantFrom(...BOUNDS), { nil: undefined }),
    concurrency: fc.option(fc.constantFrom('1', '2', '34%', '50%'), { nil: undefined }),
    clusters: fc.array(
      fc.record({
        version: fc.constantFrom(...VERSIONS),
        offered: fc.subarray(VERSIONS, { minLength: 1 }),
        inSector: fc.boolean(),
        bound: fc.option(fc.constantFrom(...BOUNDS), { nil: undefined }),
        kind: fc.constantFrom('targetVersion', 'maxVersion'),
        busy: fc.boolean(),
      }),
      { minLength: 1, maxLength: 12 },
    ),
  })
  .map((f) => ({
    organization: {
      ...(f.orgBound ? { maxVersion: f.orgBound } : {}),
      sectors: [
        {
          name: 'prod',
          ...(f.sectorBound ? { targetVersion: f.sectorBound } : {}),
          ...(f.concurrency ? { maxConcurrentUpgrades: f.concurrency } : {}),
        },
      ],
    },
    clusters: f.clusters.map((c, i) =>
      testCluster(
        `c${i}`,
        {
          version: c.version,
          availableUpgrades: c.offered,
          ...(c.busy ? { currentUpgrade: { version: c.offered[0]!, nextRun: '2021-08-30T17:00:00Z', state: 'started' } } : {}),
        },
        { ...(c.inSector ? { sector: 'prod' } : {}), ...(c.bound ? { [c.kind]: c.bound } : {}) },
      ),
    ),
    raw: f,
  }));

describe('properties', () => {
  it('no decided upgrade is above a bound that applies, and no sector runs more upgrades than its limit', () => {
    let upgrades = 0;
    let held = 0;
    fc.assert(
      fc.property(arbFleet, ({ organization, clusters, raw }) => {
        const input = testPlanInput(clusters, { organization });
        const { decisions } = decideUpgrades(input);
        const byName = new Map(input.clusters.map((c) => [c.name, c]));
        let upgradingInSector = 0;
        for (const c of input.clusters) if (c.currentUpgrade && c.upgradePolicy?.conditions.sector) upgradingInSector++;
        for (const d of decisions) {
          const c = byName.get(d.cluster)!;
          const conditions = c.upgradePolicy!.conditions;
          const bounds = [
            input.organization.maxVersion,
            conditions.sector ? input.organization.sectors[0]!.targetVersion : undefined,
            conditions.targetVersion,
            conditions.maxVersion,
          ].filter((b): b is VersionBound => b !== undefined);
          if (d.action === 'upgrade') {
            upgrades++;
            for (const b of bounds) expect(withinBound(d.version!, b), `${d.cluster} → ${d.version} above ${b.raw}`).toBe(true);
            if (conditions.sector) upgradingInSector++;
          }
          if (d.reason === 'AT_TARGET' || d.reason === 'ABOVE_CAP' || d.reason === 'MAX_CONCURRENT_UPGRADES') held++;
        }
        // the sector's limit (none: as many as it has clusters); upgrades already under way may exceed it, new ones may not add to that
        const sectorSize = input.clusters.filter((c) => c.upgradePolicy?.conditions.sector).length;
        const limitSpec = input.organization.sectors[0]!.maxConcurrentUpgrades;
        const limit = !limitSpec
          ? sectorSize
          : Math.max(1, limitSpec.kind === 'count' ? limitSpec.value : percentOfRoundedHalfEven(limitSpec.value, sectorSize));
        const alreadyBusy = input.clusters.filter((c) => c.currentUpgrade && c.upgradePolicy?.conditions.sector).length;
        expect(upgradingInSector, `${raw.concurrency ?? 'no limit'} over ${sectorSize}`).toBeLessThanOrEqual(Math.max(limit, alreadyBusy));
      }),
      { numRuns: 300 },
    );
    expect(upgrades).toBeGreaterThan(100);
    expect(held).toBeGreaterThan(50);
  });
});

describe('lint: maxParallelUpgrades without a shared mutex', () => {
  it('warns that it limits nothing, and not when two clusters of the sector share a mutex', () => {
    const sectors = [{ name: 'prod', maxParallelUpgrades: '1' }];
    const lonely = testPlanInput(
      ['a', 'b', 'c'].map((n) => testCluster(n, {}, { sector: 'prod' })),
      { organization: { sectors } },
    );
    expect(lintPolicies(lonely).filter((w) => w.code === 'MAX_PARALLEL_LIMITS_NOTHING')).toEqual([
      {
        code: 'MAX_PARALLEL_LIMITS_NOTHING',
        path: 'organization.sectors[0].maxParallelUpgrades',
        message:
          "maxParallelUpgrades 1 limits nothing: it counts clusters sharing a mutex, and none of the 3 clusters of sector prod share one (maxConcurrentUpgrades limits the sector's upgrades at once)",
      },
    ]);
    const shared = testPlanInput(
      ['a', 'b', 'c'].map((n) => testCluster(n, {}, { sector: 'prod', mutexes: n === 'c' ? [] : ['db'] })),
      { organization: { sectors } },
    );
    expect(lintPolicies(shared).filter((w) => w.code === 'MAX_PARALLEL_LIMITS_NOTHING')).toEqual([]);
  });
});
