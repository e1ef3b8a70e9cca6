import { describe, expect, it } from 'vitest';
import { testCluster, testPlanInput } from '@/server/domain/plan/test-plan-input';
import { diffForecasts } from './forecast-diff';
import { forecastRollout as runForecast } from './forecast-rollout';

// three clusters offered 4.12.19 (the target), each a day's soak behind the previous one
const fleet = (extra: Record<string, unknown> = {}, soakOfC = 1) =>
  testPlanInput(
    [
      testCluster('a', {}, { soakDays: 0 }),
      testCluster('b', { version: '4.12.18' }, { soakDays: 1 }),
      testCluster('c', { version: '4.12.18' }, { soakDays: soakOfC }),
    ],
    extra,
  );
const options = { targetVersion: '4.12.19', horizonDays: 10, upgradeMinutes: 60 };

describe('diffForecasts', () => {
  it('the same fleet twice: nothing changes', () => {
    const f = runForecast(fleet(), options);
    const d = diffForecasts(f, f);
    expect(d.compared).toBe(3);
    expect(d.changes).toEqual([]);
  });

  it('blocking the target: every cluster that reached it no longer does, listed first', () => {
    const before = runForecast(fleet(), options);
    const after = runForecast(fleet({ organization: { blockedVersions: ['^4\\.12\\.19$'] } }), options);
    expect(before.clusters.every((c) => c.reachesTargetAt !== null)).toBe(true);
    const d = diffForecasts(before, after);
    expect(d.counts).toMatchObject({ 'no-longer': 3, later: 0, sooner: 0 });
    expect(d.changes.map((c) => [c.cluster, c.kind])).toEqual([
      ['a', 'no-longer'],
      ['b', 'no-longer'],
      ['c', 'no-longer'],
    ]);
    expect(d.changes[0]!.before.upgrades.map((u) => u.version)).toEqual(['4.12.19']);
    expect(d.changes[0]!.after.upgrades).toEqual([]);
  });

  it('more soak days for c: c reaches the target later, the others stay', () => {
    const before = runForecast(fleet(), options);
    const after = runForecast(fleet({}, 4), options);
    const d = diffForecasts(before, after);
    expect(d.changes.map((c) => [c.cluster, c.kind])).toEqual([['c', 'later']]);
    expect(d.changes[0]!.after.reachesTargetAt! > d.changes[0]!.before.reachesTargetAt!).toBe(true);
    // and back: sooner
    expect(diffForecasts(after, before).changes.map((c) => [c.cluster, c.kind])).toEqual([['c', 'sooner']]);
  });

  it('refuses forecasts of different instants or targets', () => {
    const f = runForecast(fleet(), options);
    expect(() => diffForecasts(f, runForecast(fleet(), { ...options, targetVersion: '4.12.18' }))).toThrow(/same target/);
  });
});
