// The version-gate rule, once for the decision gates (apply-gates) and the start gates: an
// upgrade to a minor whose gate the cluster has not agreed to is held with VERSION_GATE.
import { describe, expect, it } from 'vitest';
import { gateChecks } from '@/server/domain/scheduling/apply-gates';
import { firstFailingGate, NO_FLEET_OBSTACLES, startGates, versionGateFor } from './gates';
import { DEFAULT_LIFECYCLE_OPTIONS } from './options';

const gate = { id: 'gate-416', minor: '4.16', description: 'OpenShift 4.16 removes deprecated APIs' };
const NOW = Date.parse('2026-03-02T08:00:00Z');

describe('version gates', () => {
  it('hold an upgrade to the gated minor only', () => {
    expect(versionGateFor([gate], '4.16.3')).toEqual({
      id: 'gate-416',
      minor: '4.16',
      message: '4.16.3 needs the version gate for 4.16, not acknowledged for this cluster: OpenShift 4.16 removes deprecated APIs',
    });
    expect(versionGateFor([gate], '4.15.21')).toBeNull();
    expect(versionGateFor([gate], 'not-a-version')).toBeNull();
    expect(versionGateFor([], '4.16.3')).toBeNull();
  });

  it('is a decision gate (apply-gates) for the cluster it names', () => {
    const state = { frozen: false, exclusions: [], healthGate: true, healthIssues: new Map(), versionGates: new Map([['c1', [gate]]]) };
    expect(gateChecks('c1', undefined, NOW, state, '4.16.3').find((g) => !g.pass)).toMatchObject({
      gate: 'version-gate',
      reason: 'VERSION_GATE',
      details: { gateId: 'gate-416', minor: '4.16' },
    });
    expect(gateChecks('c2', undefined, NOW, state, '4.16.3').every((g) => g.pass)).toBe(true);
  });

  it('is a start gate on the fresh read', () => {
    const cluster = {
      version: '4.15.20',
      availableUpgrades: ['4.16.3'],
      conditionalUpgrades: [],
      upgradeable: null,
      health: { operators: [], alerts: null, other: [] },
      currentUpgrade: null,
      pendingVersionGates: [gate],
    };
    const target = { fromVersion: '4.15.20', toVersion: '4.16.3', slot: NOW };
    const failing = firstFailingGate(startGates(target, NOW, DEFAULT_LIFECYCLE_OPTIONS, { ok: true, cluster }, NO_FLEET_OBSTACLES));
    expect(failing).toMatchObject({ reason: 'VERSION_GATE' });
    const agreed = { ...cluster, pendingVersionGates: [] };
    expect(
      firstFailingGate(startGates(target, NOW, DEFAULT_LIFECYCLE_OPTIONS, { ok: true, cluster: agreed }, NO_FLEET_OBSTACLES)),
    ).toBeNull();
  });
});
