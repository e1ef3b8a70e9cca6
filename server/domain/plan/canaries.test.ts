// Canaries inside a sector (beyond the reference upgrade service): table tests of the engine's
// verdicts, the canary set and the validation, and a property over random fleets — no non-canary
// cluster of a canary sector is given a version before every canary that can take it completed it
// and soaked it, and no cluster of the sector is given a version a canary failed.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { evaluateFleet, NO_GATES } from '../evaluation/evaluate-fleet';
import { listBlockers } from '../evaluation/blockers';
import { canaryCount, canaryStartHold, chooseCanaries, type CanaryPolicy } from './canaries';
import { decideUpgrades } from './decide-upgrades';
import { lintPolicies } from './lint-policies';
import { testCluster, testPlanInput, TEST_NOW, type RawCluster } from './test-plan-input';
import { validatePlanInput } from './validate-plan-input';
import { compareVersions } from '../version/version';
import { HOUR_MS, parseInstant } from './time';

const NOW_MS = parseInstant(TEST_NOW)!;
const hoursAgo = (h: number) => new Date(NOW_MS - h * HOUR_MS).toISOString();

const decide = (clusters: RawCluster[], extra: Record<string, unknown> = {}) =>
  decideUpgrades(testPlanInput(clusters, extra)).decisions.map((d) => [d.cluster, d.action, d.reason ?? d.version ?? '', d.message]);

const prod = (canary: Record<string, unknown> = { count: 1, soakHours: 24 }) => ({ sectors: [{ name: 'prod', canary }] });
const inProd = (name: string, overrides: RawCluster = {}) => testCluster(name, overrides, { sector: 'prod' });
const policy = (size: CanaryPolicy['size']): CanaryPolicy => ({ size, soakHours: 0 });

describe('the canary set', () => {
  it.each([
    [{ kind: 'count', value: 2, raw: '2' }, 10, 2],
    [{ kind: 'count', value: 20, raw: '20' }, 10, 10],
    // a percent rounds up, and is at least one canary
    [{ kind: 'percent', value: 10, raw: '10%' }, 10, 1],
    [{ kind: 'percent', value: 10, raw: '10%' }, 11, 2],
    [{ kind: 'percent', value: 1, raw: '1%' }, 3, 1],
    [{ kind: 'percent', value: 100, raw: '100%' }, 7, 7],
    [{ kind: 'count', value: 3, raw: '3' }, 0, 0],
  ] as const)('%j of %i clusters is %i canaries', (size, members, count) => {
    expect(canaryCount(policy(size), members)).toBe(count);
  });

  it('is the first clusters by name, whatever the input order', () => {
    const p = policy({ kind: 'count', value: 2, raw: '2' });
    const named = (...names: string[]) => names.map((name) => ({ name }));
    expect(chooseCanaries(p, named('prod-c', 'prod-a', 'prod-b'))).toEqual(['prod-a', 'prod-b']);
    expect(chooseCanaries(p, named('prod-b', 'prod-c', 'prod-a'))).toEqual(['prod-a', 'prod-b']);
  });

  it('with a selector, only matching clusters are canaries; a percent is of the whole sector', () => {
    const input = testPlanInput(
      ['p1', 'p2', 'p3', 'p4', 'p5'].map((name, i) => inProd(name, i % 2 === 1 ? { labels: { tier: 'canary' } } : {})),
      { organization: prod({ percent: 50, soakHours: 0, selector: 'tier=canary' }) },
    );
    // 50% of 5 is 3, but only p2 and p4 match
    expect(chooseCanaries(input.organization.sectors[0]!.canary!, input.clusters)).toEqual(['p2', 'p4']);
    expect(decideUpgrades(input).decisions.map((d) => [d.cluster, d.reason ?? d.action])).toEqual([
      ['p1', 'AWAITING_CANARY'],
      ['p2', 'upgrade'],
      ['p3', 'AWAITING_CANARY'],
      ['p4', 'upgrade'],
      ['p5', 'AWAITING_CANARY'],
    ]);
    const bad = validatePlanInput({
      now: TEST_NOW,
      organization: { name: 'org', sectors: [{ name: 'prod', canary: { count: 1, selector: 'tier in (a' } }] },
      clusters: [],
    });
    expect(bad.ok ? [] : bad.problems.map((p) => p.path)).toEqual(['organization.sectors[0].canary.selector']);
  });
});

describe('validation of canary and upgradeResults', () => {
  it('reports each problem at its path', () => {
    const r = validatePlanInput({
      now: TEST_NOW,
      organization: {
        name: 'org',
        sectors: [
          { name: 'a', canary: { count: 1, percent: 10 } },
          { name: 'b', canary: { soakHours: 2 } },
          { name: 'c', canary: { count: 0, soakHour: 2 } },
          { name: 'd', canary: { percent: 120, soakHours: -1 } },
          { name: 'e', canary: '2' },
        ],
      },
      clusters: [testCluster('x')],
      upgradeResults: [
        { cluster: 'x', version: '4.12', outcome: 'done', at: 'yesterday' },
        { cluster: 'x', version: '4.12.19', outcome: 'failed', at: TEST_NOW, attempt: 'seven' },
      ],
    });
    expect(r.ok ? [] : r.problems).toEqual([
      { path: 'organization.sectors[0].canary', message: 'give either count or percent, not both' },
      {
        path: 'organization.sectors[1].canary',
        message: 'missing count (how many canaries) or percent (which share of the sector)',
      },
      { path: 'organization.sectors[2].canary.soakHour', message: "unknown key 'soakHour': did you mean 'soakHours'?" },
      { path: 'organization.sectors[2].canary.count', message: 'must be a whole number >= 1, got number 0' },
      { path: 'organization.sectors[3].canary.percent', message: 'must be a whole number from 1 to 100, got number 120' },
      { path: 'organization.sectors[3].canary.soakHours', message: 'must be a number of hours from 0 to 744, got number -1' },
      { path: 'organization.sectors[4].canary', message: "must be an object {count: N} or {percent: P} with soakHours, got '2'" },
      { path: 'upgradeResults[0].version', message: "not a semantic version: '4.12'" },
      { path: 'upgradeResults[0].outcome', message: "must be one of completed, failed, got 'done'" },
      { path: 'upgradeResults[0].at', message: "not an ISO-8601 date-time: 'yesterday'" },
      { path: 'upgradeResults[1].attempt', message: "must be an attempt number, got 'seven'" },
    ]);
  });

  it('normalizes a canary rule (soakHours 0 by default)', () => {
    const input = testPlanInput([testCluster('x')], { organization: { sectors: [{ name: 'a', canary: { percent: 10 } }] } });
    expect(input.organization.sectors[0]!.canary).toEqual({ size: { kind: 'percent', value: 10, raw: '10%' }, soakHours: 0 });
  });
});

describe('the engine with canaries', () => {
  it('lets the canary go first and holds the rest with AWAITING_CANARY naming the canary and the version', () => {
    const out = decide([inProd('p2'), inProd('p1'), inProd('p3')], { organization: prod() });
    expect(out).toEqual([
      ['p2', 'skip', 'AWAITING_CANARY', 'canary p1 of sector prod must complete 4.12.19 and soak 24h first (p1 runs 4.12.17)'],
      ['p1', 'upgrade', '4.12.19', 'upgrade to 4.12.19 at 2021-08-30T18:07:00Z'],
      ['p3', 'skip', 'AWAITING_CANARY', 'canary p1 of sector prod must complete 4.12.19 and soak 24h first (p1 runs 4.12.17)'],
    ]);
    // the skip names the version the sector waits for
    expect(decideUpgrades(testPlanInput([inProd('p1'), inProd('p2')], { organization: prod() })).decisions[1]!.version).toBe('4.12.19');
  });

  it('holds the rest while the canary soaks, with the earliest start, and releases them once it soaked', () => {
    const done = { version: '4.12.19', availableUpgrades: [] };
    const clusters = [inProd('p1', done), inProd('p2')];
    const completed = (h: number) => ({
      organization: prod(),
      upgradeResults: [{ cluster: 'p1', version: '4.12.19', outcome: 'completed', at: hoursAgo(h) }],
    });
    expect(decide(clusters, completed(10))[0]).toEqual([
      'p2',
      'skip',
      'AWAITING_CANARY',
      'canary p1 of sector prod must complete 4.12.19 and soak 24h first (p1 soaked 10h of 24h), earliest 2021-08-31T08:00:00Z',
    ]);
    expect(decide(clusters, completed(24))[0]!.slice(0, 3)).toEqual(['p2', 'upgrade', '4.12.19']);
    // a canary that runs the version with no completion on record ran it before anyone watched
    expect(decide(clusters, { organization: prod() })[0]!.slice(0, 3)).toEqual(['p2', 'upgrade', '4.12.19']);
  });

  it('counts the soak from the first completion of the version or a newer one the canary runs', () => {
    const clusters = [inProd('p1', { version: '4.12.20', availableUpgrades: [] }), inProd('p2')];
    const out = decide(clusters, {
      organization: prod(),
      upgradeResults: [
        { cluster: 'p1', version: '4.12.19', outcome: 'completed', at: hoursAgo(30) },
        { cluster: 'p1', version: '4.12.20', outcome: 'completed', at: hoursAgo(2) },
        // another cluster's completion says nothing about the canary
        { cluster: 'p2', version: '4.12.19', outcome: 'completed', at: hoursAgo(1) },
      ],
    });
    expect(out[0]!.slice(0, 3)).toEqual(['p2', 'upgrade', '4.12.19']);
  });

  it('waits for every canary that can take the version, not for one that cannot', () => {
    const organization = prod({ count: 2, soakHours: 1 });
    // p1 is not offered 4.12.19 (another channel): only p2 is waited for
    const clusters = [inProd('p1', { availableUpgrades: [] }), inProd('p2', { version: '4.12.19', availableUpgrades: [] }), inProd('p3')];
    expect(decide(clusters, { organization }).map((d) => d.slice(0, 3))).toEqual([
      ['p1', 'skip', 'NO_AVAILABLE_UPGRADES'],
      ['p3', 'upgrade', '4.12.19'],
      ['p2', 'skip', 'NO_AVAILABLE_UPGRADES'],
    ]);
    const both = [inProd('p1'), inProd('p2', { version: '4.12.19', availableUpgrades: [] }), inProd('p3')];
    expect(decide(both, { organization })[1]).toEqual([
      'p3',
      'skip',
      'AWAITING_CANARY',
      'canaries p1, p2 of sector prod must complete 4.12.19 and soak 1h first (p1 runs 4.12.17)',
    ]);
  });

  it('a failed canary halts the version for the whole sector, canaries included, and a lower version may still go', () => {
    const organization = prod({ count: 2, soakHours: 0 });
    const offers = { availableUpgrades: ['4.12.18', '4.12.19'] };
    const clusters = [inProd('p1', offers), inProd('p2', { version: '4.12.18', availableUpgrades: ['4.12.19'] }), inProd('p3', offers)];
    const failed = { cluster: 'p1', version: '4.12.19', outcome: 'failed', at: hoursAgo(1), attempt: 7 };
    const message =
      'canary p1 of sector prod failed the upgrade to 4.12.19 (attempt 7): the sector is halted for 4.12.19 until the failure is acknowledged';
    const out = decide(clusters, { organization, upgradeResults: [failed] });
    expect(out.map((d) => d.slice(0, 3))).toEqual([
      // the canaries themselves: p1 takes 4.12.18, p2 has nothing else
      ['p1', 'upgrade', '4.12.18'],
      // the highest candidate's verdict: the failure, not the wait for 4.12.18
      ['p3', 'skip', 'CANARY_FAILED'],
      ['p2', 'skip', 'CANARY_FAILED'],
    ]);
    expect(out[2]![3]).toBe(message);
    expect(out[0]![3]).toBe(`upgrade to 4.12.18 at 2021-08-30T18:07:00Z; higher 4.12.19 not eligible (${message})`);
    // acknowledged, the failure is no longer an input: the canaries go again
    expect(decide(clusters, { organization }).map((d) => d.slice(0, 3))).toEqual([
      ['p1', 'upgrade', '4.12.19'],
      ['p3', 'skip', 'AWAITING_CANARY'],
      ['p2', 'upgrade', '4.12.19'],
    ]);
  });

  it('a failure of a cluster that is not a canary is not a canary failure', () => {
    const clusters = [inProd('p1'), inProd('p2')];
    const out = decide(clusters, {
      organization: prod({ count: 1, soakHours: 0 }),
      upgradeResults: [{ cluster: 'p2', version: '4.12.19', outcome: 'failed', at: hoursAgo(1) }],
    });
    expect(out.map((d) => d.slice(0, 3))).toEqual([
      ['p1', 'upgrade', '4.12.19'],
      ['p2', 'skip', 'AWAITING_CANARY'],
    ]);
  });

  it('cancels a scheduled upgrade of the sector when a canary fails its version, not a started one', () => {
    const organization = prod({ count: 1, soakHours: 0 });
    const upgradeResults = [{ cluster: 'p1', version: '4.12.19', outcome: 'failed', at: hoursAgo(1) }];
    const scheduled = { currentUpgrade: { version: '4.12.19', nextRun: '2021-08-30T19:00:00Z', state: 'scheduled' } };
    const started = { currentUpgrade: { version: '4.12.19', nextRun: '2021-08-30T17:00:00Z', state: 'started' } };
    expect(decide([inProd('p1'), inProd('p2', scheduled)], { organization, upgradeResults }).map((d) => d.slice(0, 3))).toEqual([
      ['p1', 'skip', 'CANARY_FAILED'],
      ['p2', 'cancel', 'CANARY_FAILED'],
    ]);
    expect(decide([inProd('p1'), inProd('p2', started)], { organization, upgradeResults }).map((d) => d[2])).toEqual([
      'CANARY_FAILED',
      'UPGRADE_PENDING',
    ]);
  });

  it('sector order and soak come before the canaries in the verdict', () => {
    const unsoaked = decide([inProd('p1'), testCluster('p2', {}, { sector: 'prod', soakDays: 2 })], { organization: prod() });
    expect(unsoaked.map((d) => d[2])).toEqual(['4.12.19', 'NOT_SOAKED']);
  });

  it('without a canary rule, upgrade results change nothing', () => {
    const clusters = [inProd('p1'), inProd('p2')];
    const organization = { sectors: [{ name: 'prod' }] };
    const plain = decide(clusters, { organization });
    const upgradeResults = [{ cluster: 'p1', version: '4.12.19', outcome: 'failed', at: hoursAgo(1) }];
    expect(decide(clusters, { organization, upgradeResults })).toEqual(plain);
  });

  it('explains the canary rule for each candidate and lists it as the blocker', () => {
    const input = testPlanInput([inProd('p1'), inProd('p2')], { organization: prod() });
    const evaluation = evaluateFleet(input, NO_GATES, { explain: true });
    const canaryCheck = (name: string) =>
      evaluation.clusters
        .get(name)!
        .candidates[0]!.checks.filter((c) => c.rule === 'canary')
        .map((c) => [c.pass, c.message]);
    expect(canaryCheck('p1')).toEqual([[true, 'a canary of sector prod: it goes first']]);
    expect(canaryCheck('p2')).toEqual([[false, 'canary p1 of sector prod must complete 4.12.19 and soak 24h first (p1 runs 4.12.17)']]);
    const blockers = listBlockers(evaluation.clusters.get('p2')!);
    expect(blockers.all[blockers.holding!]).toEqual({
      rule: 'canary',
      version: '4.12.19',
      message: 'canary p1 of sector prod must complete 4.12.19 and soak 24h first (p1 runs 4.12.17)',
      clearsByNextRun: false,
    });
  });
});

describe("the lifecycle's start gate", () => {
  it('re-checks the canaries for a planned upgrade: a failure since stops its start', () => {
    const upgradeResults = [{ cluster: 'p1', version: '4.12.19', outcome: 'failed', at: hoursAgo(1), attempt: 9 }];
    const hold = canaryStartHold(testPlanInput([inProd('p1'), inProd('p2')], { organization: prod(), upgradeResults }))!;
    expect(hold('p2', '4.12.19')).toEqual({
      reason: 'CANARY_FAILED',
      message:
        'canary p1 of sector prod failed the upgrade to 4.12.19 (attempt 9): the sector is halted for 4.12.19 until the failure is acknowledged',
    });
    // the canary is not offered 4.12.18: it holds nothing for it
    expect(hold('p2', '4.12.18')).toBeNull();
    const waiting = canaryStartHold(testPlanInput([inProd('p1'), inProd('p2')], { organization: prod() }))!;
    expect(waiting('p2', '4.12.19')?.reason).toBe('AWAITING_CANARY');
    expect(hold('elsewhere', '4.12.19')).toBeNull();
    expect(canaryStartHold(testPlanInput([inProd('p1')], { organization: { sectors: [{ name: 'prod' }] } }))).toBeUndefined();
  });
});

describe('lint of canaries', () => {
  it('warns of canaries that test nothing: the whole sector, or a selector matching none', () => {
    const codes = (canary: Record<string, unknown>) =>
      lintPolicies(testPlanInput([inProd('p1'), inProd('p2')], { organization: prod(canary) }))
        .filter((w) => w.code.startsWith('CANAR'))
        .map((w) => [w.code, w.path, w.message]);
    expect(codes({ count: 1 })).toEqual([]);
    expect(codes({ count: 2 })).toEqual([
      [
        'CANARIES_ARE_THE_WHOLE_SECTOR',
        'organization.sectors[0].canary',
        'every cluster of sector prod is a canary (2): nobody waits for them',
      ],
    ]);
    expect(codes({ count: 1, selector: 'tier=canary' })).toEqual([
      [
        'CANARY_SELECTOR_MATCHES_NONE',
        'organization.sectors[0].canary.selector',
        'the canary selector of sector prod matches none of its 2 clusters: no canary goes first, nobody waits',
      ],
    ]);
  });
});

describe('property: the rest of a canary sector never runs ahead of its canaries', () => {
  const VERSIONS = ['4.12.17', '4.12.18', '4.12.19', '4.12.20'];
  const clusterArb = fc.record({
    version: fc.constantFrom(...VERSIONS),
    offers: fc.subarray(VERSIONS),
    canarySector: fc.boolean(),
  });
  const resultArb = fc.record({
    cluster: fc.nat(7),
    version: fc.constantFrom(...VERSIONS),
    outcome: fc.constantFrom('completed', 'failed'),
    hoursAgo: fc.integer({ min: 0, max: 48 }),
  });

  it('holds for random fleets, canary sizes and results', () => {
    fc.assert(
      fc.property(
        fc.array(clusterArb, { minLength: 1, maxLength: 8 }),
        fc.array(resultArb, { maxLength: 10 }),
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 0, max: 30 }),
        (raw, rawResults, count, soakHours) => {
          const clusters = raw.map((c, i) =>
            testCluster(
              `c${i}`,
              { version: c.version, availableUpgrades: c.offers.filter((v) => compareVersions(v, c.version) > 0) },
              c.canarySector ? { sector: 'prod' } : {},
            ),
          );
          const upgradeResults = rawResults
            .filter((r) => r.cluster < raw.length)
            .map((r) => ({ cluster: `c${r.cluster}`, version: r.version, outcome: r.outcome, at: hoursAgo(r.hoursAgo) }));
          const input = testPlanInput(clusters, { organization: prod({ count, soakHours }), upgradeResults });
          const members = input.clusters.filter((c) => c.upgradePolicy?.conditions.sector === 'prod');
          const canaries = new Set(chooseCanaries(input.organization.sectors[0]!.canary!, members));
          const sectorUpgrades = decideUpgrades(input).decisions.filter(
            (d) => d.action === 'upgrade' && members.some((c) => c.name === d.cluster),
          );
          for (const d of sectorUpgrades) {
            const version = d.version!;
            for (const k of members.filter((c) => canaries.has(c.name))) {
              const failed = upgradeResults.some((r) => r.cluster === k.name && r.version === version && r.outcome === 'failed');
              expect(failed).toBe(false);
              const since = upgradeResults
                .filter(
                  (r) =>
                    r.cluster === k.name &&
                    r.outcome === 'completed' &&
                    compareVersions(r.version, version) >= 0 &&
                    compareVersions(r.version, k.version) <= 0,
                )
                .map((r) => parseInstant(r.at)!);
              const reached = compareVersions(k.version, version) >= 0;
              // a canary, or a canary that cannot take the version, or one that has run it for soakHours
              const soakedFor = since.length === 0 ? Infinity : NOW_MS - Math.min(...since);
              const canaryLetItThrough =
                canaries.has(d.cluster) ||
                (!reached && !k.availableUpgrades.includes(version)) ||
                (reached && soakedFor >= soakHours * HOUR_MS);
              expect({ cluster: d.cluster, version, canary: k.name, canaryLetItThrough }).toEqual({
                cluster: d.cluster,
                version,
                canary: k.name,
                canaryLetItThrough: true,
              });
            }
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
