import { describe, expect, it } from 'vitest';
import { PlanRun } from '@/server/domain/plan/decide-upgrades';
import { testCluster, testPlanInput, type RawCluster } from '@/server/domain/plan/test-plan-input';
import { findNeverUpgrades } from './never-upgrades';

const never = (clusters: RawCluster[], extra: Record<string, unknown> = {}) =>
  Object.fromEntries(findNeverUpgrades(new PlanRun(testPlanInput(clusters, extra))));

// a two-stage rollout of workload `tm`: stage waits 2 days of soak, prod 7
const stage = (overrides: RawCluster = {}, conditions: Record<string, unknown> = {}) =>
  testCluster('stage', { version: '4.12.53', availableUpgrades: ['4.12.57', '4.12.58'], ...overrides }, { soakDays: 2, ...conditions });
const stageWorkload = (c: RawCluster, workloads: string[]) => ({
  ...c,
  upgradePolicy: { ...(c.upgradePolicy as object), workloads },
});

describe('findNeverUpgrades', () => {
  it('a version no cluster of the workload runs or can reach never soaks: the cluster never upgrades', () => {
    const result = never([stageWorkload(stage(), ['tm'])]);
    expect(result).toEqual({
      stage: {
        reasons: [
          '4.12.58 never soaks 2 days for workload tm: no cluster running tm runs it or can reach it first',
          '4.12.57 never soaks 2 days for workload tm: no cluster running tm runs it or can reach it first',
        ],
      },
    });
  });

  it('a cluster of the workload without a soak condition can go first, so the others wait instead of never', () => {
    const canary = stageWorkload(testCluster('canary', { version: '4.12.53', availableUpgrades: ['4.12.58'] }, { soakDays: 0 }), ['tm']);
    expect(never([stageWorkload(stage(), ['tm']), canary])).toEqual({});
  });

  it('soak flows along a chain: a canary reaches the version, stage soaks on it, prod soaks on stage', () => {
    const canary = stageWorkload(testCluster('canary', { version: '4.12.53', availableUpgrades: ['4.12.58'] }), ['tm']);
    const prod = stageWorkload(testCluster('prod', { version: '4.12.53', availableUpgrades: ['4.12.58'] }, { soakDays: 7 }), [
      'tm',
      'billing',
    ]);
    // prod also runs billing, which only it runs: billing can soak only once prod itself is there
    expect(never([stageWorkload(stage(), ['tm']), canary, prod])).toEqual({
      prod: { reasons: ['4.12.58 never soaks 7 days for workload billing: no cluster running billing runs it or can reach it first'] },
    });
    // a second billing cluster without soak opens the way
    const billingCanary = stageWorkload(testCluster('billing-dev', { version: '4.12.53', availableUpgrades: ['4.12.58'] }), ['billing']);
    expect(never([stageWorkload(stage(), ['tm']), canary, prod, billingCanary])).toEqual({});
  });

  it('a cluster already running the version soaks it for its workloads, even when it is not offered anything', () => {
    const running = stageWorkload(testCluster('ahead', { version: '4.12.58', availableUpgrades: [] }), ['tm']);
    expect(never([stageWorkload(stage(), ['tm']), running])).toEqual({});
  });

  it('soak already earned counts: a version soaked enough in the stored data is reachable', () => {
    const versionData = {
      checkIn: '2021-08-30T18:00:00Z',
      versions: { '4.12.57': { workloads: { tm: { soakDays: 3, reporting: ['gone'] } } } },
    };
    expect(never([stageWorkload(stage(), ['tm'])], { versionData })).toEqual({});
  });

  it('every newer version blocked, a suspended schedule, or one that never fires again: never', () => {
    expect(never([stage({}, { soakDays: 0 })], { organization: { blockedVersions: ['^4\\.12\\.5[78]$'] } })).toEqual({
      stage: { reasons: ['4.12.58 is blocked by ^4\\.12\\.5[78]$', '4.12.57 is blocked by ^4\\.12\\.5[78]$'] },
    });
    const suspended = stage({ upgradePolicy: { workloads: ['wl'], schedule: { cron: '* * * * *', suspend: true }, conditions: {} } });
    expect(never([suspended])).toEqual({ stage: { reasons: ['its schedule is suspended'] } });
    // 30 February
    const impossible = stage({ upgradePolicy: { workloads: ['wl'], schedule: '0 0 30 2 *', conditions: {} } });
    expect(never([impossible])).toEqual({ stage: { reasons: ["its schedule '0 0 30 2 *' never runs again"] } });
  });

  it('up to date, already upgrading, or with one reachable version: not flagged', () => {
    const upToDate = testCluster('done', { availableUpgrades: [] });
    const upgrading = stageWorkload(
      stage({ name: 'busy', currentUpgrade: { version: '4.12.58', nextRun: '2021-08-30T19:00:00Z', state: 'scheduled' } }),
      ['tm'],
    );
    // 4.12.58 is blocked but 4.12.57 is fine
    const oneLeft = stage({ name: 'one-left' }, { soakDays: 0, blockedVersions: ['^4\\.12\\.58$'] });
    expect(never([upToDate, upgrading, oneLeft])).toEqual({});
  });
});

describe('findNeverUpgrades: upgrades under way', () => {
  it('a cluster already upgrading to a version will soak it for its workloads, even if its own schedule is suspended since', () => {
    const underWay = stageWorkload(
      testCluster('d', {
        version: '4.12.53',
        availableUpgrades: ['4.12.58'],
        currentUpgrade: { version: '4.12.58', nextRun: '2021-08-30T17:00:00Z', state: 'started' },
        upgradePolicy: { workloads: ['tm'], schedule: { cron: '* * * * *', suspend: true }, conditions: { soakDays: 0 } },
      }),
      ['tm'],
    );
    const waiting = stageWorkload(stage({ availableUpgrades: ['4.12.58'] }), ['tm']);
    expect(never([waiting, underWay])).toEqual({});
  });
});
