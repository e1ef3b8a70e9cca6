// The forecast applies the scheduler's gates (it calls the same evaluateFleet as the tick): it
// used to ignore the health gate, and kept scheduled upgrades that a freeze or an exclusion
// makes the scheduler cancel.
import { describe, expect, it } from 'vitest';
import type { PlanInput } from '../plan/types';
import { validatePlanInput } from '../plan/validate-plan-input';
import { forecastRollout } from './forecast-rollout';

// Monday 2024-03-04 00:00 UTC
const NOW = '2024-03-04T00:00:00Z';

function fleet(clusters: Record<string, unknown>[]): PlanInput {
  const parsed = validatePlanInput({
    now: NOW,
    organization: { name: 'org', blockedVersions: [], sectors: [] },
    clusters: clusters.map((c) => ({
      version: '4.13.1',
      availableUpgrades: ['4.13.2'],
      healthy: true,
      upgradePolicy: { workloads: ['wl'], schedule: '0 10 * * *', conditions: { mutexes: ['m'] } },
      ...c,
    })),
    versionData: { versions: {} },
  });
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
  return parsed.input;
}

const scheduledTomorrow = { version: '4.13.2', nextRun: '2024-03-05T10:00:00Z', state: 'scheduled' };
const of = (r: ReturnType<typeof forecastRollout>, name: string) => r.clusters.find((c) => c.cluster === name)!;

describe('forecast gates', () => {
  it('the health gate keeps an unhealthy cluster back and frees its mutex for the next one', () => {
    const input = fleet([{ name: 'sick' }, { name: 'fine' }]);
    const healthIssues = new Map([['sick', ['ClusterOperator dns Degraded']]]);
    // until 09:36: the 08:00 step decides the 10:00 upgrades
    const r = forecastRollout(input, { horizonDays: 0.4, healthGate: true, healthIssues });
    expect(of(r, 'sick').upgrades).toEqual([]);
    expect(of(r, 'sick').lastDecision).toMatchObject({ action: 'skip', reason: 'UNHEALTHY' });
    expect(of(r, 'fine').upgrades.map((u) => u.start)).toEqual(['2024-03-04T10:00:00Z']);
  });

  it('without the health gate the same issues stop nothing', () => {
    const input = fleet([{ name: 'sick' }, { name: 'fine' }]);
    const healthIssues = new Map([['sick', ['ClusterOperator dns Degraded']]]);
    const r = forecastRollout(input, { horizonDays: 1, healthGate: false, healthIssues });
    expect(of(r, 'sick').upgrades.map((u) => u.start)).toEqual(['2024-03-04T10:00:00Z']);
  });

  it('a freeze cancels an upgrade scheduled for later, as the scheduler does', () => {
    const input = fleet([{ name: 'a', currentUpgrade: scheduledTomorrow }]);
    const r = forecastRollout(input, { horizonDays: 3, frozen: true });
    expect(of(r, 'a').upgrades).toEqual([]);
    expect(of(r, 'a').finalVersion).toBe('4.13.1');
    expect(of(r, 'a').lastDecision).toMatchObject({ reason: 'FROZEN' });
  });

  it('an exclusion over a scheduled upgrade cancels it; the cluster upgrades after the exclusion', () => {
    const input = fleet([{ name: 'a', currentUpgrade: scheduledTomorrow }]);
    const exclusions = [{ scope: 'cluster' as const, subject: 'a', startsAt: '2024-03-04T00:00:00Z', endsAt: '2024-03-06T00:00:00Z' }];
    const r = forecastRollout(input, { horizonDays: 3, exclusions });
    expect(of(r, 'a').upgrades.map((u) => [u.start, u.inFlight])).toEqual([['2024-03-06T10:00:00Z', false]]);
  });
});
