import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decideUpgrades, engineOrderAfterMoves, engineOrderPositions, percentOfRoundedHalfEven, PlanRun } from './decide-upgrades';
import { explainCluster } from './explain-cluster';
import { lintPolicies } from './lint-policies';
import type { PlanInput } from './types';
import { TEST_NOW, testCluster, testPlanInput, type RawCluster } from './test-plan-input';

const decide = (clusters: RawCluster[], extra: Record<string, unknown> = {}) =>
  decideUpgrades(testPlanInput(clusters, extra)).decisions.map((d) => [d.cluster, d.action, d.reason ?? d.version ?? '']);

describe('percentOfRoundedHalfEven', () => {
  it.each([
    [50, 5, 2],
    [50, 3, 2],
    [50, 1, 0],
    [25, 10, 2],
    [30, 5, 2],
    [50, 7, 4],
    [10, 15, 2],
    [100, 4, 4],
    [2, 5, 0],
  ])('%i%% of %i rounds half to even to %i', (p, n, expected) => {
    expect(percentOfRoundedHalfEven(p, n)).toBe(expected);
  });
});

describe('engineOrderAfterMoves', () => {
  // versions with build metadata compare equal to the plain release: they share a rank
  const VERSIONS = ['4.12.1', '4.12.10', '4.12.10+b1', '4.13.0-rc.1', '4.13.0', '4.13.2', '4.14.0'];
  const arbCluster = fc.record({
    version: fc.constantFrom(...VERSIONS),
    soakDays: fc.option(fc.constantFrom(0, 1, 3), { nil: undefined }),
    managed: fc.oneof({ arbitrary: fc.constant(true), weight: 5 }, { arbitrary: fc.constant(false), weight: 1 }),
    movesTo: fc.option(fc.constantFrom(...VERSIONS), { nil: null, freq: 2 }),
  });
  const clusterOf = (c: { version: string; soakDays?: number; managed: boolean }, i: number) =>
    ({
      name: `c${i}`,
      version: c.version,
      availableUpgrades: [],
      ...(c.managed
        ? {
            upgradePolicy: {
              workloads: ['w'],
              schedule: { cron: '* * * * *', location: 'UTC' },
              conditions: { soakDays: c.soakDays, mutexes: [] },
            },
          }
        : {}),
    }) as unknown as PlanInput['clusters'][number];

  it('equals ordering the whole fleet again after some clusters changed version', () => {
    let movedManaged = 0;
    fc.assert(
      fc.property(fc.array(arbCluster, { maxLength: 40 }), (raw) => {
        const before = raw.map(clusterOf);
        const after = raw.map((c, i) => clusterOf({ ...c, version: c.movesTo ?? c.version }, i));
        const moved = new Set(raw.flatMap((c, i) => (c.movesTo !== null ? [i] : [])));
        movedManaged += raw.filter((c) => c.movesTo !== null && c.managed).length;
        expect([...engineOrderAfterMoves(after, engineOrderPositions(before), moved)]).toEqual([...engineOrderPositions(after)]);
      }),
      { numRuns: 300 },
    );
    expect(movedManaged).toBeGreaterThan(300);
  });
});

describe('decideUpgrades', () => {
  it('orders clusters by version, then soakDays, then input order', () => {
    const out = decide([
      testCluster('b', { version: '4.12.17' }, { soakDays: 3 }),
      testCluster('a', { version: '4.12.17' }, { soakDays: 1 }),
      testCluster('old', { version: '4.12.9' }, { soakDays: 9 }),
      testCluster('c', { version: '4.12.17' }, { soakDays: 1 }),
    ]);
    expect(out.map((d) => d[0])).toEqual(['old', 'a', 'c', 'b']);
  });

  it('accepts a next run at exactly now + 2h and refuses one at now + 6 min', () => {
    expect(decide([testCluster('edge', { upgradePolicy: { workloads: ['wl'], schedule: '0 20 * * *' } })])).toEqual([
      ['edge', 'upgrade', '4.12.19'],
    ]);
    expect(decide([testCluster('lead', { upgradePolicy: { workloads: ['wl'], schedule: '6 18 * * *' } })])).toEqual([
      ['lead', 'skip', 'OUTSIDE_WINDOW'],
    ]);
  });

  it('walks available upgrades highest first, skipping blocked ones (unanchored search)', () => {
    const out = decideUpgrades(
      testPlanInput([
        testCluster(
          'c',
          { version: '4.12.0', availableUpgrades: ['4.12.9', '4.12.19', '4.12.10', '4.11.0'] },
          { blockedVersions: ['4.12.1'] },
        ),
      ]),
    );
    expect(out.decisions[0]).toMatchObject({ action: 'upgrade', version: '4.12.9', nextRun: '2021-08-30T18:07:00Z' });
  });

  it('ignores available upgrades that are not newer than the current version', () => {
    expect(decide([testCluster('c', { version: '4.12.19', availableUpgrades: ['4.12.19', '4.12.1'] })])).toEqual([
      ['c', 'skip', 'NO_AVAILABLE_UPGRADES'],
    ]);
  });

  it('reports VERSION_BLOCKED when every newer version is blocked', () => {
    expect(decide([testCluster('c', {}, { blockedVersions: ['^4\\.12'] })])).toEqual([['c', 'skip', 'VERSION_BLOCKED']]);
  });

  it('gives the mutex to the first cluster in order and locks out the rest', () => {
    expect(
      decide([
        testCluster('a', {}, { mutexes: ['m'] }),
        testCluster('b', {}, { mutexes: ['m'] }),
        testCluster('c', {}, { mutexes: ['n'] }),
      ]),
    ).toEqual([
      ['a', 'upgrade', '4.12.19'],
      ['b', 'skip', 'MUTEX_LOCKED'],
      ['c', 'upgrade', '4.12.19'],
    ]);
  });

  it('cancels only a scheduled, future upgrade to a blocked version, and keeps its mutexes held', () => {
    const pending = (state: string, nextRun: string) => ({ currentUpgrade: { version: '4.12.19', nextRun, state } });
    const org = { organization: { blockedVersions: ['^4\\.12\\.19$'] } };
    expect(
      decide(
        [
          testCluster('s', pending('scheduled', '2021-08-30T19:00:00Z'), { mutexes: ['m'] }),
          testCluster('t', { version: '4.12.18', availableUpgrades: ['4.12.20'] }, { mutexes: ['m'] }),
        ],
        org,
      ),
    ).toEqual([
      ['s', 'cancel', 'VERSION_BLOCKED'],
      ['t', 'skip', 'MUTEX_LOCKED'],
    ]);
    expect(decide([testCluster('started', pending('started', '2021-08-30T19:00:00Z'))], org)).toEqual([
      ['started', 'skip', 'UPGRADE_PENDING'],
    ]);
    expect(decide([testCluster('past', pending('scheduled', '2021-08-30T17:00:00Z'))], org)).toEqual([['past', 'skip', 'UPGRADE_PENDING']]);
  });

  it('limits parallel upgrades per sector and mutex with maxParallelUpgrades (50% of 5 = 2)', () => {
    const cs = ['c0', 'c1', 'c2', 'c3', 'c4'].map((n) => testCluster(n, {}, { mutexes: ['m'], sector: 's' }));
    expect(decide(cs, { organization: { sectors: [{ name: 's', maxParallelUpgrades: '50%' }] } }).map((d) => d[2])).toEqual([
      '4.12.19',
      '4.12.19',
      'MAX_PARALLEL_UPGRADES',
      'MAX_PARALLEL_UPGRADES',
      'MAX_PARALLEL_UPGRADES',
    ]);
  });

  it('still honours a mutex held outside a sector that has maxParallelUpgrades', () => {
    const org = { organization: { sectors: [{ name: 's1' }, { name: 's2', maxParallelUpgrades: 3 }] } };
    expect(
      decide(
        [testCluster('a', { version: '4.12.1' }, { mutexes: ['m'], sector: 's1' }), testCluster('b', {}, { mutexes: ['m'], sector: 's2' })],
        org,
      ),
    ).toEqual([
      ['a', 'upgrade', '4.12.19'],
      ['b', 'skip', 'MUTEX_LOCKED'],
    ]);
  });

  it('looks through a dependency sector that hosts none of the workload, but not past one that does', () => {
    const org = {
      organization: {
        sectors: [{ name: 'dev' }, { name: 'stage', dependencies: [{ name: 'dev' }] }, { name: 'prod', dependencies: [{ name: 'stage' }] }],
      },
    };
    const dev = testCluster('dev1', { version: '4.12.1', availableUpgrades: [] }, { sector: 'dev' });
    const prod = testCluster('prod1', { version: '4.12.1', availableUpgrades: ['4.12.5'] }, { sector: 'prod' });
    const stageOther = testCluster('stage1', {
      version: '4.12.9',
      availableUpgrades: [],
      upgradePolicy: { workloads: ['other'], schedule: '* * * * *', conditions: { sector: 'stage' } },
    });
    const stageSame = testCluster('stage1', { version: '4.12.5', availableUpgrades: [] }, { sector: 'stage' });
    expect(decide([dev, stageOther, prod], org).find((d) => d[0] === 'prod1')).toEqual(['prod1', 'skip', 'SECTOR_BEHIND']);
    expect(decide([dev, stageSame, prod], org).find((d) => d[0] === 'prod1')).toEqual(['prod1', 'upgrade', '4.12.5']);
  });

  it('looks through a chain of 100,000 empty sectors (validation accepts it) without overflowing the stack', () => {
    const n = 100_000;
    const sectors = Array.from({ length: n }, (_, i) => ({ name: `s${i}`, dependencies: i ? [{ name: `s${i - 1}` }] : [] }));
    const first = testCluster('first', { version: '4.12.1', availableUpgrades: [] }, { sector: 's0' });
    const last = testCluster('last', { version: '4.12.1', availableUpgrades: ['4.12.5'] }, { sector: `s${n - 1}` });
    expect(decide([first, last], { organization: { sectors } }).find((d) => d[0] === 'last')).toEqual(['last', 'skip', 'SECTOR_BEHIND']);
  });

  it('prefers a lower version that meets soak over a higher one that does not', () => {
    const versionData = {
      checkIn: TEST_NOW,
      versions: {
        '4.12.19': { workloads: { wl: { soakDays: 1, reporting: [] } } },
        '4.12.18': { workloads: { wl: { soakDays: 5, reporting: [] } } },
      },
    };
    const out = decideUpgrades(
      testPlanInput([testCluster('c', { availableUpgrades: ['4.12.18', '4.12.19'] }, { soakDays: 3 })], { versionData }),
    );
    expect(out.decisions[0]).toMatchObject({ action: 'upgrade', version: '4.12.18' });
    expect(out.decisions[0]?.message).toContain('soaked 1.00 of 3 days for workload wl');
  });

  it('accumulates soak as cluster-days; a first sighting adds 0 and unhealthy clusters add nothing', () => {
    const versionData = {
      checkIn: '2021-08-29T06:00:00Z',
      versions: { '4.12.19': { workloads: { wl: { soakDays: 1, reporting: ['a', 'b', 'sick'] } } } },
    };
    const c = (name: string, healthy = true) => testCluster(name, { version: '4.12.19', availableUpgrades: [], healthy });
    const out = decideUpgrades(testPlanInput([c('a'), c('b'), c('new'), c('sick', false), c('gone-sick', false)], { versionData }));
    expect(out.versionData.versions['4.12.19']?.workloads.wl).toEqual({ soakDays: 4, reporting: ['a', 'b', 'sick', 'new'] });
    expect(out.versionData.checkIn).toBe(TEST_NOW);
  });

  it('does not modify its input', () => {
    const input = testPlanInput([testCluster('a', { version: '4.12.19', availableUpgrades: [] })], {
      versionData: { checkIn: '2021-08-29T18:00:00Z', versions: {} },
    });
    const before = JSON.stringify(input);
    decideUpgrades(input);
    expect(JSON.stringify(input)).toBe(before);
  });
});

describe('explainCluster', () => {
  it('lists every candidate version with blocked, sector and per-workload soak checks', () => {
    const versionData = { checkIn: TEST_NOW, versions: { '4.12.19': { workloads: { wl: { soakDays: 2, reporting: [] } } } } };
    const input = testPlanInput(
      [testCluster('c', { availableUpgrades: ['4.12.18', '4.12.19', '4.12.20'] }, { soakDays: 1, blockedVersions: ['^4\\.12\\.20$'] })],
      { versionData },
    );
    const e = explainCluster(input, 'c');
    expect(e.decision).toMatchObject({ action: 'upgrade', version: '4.12.19' });
    expect(e.candidates.map((c) => [c.version, c.chosen])).toEqual([
      ['4.12.20', false],
      ['4.12.19', true],
      ['4.12.18', false],
    ]);
    expect(e.candidates[0]?.checks.find((k) => k.rule === 'blocked')?.pass).toBe(false);
    expect(e.candidates[2]?.checks.find((k) => k.rule === 'soak')).toMatchObject({ pass: false, details: { soaked: 0, required: 1 } });
    expect(e.checks.find((k) => k.rule === 'schedule')?.pass).toBe(true);
  });

  it('sees mutexes taken earlier in the same run', () => {
    const input = testPlanInput([testCluster('a', {}, { mutexes: ['m'] }), testCluster('b', {}, { mutexes: ['m'] })]);
    const e = explainCluster(input, 'b');
    expect(e.checks.find((k) => k.rule === 'mutex')).toMatchObject({ pass: false, message: 'mutex m held by a' });
    expect(e.decision?.reason).toBe('MUTEX_LOCKED');
  });

  it('reports unmanaged clusters as such', () => {
    const input = testPlanInput([{ name: 'u', version: '4.12.1', availableUpgrades: ['4.12.2'] }]);
    expect(explainCluster(input, 'u')).toMatchObject({ managed: false, candidates: [{ version: '4.12.2' }] });
  });
});

describe('lintPolicies', () => {
  const codes = (input: PlanInput) => lintPolicies(input).map((w) => `${w.code} ${w.path}`);

  it('warns when no cluster of a workload has soakDays 0', () => {
    expect(codes(testPlanInput([testCluster('a', {}, { soakDays: 2 }), testCluster('b', {}, { soakDays: 3 })]))).toContain(
      'WORKLOAD_WITHOUT_SOAK_STARTER clusters[0].upgradePolicy.conditions.soakDays',
    );
  });

  it('warns about a mutex used by one cluster only', () => {
    expect(codes(testPlanInput([testCluster('a', {}, { mutexes: ['solo'] })]))).toContain(
      'MUTEX_SINGLE_CLUSTER clusters[0].upgradePolicy.conditions.mutexes[0]',
    );
  });

  it('warns about blocked-version regexes matching nothing or everything', () => {
    const input = testPlanInput([
      testCluster('a', { availableUpgrades: ['4.12.19', '4.12.20'] }, { blockedVersions: ['^5\\.', '^4\\.12'] }),
    ]);
    expect(codes(input)).toEqual(
      expect.arrayContaining([
        'BLOCKED_VERSION_MATCHES_NOTHING clusters[0].upgradePolicy.conditions.blockedVersions[0]',
        'BLOCKED_VERSION_BLOCKS_ALL clusters[0].upgradePolicy.conditions.blockedVersions[1]',
      ]),
    );
  });

  it('warns about a schedule that never fires (0 0 31 2 *)', () => {
    expect(
      codes(
        testPlanInput([testCluster('a', { upgradePolicy: { workloads: ['wl'], schedule: '0 0 31 2 *', conditions: { soakDays: 0 } } })]),
      ),
    ).toContain('SCHEDULE_NEVER_FIRES clusters[0].upgradePolicy.schedule');
  });

  it('warns about a sector whose dependencies host none of its workloads', () => {
    const org = { organization: { sectors: [{ name: 'dev' }, { name: 'prod', dependencies: [{ name: 'dev' }] }] } };
    const input = testPlanInput(
      [
        testCluster('d', { upgradePolicy: { workloads: ['other'], schedule: '* * * * *', conditions: { sector: 'dev' } } }),
        testCluster('p', {}, { sector: 'prod' }),
      ],
      org,
    );
    expect(codes(input)).toContain('SECTOR_DEPENDENCIES_HOST_NO_WORKLOAD organization.sectors[1].dependencies');
  });
});

describe('versionPasses', () => {
  // Random fleets over three chained sectors with approval gates, canaries, soak and holds: the
  // engine asks versionPasses of each candidate instead of building the full check.
  const VERSIONS = ['4.12.16', '4.12.17', '4.12.18', '4.12.19', '4.13.0'];
  const arbFleet = fc.record({
    gates: fc.array(fc.record({ before: fc.boolean(), after: fc.boolean() }), { minLength: 3, maxLength: 3 }),
    canaries: fc.array(fc.option(fc.record({ count: fc.integer({ min: 1, max: 2 }), soakHours: fc.constantFrom(0, 24) })), {
      minLength: 3,
      maxLength: 3,
    }),
    approvals: fc.array(
      fc.record({
        sector: fc.constantFrom('stage', 'prod', 'edge'),
        version: fc.constantFrom(...VERSIONS),
        kind: fc.constantFrom('before', 'after'),
      }),
      { maxLength: 6 },
    ),
    soak: fc.array(
      fc.record({ version: fc.constantFrom(...VERSIONS), workload: fc.constantFrom('a', 'b'), soakDays: fc.constantFrom(0, 1, 2.5, 7) }),
      { maxLength: 8 },
    ),
    results: fc.array(
      fc.record({
        cluster: fc.integer({ min: 0, max: 9 }),
        version: fc.constantFrom(...VERSIONS),
        outcome: fc.constantFrom('completed', 'failed'),
        hoursAgo: fc.constantFrom(1, 48),
      }),
      { maxLength: 6 },
    ),
    held: fc.subarray(VERSIONS),
    clusters: fc.array(
      fc.record({
        sector: fc.constantFrom('stage', 'prod', 'edge', undefined),
        version: fc.constantFrom('4.12.16', '4.12.17', '4.12.18'),
        offered: fc.subarray(VERSIONS, { minLength: 1 }),
        workloads: fc.constantFrom(['a'], ['b'], ['a', 'b'], ['b', 'a']),
        soakDays: fc.option(fc.constantFrom(0, 1, 3), { nil: undefined }),
      }),
      { minLength: 1, maxLength: 10 },
    ),
  });

  it("answers as checkVersion's conditions do (sector, soak, canaries, approval, holds) for every candidate", () => {
    let passed = 0;
    let failed = 0;
    const failures = new Set<string>();
    fc.assert(
      fc.property(arbFleet, (f) => {
        const names = ['stage', 'prod', 'edge'];
        const organization = {
          sectors: names.map((name, i) => ({
            name,
            ...(i > 0 ? { dependencies: [{ name: names[i - 1] }] } : {}),
            approval: f.gates[i],
            ...(f.canaries[i] ? { canary: f.canaries[i] } : {}),
          })),
        };
        const clusters = f.clusters.map((c, i) =>
          testCluster(`c${i}`, {
            version: c.version,
            availableUpgrades: c.offered,
            upgradePolicy: {
              workloads: c.workloads,
              schedule: '* * * * *',
              conditions: { ...(c.soakDays === undefined ? {} : { soakDays: c.soakDays }), ...(c.sector ? { sector: c.sector } : {}) },
            },
          }),
        );
        const versions: Record<string, { workloads: Record<string, { soakDays: number; reporting: string[] }> }> = {};
        for (const s of f.soak) (versions[s.version] ??= { workloads: {} }).workloads[s.workload] = { soakDays: s.soakDays, reporting: [] };
        const upgradeResults = f.results.map((r) => ({
          cluster: `c${r.cluster}`,
          version: r.version,
          outcome: r.outcome,
          at: new Date(Date.parse(TEST_NOW) - r.hoursAgo * 3_600_000).toISOString(),
        }));
        const input = testPlanInput(clusters, { organization, approvals: f.approvals, upgradeResults, versionData: { versions } });
        const held = new Set(f.held);
        const run = new PlanRun(input, undefined, {
          holds: (_c, version) => (held.has(version) ? { reason: 'VERSION_GATE', message: `gate on ${version}` } : null),
        });
        for (const c of run.order) {
          for (const v of run.candidates(c).newer) {
            const check = run.checkVersion(c, v);
            const passes = check.sector.pass && check.soak.pass && !check.canary && !check.awaits && !check.held;
            expect(run.versionPasses(c, v), `${c.name} → ${v}`).toBe(passes);
            if (passes) passed++;
            else failed++;
            if (!check.sector.pass) failures.add('sector');
            if (!check.soak.pass) failures.add('soak');
            if (check.canary) failures.add('canary');
            if (check.awaits) failures.add('approval');
            if (check.held) failures.add('held');
          }
        }
      }),
      { numRuns: 500 },
    );
    // both answers come up often
    expect(passed).toBeGreaterThan(200);
    expect(failed).toBeGreaterThan(200);
    expect([...failures].sort()).toEqual(['approval', 'canary', 'held', 'sector', 'soak']);
  });
});
