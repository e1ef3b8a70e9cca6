import { describe, expect, it } from 'vitest';
import { TEST_NOW, testCluster, testPlanInput, type RawCluster } from '@/server/domain/plan/test-plan-input';
import { listBlockers } from './blockers';
import { evaluateFleet, NO_GATES } from './evaluate-fleet';

const NOW_MS = Date.parse(TEST_NOW);

function blockersOf(clusters: RawCluster[], name: string, gates = NO_GATES, extra: Record<string, unknown> = {}) {
  const e = evaluateFleet(testPlanInput(clusters, extra), gates, { explain: [name] });
  return listBlockers(e.clusters.get(name)!);
}

describe('listBlockers', () => {
  it('nothing holds a cluster the engine upgrades', () => {
    expect(blockersOf([testCluster('a')], 'a')).toEqual({ all: [], holding: null });
  });

  it('lists the gates first, then the window, then each version rule; the health gate holds, the window clears', () => {
    // Mondays 10:00 UTC only: TEST_NOW is Monday 18:00, so the next run is a week away
    const a = testCluster(
      'a',
      {
        availableUpgrades: ['4.12.19', '4.12.20'],
        upgradePolicy: { workloads: ['wl'], schedule: '0 10 * * 1', conditions: { soakDays: 2 } },
      },
      {},
    );
    const gates = { ...NO_GATES, healthGate: true, healthIssues: new Map([['a', ['ClusterOperator dns Degraded']]]) };
    const b = blockersOf([a], 'a', gates, { organization: { blockedVersions: ['^4\\.12\\.20$'] } });
    expect(b.all.map((x) => [x.rule, x.version ?? null, x.clearsByNextRun])).toEqual([
      ['health', null, false],
      ['schedule', null, true],
      ['blocked', '4.12.20', false],
      ['soak', '4.12.20', false],
      ['soak', '4.12.19', false],
    ]);
    expect(b.holding).toBe(0);
    expect(b.all[0]!.message).toContain('ClusterOperator dns Degraded');
  });

  it('when only the window stands in the way, nothing holds: the next run upgrades', () => {
    const a = testCluster('a', { upgradePolicy: { workloads: ['wl'], schedule: '0 10 * * 1', conditions: {} } });
    const b = blockersOf([a], 'a');
    expect(b.all.map((x) => x.rule)).toEqual(['schedule']);
    expect(b.holding).toBeNull();
  });

  it('a mutex held by another cluster clears; soak still short holds', () => {
    const first = testCluster('first', {}, { mutexes: ['m'] });
    const second = testCluster('second', { version: '4.12.18' }, { mutexes: ['m'], soakDays: 1 });
    const b = blockersOf([first, second], 'second', NO_GATES, {
      versionData: { checkIn: new Date(NOW_MS).toISOString().replace('.000', ''), versions: {} },
    });
    expect(b.all.map((x) => [x.rule, x.clearsByNextRun])).toEqual([
      ['mutex', true],
      ['soak', false],
    ]);
    expect(b.holding).toBe(1);
    expect(b.all[1]).toMatchObject({ rule: 'soak', version: '4.12.19' });
  });
});
