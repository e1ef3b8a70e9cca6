import { describe, expect, it } from 'vitest';
import { gateChecks, type GateState } from '@/server/domain/scheduling/apply-gates';
import { evaluateFleet, NO_GATES } from '@/server/domain/evaluation/evaluate-fleet';
import { testCluster, testPlanInput } from '@/server/domain/plan/test-plan-input';
import { firstFailingGate, NO_FLEET_OBSTACLES, startGates } from './gates';
import { inhibitingFacts, kubernetesMinorOf, upgradeInhibitors, type ClusterInhibitorFacts } from './inhibitors';
import { DEFAULT_LIFECYCLE_OPTIONS } from './options';

const logging = { name: 'cluster-logging.v5.8.1', namespace: 'openshift-logging', maxOpenShiftVersion: '4.15' };
const unlimited = { name: 'cert-manager.v1.13.0', namespace: 'cert-manager', maxOpenShiftVersion: null };
const flowschemas = {
  resource: 'flowschemas.v1beta2.flowcontrol.apiserver.k8s.io',
  removedInRelease: '1.29',
  users: ['system:serviceaccount:monitoring:kube-state-metrics'],
};
const facts: ClusterInhibitorFacts = { operators: [logging, unlimited], removedApis: [flowschemas] };

describe('kubernetesMinorOf', () => {
  it.each([
    ['4.13.40', '1.26'],
    ['4.16', '1.29'],
    ['4.18.2', '1.31'],
    ['4.2.0', null],
    ['5.0.0', null],
    ['nonsense', null],
  ])('%s → %s', (ocp, kube) => expect(kubernetesMinorOf(ocp)).toBe(kube));
});

describe('upgradeInhibitors', () => {
  it('holds a minor upgrade the operator does not support, naming it; never a z-stream', () => {
    expect(upgradeInhibitors({ operators: [logging, unlimited], removedApis: [] }, '4.15.20', '4.16.3')).toEqual([
      {
        reason: 'OPERATOR_INCOMPATIBLE',
        message: '4.16.3 is newer than installed operators support: cluster-logging.v5.8.1 (openshift-logging) supports up to 4.15',
      },
    ]);
    expect(upgradeInhibitors({ operators: [logging], removedApis: [] }, '4.15.20', '4.15.30')).toEqual([]);
    // a cluster already past an operator's limit may still take its z-streams (OLM holds only minor upgrades)
    expect(upgradeInhibitors({ operators: [logging], removedApis: [] }, '4.16.1', '4.16.5')).toEqual([]);
    // a limit given with a patch is still a minor limit; minors compare as numbers (4.9 < 4.10)
    expect(upgradeInhibitors({ operators: [{ ...logging, maxOpenShiftVersion: '4.15.3' }], removedApis: [] }, '4.14.9', '4.15.9')).toEqual(
      [],
    );
    expect(upgradeInhibitors({ operators: [{ ...logging, maxOpenShiftVersion: '4.10' }], removedApis: [] }, '4.9.59', '4.10.3')).toEqual(
      [],
    );
    expect(
      upgradeInhibitors({ operators: [{ ...logging, maxOpenShiftVersion: '4.9' }], removedApis: [] }, '4.9.59', '4.10.3'),
    ).toHaveLength(1);
  });

  it('holds every minor upgrade for a limit that is not a version, as OLM does', () => {
    const odd = { ...logging, maxOpenShiftVersion: 'four-fifteen' };
    expect(upgradeInhibitors({ operators: [odd], removedApis: [] }, '4.15.20', '4.16.3')).toEqual([
      {
        reason: 'OPERATOR_INCOMPATIBLE',
        message:
          "4.16.3 is newer than installed operators support: cluster-logging.v5.8.1 (openshift-logging) declares a maxOpenShiftVersion that is not a version ('four-fifteen')",
      },
    ]);
    expect(upgradeInhibitors({ operators: [odd], removedApis: [] }, '4.15.20', '4.15.21')).toEqual([]);
  });

  it('holds a target whose Kubernetes removes an API still called, naming the API and its callers', () => {
    expect(upgradeInhibitors({ operators: [], removedApis: [flowschemas] }, '4.15.20', '4.16.3')).toEqual([
      {
        reason: 'REMOVED_API_IN_USE',
        message:
          '4.16.3 (Kubernetes 1.29) removes APIs still in use: flowschemas.v1beta2.flowcontrol.apiserver.k8s.io (removed in Kubernetes 1.29; called by system:serviceaccount:monitoring:kube-state-metrics)',
      },
    ]);
    // removed later than the target: no hold
    expect(upgradeInhibitors({ operators: [], removedApis: [flowschemas] }, '4.14.9', '4.15.30')).toEqual([]);
    // removed by a release between the cluster and the target also breaks it (a two-minor run) ...
    expect(upgradeInhibitors({ operators: [], removedApis: [flowschemas] }, '4.15.20', '4.17.1')).toHaveLength(1);
    // ... but not an API the cluster's own Kubernetes already removed (a z-stream on 4.16)
    expect(upgradeInhibitors({ operators: [], removedApis: [flowschemas] }, '4.16.1', '4.16.5')).toEqual([]);
  });

  it('lists operators first, then APIs; nothing reported holds nothing', () => {
    expect(upgradeInhibitors(facts, '4.15.20', '4.16.3').map((i) => i.reason)).toEqual(['OPERATOR_INCOMPATIBLE', 'REMOVED_API_IN_USE']);
    expect(upgradeInhibitors(undefined, '4.15.20', '4.16.3')).toEqual([]);
  });

  it('keeps only the facts that can hold an upgrade', () => {
    expect(inhibitingFacts({ operators: [unlimited], removedApis: [] })).toBeNull();
    expect(inhibitingFacts(facts)).toEqual({ operators: [logging], removedApis: [flowschemas] });
  });
});

describe('inhibitors as scheduler gates', () => {
  const state = (inhibitors: Map<string, ClusterInhibitorFacts>): GateState => ({
    frozen: false,
    exclusions: [],
    healthGate: false,
    healthIssues: new Map(),
    inhibitors,
  });

  it('come after the version gate in the order the scheduler checks, and pass without facts', () => {
    const checks = gateChecks('prod-1', undefined, 0, state(new Map([['prod-1', facts]])), '4.16.3', '4.15.20');
    expect(checks.map((c) => c.gate).slice(-3)).toEqual(['version-gate', 'operators', 'removed-apis']);
    expect(checks.filter((c) => !c.pass).map((c) => c.reason)).toEqual(['OPERATOR_INCOMPATIBLE', 'REMOVED_API_IN_USE']);
    expect(gateChecks('other', undefined, 0, state(new Map([['prod-1', facts]])), '4.16.3', '4.15.20').every((c) => c.pass)).toBe(true);
  });

  it('hold a candidate inside the engine: the best one left is taken (a z-stream below a held minor)', () => {
    const a = testCluster('a', { version: '4.15.1', availableUpgrades: ['4.15.2', '4.16.1'] });
    const b = testCluster('b', { version: '4.15.1', availableUpgrades: ['4.16.1'] });
    const c = testCluster('c', { version: '4.15.1', availableUpgrades: ['4.15.2', '4.16.1'] });
    const inhibitors = new Map([
      ['a', facts],
      ['b', facts],
    ]);
    const e = evaluateFleet(testPlanInput([a, b, c]), { ...NO_GATES, inhibitors }, { explain: ['a'] });
    const byName = new Map(e.decisions.map((d) => [d.cluster, d]));
    expect(byName.get('a')).toMatchObject({ action: 'upgrade', version: '4.15.2' });
    expect(byName.get('a')!.message).toContain('higher 4.16.1 not eligible (4.16.1 is newer than installed operators support');
    expect(byName.get('b')).toMatchObject({ action: 'skip', reason: 'OPERATOR_INCOMPATIBLE', version: '4.16.1' });
    expect(byName.get('c')).toMatchObject({ action: 'upgrade', version: '4.16.1' });
    // the explanation names the hold on the candidate
    const held = e.clusters.get('a')!.candidates.find((x) => x.version === '4.16.1')!;
    expect(held.checks.filter((k) => !k.pass).map((k) => k.rule)).toEqual(['hold']);
  });

  it('a version gate holds its minor the same way', () => {
    const a = testCluster('a', { version: '4.15.1', availableUpgrades: ['4.15.2', '4.16.1'] });
    const versionGates = new Map([['a', [{ id: 'g', minor: '4.16', description: 'APIs removed' }]]]);
    const e = evaluateFleet(testPlanInput([a]), { ...NO_GATES, versionGates }, {});
    expect(e.decisions[0]).toMatchObject({ action: 'upgrade', version: '4.15.2' });
  });
});

describe('inhibitors as start gates', () => {
  it('hold the start on the fresh read, in order, and let it go once they are gone', () => {
    const NOW = Date.parse('2026-03-02T08:00:00Z');
    const cluster = {
      version: '4.15.20',
      availableUpgrades: ['4.16.3'],
      conditionalUpgrades: [],
      upgradeable: null,
      health: { operators: [], alerts: null, other: [] },
      currentUpgrade: null,
      inhibitors: facts,
    };
    const target = { fromVersion: '4.15.20', toVersion: '4.16.3', slot: NOW };
    const first = (c: typeof cluster) =>
      firstFailingGate(startGates(target, NOW, DEFAULT_LIFECYCLE_OPTIONS, { ok: true, cluster: c }, NO_FLEET_OBSTACLES));
    expect(first(cluster)).toMatchObject({ reason: 'OPERATOR_INCOMPATIBLE' });
    expect(first({ ...cluster, inhibitors: { operators: [], removedApis: [flowschemas] } })).toMatchObject({
      reason: 'REMOVED_API_IN_USE',
    });
    expect(first({ ...cluster, inhibitors: { operators: [unlimited], removedApis: [] } })).toBeNull();
  });
});
