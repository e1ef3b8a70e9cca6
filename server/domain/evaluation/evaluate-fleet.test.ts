import { describe, expect, it } from 'vitest';
import { TEST_NOW, testCluster, testPlanInput } from '@/server/domain/plan/test-plan-input';
import type { GateState } from '@/server/domain/scheduling/apply-gates';
import { evaluateFleet, fleetVersionView, NO_GATES } from './evaluate-fleet';

const NOW_MS = Date.parse(TEST_NOW);
const HOUR = 3_600_000;

const gates = (g: Partial<GateState>): GateState => ({ ...NO_GATES, ...g });
const exclusion = (scope: 'organization' | 'sector' | 'cluster', subject: string | null) => ({
  scope,
  subject,
  startsAt: NOW_MS - HOUR,
  endsAt: NOW_MS + 24 * HOUR,
  reason: 'go-live',
});

describe('evaluateFleet', () => {
  it.each([
    {
      name: 'no gates: the engine decides alone',
      state: NO_GATES,
      expected: { a: ['upgrade', undefined], b: ['skip', 'MUTEX_LOCKED'] },
      failing: { a: [], b: [] },
    },
    {
      name: 'a freeze stops every upgrade',
      state: gates({ frozen: true, frozenReason: 'holidays' }),
      expected: { a: ['skip', 'FROZEN'], b: ['skip', 'MUTEX_LOCKED'] },
      failing: { a: ['freeze'], b: ['freeze'] },
    },
    {
      name: 'an exclusion of a frees its mutex for b',
      state: gates({ exclusions: [exclusion('cluster', 'a')] }),
      expected: { a: ['skip', 'EXCLUDED'], b: ['upgrade', undefined] },
      failing: { a: ['exclusion'], b: [] },
    },
    {
      name: 'the health gate stops a and frees its mutex for b',
      state: gates({ healthGate: true, healthIssues: new Map([['a', ['ClusterOperator dns Degraded']]]) }),
      expected: { a: ['skip', 'UNHEALTHY'], b: ['upgrade', undefined] },
      failing: { a: ['health'], b: [] },
    },
    {
      name: 'health issues without the health gate stop nothing',
      state: gates({ healthGate: false, healthIssues: new Map([['a', ['ClusterOperator dns Degraded']]]) }),
      expected: { a: ['upgrade', undefined], b: ['skip', 'MUTEX_LOCKED'] },
      failing: { a: [], b: [] },
    },
  ])('$name', ({ state, expected, failing }) => {
    const input = testPlanInput([testCluster('a', {}, { mutexes: ['m'] }), testCluster('b', {}, { mutexes: ['m'] })]);
    const e = evaluateFleet(input, state, { explain: true });
    const got = Object.fromEntries(e.decisions.map((d) => [d.cluster, [d.action, d.reason]]));
    expect(got).toEqual(expected);
    const failed = Object.fromEntries([...e.clusters.values()].map((c) => [c.cluster, c.gates.filter((g) => !g.pass).map((g) => g.gate)]));
    expect(failed).toEqual(failing);
    // the explanation of b sees what the scheduler does: its mutex is free when a is gated
    expect(e.clusters.get('b')!.checks.find((k) => k.rule === 'mutex')!.pass).toBe(expected.b[0] === 'upgrade');
  });

  it('cancels a scheduled upgrade whose start falls in an exclusion, and its exclusion gate says why', () => {
    const input = testPlanInput([
      testCluster('a', { currentUpgrade: { version: '4.12.19', nextRun: '2021-08-30T19:00:00Z', state: 'scheduled' } }),
    ]);
    const e = evaluateFleet(input, gates({ exclusions: [exclusion('organization', null)] }), { explain: ['a'] });
    expect(e.decisions).toEqual([expect.objectContaining({ action: 'cancel', reason: 'EXCLUDED', version: '4.12.19' })]);
    expect(e.clusters.get('a')!.gates.find((g) => g.gate === 'exclusion')).toMatchObject({
      pass: false,
      details: { at: '2021-08-30T19:00:00.000Z', scope: 'organization' },
    });
  });

  it('the version view without decisions gives the same soak, candidates and sector floors as the full evaluation', () => {
    const input = testPlanInput(
      [
        testCluster('a', {}, { mutexes: ['m'], soakDays: 3, sector: 'dev' }),
        testCluster('b', {}, { mutexes: ['m'], soakDays: 0, sector: 'prod', blockedVersions: ['^4\\.12\\.19$'] }),
        testCluster('c', { healthy: false }),
        testCluster('d', {}, { mutexes: ['m'] }),
      ],
      { organization: { sectors: [{ name: 'dev' }, { name: 'prod', dependencies: [{ name: 'dev' }] }] } },
    );
    const state = gates({ healthGate: true, healthIssues: new Map([['d', ['ClusterOperator dns Degraded']]]) });
    const full = evaluateFleet(input, state);
    const view = fleetVersionView(input);
    expect(full.runs).toBe(2);
    expect(view.now).toBe(full.now);
    expect(view.versionData).toEqual(full.versionData);
    for (const name of ['a', 'b', 'c', 'd', 'unknown']) {
      expect(view.candidateSoak(name)).toEqual(full.candidateSoak(name));
      expect(view.newestUnblocked(name)).toEqual(full.newestUnblocked(name));
    }
    expect(view.candidateSoak('a')!.length).toBeGreaterThan(0);
    expect(view.sectorFloor('prod', 'wl')).toEqual(full.sectorFloor('prod', 'wl'));
    expect(view.sectorFloor('prod', 'wl')).toMatchObject({ cluster: 'a', sector: 'dev' });
  });

  it('explains only the clusters asked for, and the decisions do not depend on it', () => {
    const input = testPlanInput([testCluster('a', {}, { mutexes: ['m'] }), testCluster('b', {}, { mutexes: ['m'] }), testCluster('c')]);
    const none = evaluateFleet(input, NO_GATES);
    const some = evaluateFleet(input, NO_GATES, { explain: ['b', 'nope'] });
    expect(none.clusters.size).toBe(0);
    expect([...some.clusters.keys()]).toEqual(['b']);
    expect(some.decisions).toEqual(none.decisions);
    expect(some.clusters.get('b')).toMatchObject({ managed: true, order: 1, decision: { action: 'skip', reason: 'MUTEX_LOCKED' } });
  });

  it('gives every candidate its blocked pattern and soak numbers', () => {
    const versionData = {
      checkIn: '2021-08-29T18:00:00Z',
      versions: {
        '4.12.19': { workloads: { wl: { soakDays: 1.5, reporting: ['x'] }, other: { soakDays: 0.5, reporting: [] } } },
        '4.12.17': { workloads: { wl: { soakDays: 0, reporting: ['a'] }, other: { soakDays: 0, reporting: ['a'] } } },
      },
    };
    const input = testPlanInput(
      [
        testCluster('a', {
          availableUpgrades: ['4.12.19', '4.12.20', '4.12.16'],
          upgradePolicy: {
            workloads: ['wl', 'other'],
            schedule: '* * * * *',
            conditions: { soakDays: 2, blockedVersions: ['^4\\.12\\.20$'] },
          },
        }),
      ],
      { versionData },
    );
    const a = evaluateFleet(input, NO_GATES, { explain: true }).clusters.get('a')!;
    expect(a.ignoredVersions).toEqual(['4.12.16']);
    expect(a.candidates.map((c) => [c.version, c.blockedBy, c.soak])).toEqual([
      ['4.12.20', '^4\\.12\\.20$', { soakedDays: 0, requiredDays: 2, remainingDays: 2 }],
      ['4.12.19', null, { soakedDays: 0.5, requiredDays: 2, remainingDays: 1.5 }],
    ]);
    expect(a.decision).toMatchObject({ action: 'skip', reason: 'NOT_SOAKED' });
  });

  it('reports unmanaged clusters without decision or gates', () => {
    const input = testPlanInput([{ name: 'u', version: '4.12.1', availableUpgrades: ['4.12.2', '4.12.0'] }]);
    const u = evaluateFleet(input, NO_GATES, { explain: true }).clusters.get('u');
    expect(u?.decision).toBeUndefined();
    expect(u).toMatchObject({
      managed: false,
      gates: [],
      candidates: [{ version: '4.12.2', soak: null }],
      ignoredVersions: ['4.12.0'],
    });
  });

  it('gives the sector floor the engine applies', () => {
    const input = testPlanInput(
      [
        testCluster('dev-1', { version: '4.12.15' }, { sector: 'dev' }),
        testCluster('dev-2', { version: '4.12.17' }, { sector: 'dev' }),
        testCluster('prod-1', {}, { sector: 'prod' }),
      ],
      { organization: { sectors: [{ name: 'dev' }, { name: 'prod', dependencies: [{ name: 'dev' }] }] } },
    );
    const e = evaluateFleet(input, NO_GATES, { explain: ['prod-1'] });
    expect(e.sectorFloor('prod', 'wl')).toEqual({ sector: 'dev', cluster: 'dev-1', version: '4.12.15' });
    expect(e.sectorFloor('dev', 'wl')).toBeNull();
    expect(e.clusters.get('prod-1')!.decision).toMatchObject({ action: 'skip', reason: 'SECTOR_BEHIND' });
  });
});
