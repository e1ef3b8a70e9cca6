import { describe, expect, it } from 'vitest';
import {
  observeSnapshots,
  reachedVersion,
  withClusterRowUpdates,
  type KnownCluster,
  type ObservedCluster,
  type ObservedUpgrade,
} from './snapshot-transitions';

const known: KnownCluster = { id: 7, name: 'a', externalId: 'ext-a', version: '4.13.1', currentUpgrade: null, upgradeState: 'idle' };
const seen: ObservedCluster = {
  externalId: 'ext-a',
  name: 'a',
  version: '4.13.1',
  channel: 'stable-4.13',
  availableUpgrades: ['4.13.2'],
  healthy: true,
  healthIssues: [],
  currentUpgrade: null,
};
const scheduled: ObservedUpgrade = { version: '4.13.2', nextRun: '2021-08-30T19:00:00Z', state: 'scheduled' };
const started: ObservedUpgrade = { ...scheduled, state: 'started' };
const base = { clusterId: 7, cluster: 'a', fromVersion: '4.13.1', toVersion: '4.13.2' };

describe('observeSnapshots: lifecycle transitions and upgrade state of a known cluster', () => {
  it.each([
    { name: 'idle stays idle', stored: known, snap: seen, transitions: [], state: 'idle' },
    {
      name: 'idle → scheduled at the provider (no event: fleetplan records its own schedules)',
      stored: known,
      snap: { ...seen, currentUpgrade: scheduled },
      transitions: [],
      state: 'scheduled',
    },
    {
      name: 'scheduled → started',
      stored: { ...known, currentUpgrade: scheduled, upgradeState: 'scheduled' },
      snap: { ...seen, currentUpgrade: started },
      transitions: [{ ...base, kind: 'started' }],
      state: 'upgrading',
    },
    {
      name: 'idle → started (scheduled elsewhere): started from the snapshot version',
      stored: { ...known, version: '4.12.9' },
      snap: { ...seen, currentUpgrade: started },
      transitions: [{ ...base, fromVersion: '4.13.1', kind: 'started' }],
      state: 'upgrading',
    },
    {
      name: 'started stays started: nothing new',
      stored: { ...known, currentUpgrade: started, upgradeState: 'upgrading' },
      snap: { ...seen, currentUpgrade: { ...started, progress: 0.5 } },
      transitions: [],
      state: 'upgrading',
    },
    {
      name: 'upgrading → completed (the cluster reached the version)',
      stored: { ...known, currentUpgrade: started, upgradeState: 'upgrading' },
      snap: { ...seen, version: '4.13.2' },
      transitions: [{ ...base, kind: 'completed', startWasUnseen: false }],
      state: 'idle',
    },
    {
      name: 'scheduled → completed between two snapshots: the start was never seen',
      stored: { ...known, currentUpgrade: scheduled, upgradeState: 'scheduled' },
      snap: { ...seen, version: '4.13.1', lastUpgrade: { version: '4.13.2', state: 'completed' as const } },
      transitions: [{ ...base, kind: 'completed', startWasUnseen: true }],
      state: 'idle',
    },
    {
      name: 'upgrading → failed, with the provider message',
      stored: { ...known, currentUpgrade: started, upgradeState: 'upgrading' },
      snap: { ...seen, lastUpgrade: { version: '4.13.2', state: 'failed' as const, message: 'etcd degraded' } },
      transitions: [{ ...base, kind: 'failed', message: 'etcd degraded' }],
      state: 'failed',
    },
    {
      name: 'a failure without a message records null',
      stored: { ...known, currentUpgrade: scheduled, upgradeState: 'scheduled' },
      snap: { ...seen, lastUpgrade: { version: '4.13.2', state: 'failed' as const } },
      transitions: [{ ...base, kind: 'failed', message: null }],
      state: 'failed',
    },
    {
      name: 'a failure of another version is not this upgrade’s: removed at the provider',
      stored: { ...known, currentUpgrade: scheduled, upgradeState: 'scheduled' },
      snap: { ...seen, lastUpgrade: { version: '4.13.0', state: 'failed' as const } },
      transitions: [{ ...base, kind: 'cancelled-at-provider', message: 'removed at the provider' }],
      state: 'idle',
    },
    {
      name: 'scheduled → gone, version not reached: cancelled at the provider',
      stored: { ...known, currentUpgrade: scheduled, upgradeState: 'scheduled' },
      snap: seen,
      transitions: [{ ...base, kind: 'cancelled-at-provider', message: 'removed at the provider' }],
      state: 'idle',
    },
    {
      name: 'a version that is not SemVer never counts as reached',
      stored: { ...known, currentUpgrade: started, upgradeState: 'upgrading' },
      snap: { ...seen, version: 'latest' },
      transitions: [{ ...base, kind: 'cancelled-at-provider', message: 'removed at the provider' }],
      state: 'idle',
    },
    {
      name: 'another upgrade replaced the stored one and runs: the old one ends, the new one starts',
      stored: { ...known, currentUpgrade: scheduled, upgradeState: 'scheduled' },
      snap: { ...seen, currentUpgrade: { ...started, version: '4.13.3' } },
      transitions: [
        { ...base, kind: 'cancelled-at-provider', message: 'removed at the provider' },
        { ...base, toVersion: '4.13.3', kind: 'started' },
      ],
      state: 'upgrading',
    },
    {
      name: 'failed stays failed while nothing new is under way',
      stored: { ...known, upgradeState: 'failed' },
      snap: seen,
      transitions: [],
      state: 'failed',
    },
    {
      name: 'failed → scheduled when a new upgrade is scheduled',
      stored: { ...known, upgradeState: 'failed' },
      snap: { ...seen, currentUpgrade: scheduled },
      transitions: [],
      state: 'scheduled',
    },
  ])('$name', ({ stored, snap, transitions, state }) => {
    const observed = observeSnapshots([stored], [snap]);
    expect(observed.transitions).toEqual(transitions);
    expect(observed.inserts).toEqual([]);
    expect(observed.updates).toHaveLength(1);
    expect(observed.updates[0]!.upgradeState).toBe(state);
    expect(observed.updates[0]!.id).toBe(7);
  });

  it('matches by provider id first, then by name; a cluster it cannot match is inserted', () => {
    const other: KnownCluster = { ...known, id: 8, name: 'b', externalId: 'ext-b' };
    const observed = observeSnapshots(
      [known, other],
      [
        { ...seen, name: 'renamed' }, // same provider id as a
        { ...seen, externalId: 'ext-new', name: 'b' }, // new provider id, b's name
        { ...seen, externalId: 'ext-c', name: 'c', currentUpgrade: started },
      ],
    );
    expect(observed.updates.map((u) => u.id)).toEqual([7, 8]);
    expect(observed.inserts).toEqual([
      {
        name: 'c',
        externalId: 'ext-c',
        version: '4.13.1',
        channel: 'stable-4.13',
        availableUpgrades: ['4.13.2'],
        healthy: true,
        healthIssues: [],
        currentUpgrade: started,
        upgradeState: 'upgrading',
        discovery: null,
        pendingVersionGates: [],
        inhibitors: null,
      },
    ]);
    expect(observed.transitions).toEqual([]);
  });

  it('stores the snapshot columns and the current upgrade without its phase', () => {
    const snap = {
      ...seen,
      healthy: false,
      healthIssues: ['operator degraded'],
      currentUpgrade: { ...started, startedAt: '2021-08-30T19:01:00Z', progress: 0, phase: 'control-plane' },
    };
    const [update] = observeSnapshots([known], [snap]).updates;
    expect(update).toEqual({
      id: 7,
      version: '4.13.1',
      channel: 'stable-4.13',
      availableUpgrades: ['4.13.2'],
      healthy: false,
      healthIssues: ['operator degraded'],
      currentUpgrade: { ...started, startedAt: '2021-08-30T19:01:00Z', progress: 0 },
      upgradeState: 'upgrading',
      discovery: null,
      pendingVersionGates: [],
      inhibitors: null,
    });
  });

  it('passes on the discovery and the pending version gates the provider reported (null: not reported, the stored ones stay)', () => {
    const discovery = { labels: { env: 'prod' }, cloud: 'aws', region: 'us-east-1', nodeCount: 9 };
    const gate = { id: 'g', minor: '4.14', description: 'read the notes', documentationUrl: null };
    const [update] = observeSnapshots([known], [{ ...seen, discovery, pendingVersionGates: [gate] }]).updates;
    expect(update).toMatchObject({ discovery, pendingVersionGates: [gate] });
  });

  it('applies the updates to the stored clusters it names and leaves the others', () => {
    const stored = [
      { ...known, healthy: true, healthIssues: [], sector: 'x' },
      { ...known, id: 8, name: 'b', healthy: true, healthIssues: [], sector: 'y' },
    ];
    const { updates } = observeSnapshots([known], [{ ...seen, version: '4.13.2', healthy: false, currentUpgrade: scheduled }]);
    const after = withClusterRowUpdates(stored, updates);
    expect(after[0]).toEqual({ ...stored[0], version: '4.13.2', healthy: false, currentUpgrade: scheduled, upgradeState: 'scheduled' });
    expect(after[1]).toBe(stored[1]);
  });
});

describe('reachedVersion', () => {
  it.each([
    ['4.13.2', '4.13.2', true],
    ['4.13.10', '4.13.2', true],
    ['4.13.2-rc.1', '4.13.2', false],
    ['4.13.2+amd64', '4.13.2', true],
    ['4.13.1', '4.13.2', false],
    ['latest', '4.13.2', false],
    ['4.13.2', 'latest', false],
  ])('%s reached %s: %s', (version, target, expected) => {
    expect(reachedVersion(version, target)).toBe(expected);
  });
});
