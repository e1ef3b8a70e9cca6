import { describe, expect, it } from 'vitest';
import { holdsPendingUpgrade, INTENT_NOTES, planIntent, type IntentCluster, type IntentPlan, type PlannedIntent } from './intent-plan';

const now = Date.parse('2021-08-30T18:00:00Z');
const schedule: PlannedIntent = {
  kind: 'schedule-upgrade',
  clusterName: 'a',
  version: '4.13.2',
  nextRun: new Date('2021-08-30T19:00:00Z'),
};
const cancel: PlannedIntent = { ...schedule, kind: 'cancel-upgrade' };
const idle: IntentCluster = { version: '4.13.1', currentUpgrade: null, lastUpgrade: null, storedUpgrade: null };
const atProvider = (version: string, state: 'scheduled' | 'started') => ({ ...idle, currentUpgrade: { version, state } });

describe('planIntent', () => {
  it.each<{ name: string; intent: PlannedIntent; cluster: IntentCluster | null; reconciling?: boolean; plan: IntentPlan }>([
    {
      name: 'a cluster the provider no longer reports: fail',
      intent: schedule,
      cluster: null,
      plan: { kind: 'fail', reason: 'cluster a is no longer known to the provider', outcome: 'failed', releaseHeldUpgrade: false },
    },
    {
      name: 'cancel of a cluster the provider no longer reports: fail',
      intent: cancel,
      cluster: null,
      plan: { kind: 'fail', reason: 'cluster a is no longer known to the provider', outcome: 'failed', releaseHeldUpgrade: false },
    },
    // schedule
    { name: 'schedule, idle and in time: send', intent: schedule, cluster: idle, plan: { kind: 'send-schedule', doneNote: null } },
    {
      name: 'schedule left pending by a crash: send, noting it',
      intent: schedule,
      cluster: idle,
      reconciling: true,
      plan: { kind: 'send-schedule', doneNote: INTENT_NOTES.sentAfterRestart },
    },
    {
      name: 'the provider already has this upgrade: done, recorded as scheduled',
      intent: schedule,
      cluster: atProvider('4.13.2', 'started'),
      plan: { kind: 'mark-done', note: null, recordScheduled: true },
    },
    {
      name: 'the provider already has it, after a restart: done with a note',
      intent: schedule,
      cluster: atProvider('4.13.2', 'scheduled'),
      reconciling: true,
      plan: { kind: 'mark-done', note: INTENT_NOTES.providerHasIt, recordScheduled: true },
    },
    {
      name: 'the cluster is already at the version: done',
      intent: schedule,
      cluster: { ...idle, version: '4.13.2' },
      plan: { kind: 'mark-done', note: INTENT_NOTES.alreadyUpgraded, recordScheduled: true },
    },
    {
      name: 'the provider reports this upgrade finished (failed or not): done',
      intent: schedule,
      cluster: { ...idle, lastUpgrade: { version: '4.13.2' } },
      plan: { kind: 'mark-done', note: INTENT_NOTES.alreadyUpgraded, recordScheduled: true },
    },
    {
      name: 'past the version even with another upgrade under way: done',
      intent: schedule,
      cluster: { ...atProvider('4.14.0', 'scheduled'), version: '4.13.5' },
      plan: { kind: 'mark-done', note: INTENT_NOTES.alreadyUpgraded, recordScheduled: true },
    },
    {
      name: 'another upgrade at the provider: fail',
      intent: schedule,
      cluster: atProvider('4.13.3', 'scheduled'),
      plan: {
        kind: 'fail',
        reason: 'the cluster has another upgrade (4.13.3) at the provider',
        outcome: 'failed',
        releaseHeldUpgrade: false,
      },
    },
    {
      name: 'its start time passed: expired, and our view releases the upgrade it held',
      intent: { ...schedule, nextRun: new Date(now) },
      cluster: { ...idle, storedUpgrade: { version: '4.13.2', state: 'scheduled' } },
      plan: { kind: 'fail', reason: INTENT_NOTES.expired, outcome: 'expired', releaseHeldUpgrade: true },
    },
    {
      name: 'expired while our view holds another version: that one is kept',
      intent: { ...schedule, nextRun: new Date(now - 1) },
      cluster: { ...idle, storedUpgrade: { version: '4.13.3', state: 'scheduled' } },
      plan: { kind: 'fail', reason: INTENT_NOTES.expired, outcome: 'expired', releaseHeldUpgrade: false },
    },
    {
      name: 'expired while our view has it started: kept',
      intent: { ...schedule, nextRun: new Date(now - 1) },
      cluster: { ...idle, storedUpgrade: { version: '4.13.2', state: 'started' } },
      plan: { kind: 'fail', reason: INTENT_NOTES.expired, outcome: 'expired', releaseHeldUpgrade: false },
    },
    {
      name: 'a schedule without a start time is expired',
      intent: { ...schedule, nextRun: null },
      cluster: idle,
      plan: { kind: 'fail', reason: INTENT_NOTES.expired, outcome: 'expired', releaseHeldUpgrade: false },
    },
    // cancel
    {
      name: 'cancel of the scheduled upgrade: send',
      intent: cancel,
      cluster: atProvider('4.13.2', 'scheduled'),
      plan: { kind: 'send-cancel', doneNote: null },
    },
    {
      name: 'cancel left pending by a crash: send, noting it',
      intent: cancel,
      cluster: atProvider('4.13.2', 'scheduled'),
      reconciling: true,
      plan: { kind: 'send-cancel', doneNote: INTENT_NOTES.sentAfterRestart },
    },
    {
      name: 'cancel of an upgrade that started: done, not cancelled',
      intent: cancel,
      cluster: atProvider('4.13.2', 'started'),
      plan: { kind: 'mark-done', note: INTENT_NOTES.alreadyStarted, recordScheduled: false },
    },
    {
      name: 'cancel with another upgrade at the provider: nothing to cancel',
      intent: cancel,
      cluster: atProvider('4.13.3', 'scheduled'),
      plan: { kind: 'mark-done', note: INTENT_NOTES.nothingToCancel, recordScheduled: false },
    },
    {
      name: 'cancel with nothing at the provider: nothing to cancel (whatever its start time)',
      intent: { ...cancel, nextRun: null },
      cluster: idle,
      plan: { kind: 'mark-done', note: INTENT_NOTES.nothingToCancel, recordScheduled: false },
    },
  ])('$name', ({ intent, cluster, reconciling, plan }) => {
    expect(planIntent(intent, cluster, now, reconciling ?? false)).toEqual(plan);
  });
});

describe('holdsPendingUpgrade', () => {
  it.each([
    { name: 'a pending schedule on a cluster with nothing at the provider holds', intent: schedule, current: null, holds: true },
    {
      name: 'not when the provider has an upgrade',
      intent: schedule,
      current: { version: '4.13.3', state: 'scheduled' as const },
      holds: false,
    },
    { name: 'not without a start time', intent: { ...schedule, nextRun: null }, current: null, holds: false },
    { name: 'a cancel holds nothing', intent: cancel, current: null, holds: false },
  ])('$name', ({ intent, current, holds }) => {
    expect(holdsPendingUpgrade(intent, current)).toBe(holds);
  });
});
