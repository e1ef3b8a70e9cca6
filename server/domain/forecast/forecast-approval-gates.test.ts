// The forecast with approval gates and notBefore: it simulates up to a gate, reports it pending
// with the earliest start if approved now, and an approval (the engine's input) lets it through.
import { describe, expect, it } from 'vitest';
import { testCluster, testPlanInput } from '../plan/test-plan-input';
import { forecastRollout } from './forecast-rollout';

const organization = (prod: Record<string, unknown>) => ({
  sectors: [{ name: 'stage' }, { name: 'prod', dependencies: [{ name: 'stage' }], ...prod }],
});
// stage and prod each upgrade at 20:00 UTC every day; TEST_NOW is 2021-08-30T18:00:00Z
const clusterIn = (name: string, sector: string) =>
  testCluster(name, { upgradePolicy: { workloads: ['wl'], schedule: '0 20 * * *', conditions: { soakDays: 0, sector } } });
const fleet = [clusterIn('s1', 'stage'), clusterIn('p1', 'prod')];

describe('forecast with approval gates', () => {
  it('stops at the gate and reports it pending, with the first slot the held sector would take if approved now', () => {
    const input = testPlanInput(fleet, { organization: organization({ approval: { before: true } }) });
    const result = forecastRollout(input, { horizonDays: 5, targetVersion: '4.12.19' });
    const byName = new Map(result.clusters.map((c) => [c.cluster, c]));
    expect(byName.get('s1')!.upgrades.map((u) => u.start)).toEqual(['2021-08-30T20:00:00Z']);
    expect(byName.get('p1')!.upgrades).toEqual([]);
    expect(byName.get('p1')!.lastDecision?.reason).toBe('AWAITING_APPROVAL');
    // stage completes at 21:30 (90 minutes); prod's next 20:00 after that is the next day
    expect(result.approvalGates).toEqual([
      { kind: 'before', sector: 'prod', version: '4.12.19', earliest: '2021-08-31T20:00:00Z', heldSectors: ['prod'], clusters: 1 },
    ]);
  });

  it('with the approval given, prod upgrades at that slot and no gate is pending', () => {
    const input = testPlanInput(fleet, {
      organization: organization({ approval: { before: true } }),
      approvals: [{ sector: 'prod', version: '4.12.19' }],
    });
    const result = forecastRollout(input, { horizonDays: 5, targetVersion: '4.12.19' });
    expect(result.clusters.find((c) => c.cluster === 'p1')!.upgrades.map((u) => u.start)).toEqual(['2021-08-31T20:00:00Z']);
    expect(result.approvalGates).toEqual([]);
  });

  it("a notBefore moves the sector's first start to the first slot at or after it", () => {
    const input = testPlanInput(fleet, { organization: organization({ notBefore: '2021-09-02T19:00 Europe/Zurich' }) });
    const result = forecastRollout(input, { horizonDays: 5, targetVersion: '4.12.19' });
    // 19:00 in Zurich is 17:00 UTC: the first 20:00 UTC slot at or after it is that day's
    expect(result.clusters.find((c) => c.cluster === 'p1')!.upgrades.map((u) => u.start)).toEqual(['2021-09-02T20:00:00Z']);
  });
});
