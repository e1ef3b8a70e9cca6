import { describe, expect, it } from 'vitest';
import { NO_FLEET_OBSTACLES, type FleetConditions } from './gates';
import { holdsUpgradeInOurView, newAttempt, stepAttempt, type HookVerdict, type StepInput, type UpgradeAttempt } from './machine';
import type { ClusterReading, ObservedCluster } from './observation';
import { DEFAULT_LIFECYCLE_OPTIONS } from './options';

const H = 3_600_000;
const M = 60_000;
const SLOT = Date.parse('2024-05-07T22:00:00Z');
const NONE: HookVerdict = { state: 'none' };

function cluster(patch: Partial<ObservedCluster> = {}): ObservedCluster {
  return {
    version: '4.13.10',
    availableUpgrades: ['4.13.12'],
    conditionalUpgrades: [],
    upgradeable: { status: 'True' },
    health: { operators: [{ name: 'etcd', degraded: false, available: true }], alerts: [], other: [] },
    currentUpgrade: null,
    lastUpgrade: null,
    ...patch,
  };
}
const ok = (patch: Partial<ObservedCluster> = {}): ClusterReading => ({ ok: true, cluster: cluster(patch) });

function input(now: number, patch: Partial<StepInput> = {}, fleet: Partial<FleetConditions> = {}): StepInput {
  return {
    now,
    options: DEFAULT_LIFECYCLE_OPTIONS,
    startLeadMs: 0,
    minStartNoticeMs: 0,
    reading: ok(),
    fleet: { ...NO_FLEET_OBSTACLES, ...fleet },
    decisionWithdrawn: null,
    hooks: { pre: NONE, post: NONE },
    ...patch,
  };
}

const fresh = () => newAttempt(7, 'prod-1', '4.13.10', '4.13.12', SLOT);
const at = (a: UpgradeAttempt, patch: Partial<UpgradeAttempt>): UpgradeAttempt => ({ ...a, ...patch });
const confirmed = () => at(fresh(), { state: 'started', startRequestedAt: SLOT, startConfirmedAt: SLOT });

describe('scheduled', () => {
  it('waits before the notice lead and issues nothing', () => {
    const r = stepAttempt(fresh(), input(SLOT - 2 * H));
    expect(r).toEqual({ attempt: fresh(), transitions: [], effects: [] });
  });

  it('evaluates the pre-health notice once at slot - preCheckLead: a failing gate warns, nothing transitions', () => {
    const sick = ok({
      health: { operators: [{ name: 'etcd', degraded: true, available: true, message: 'quorum' }], alerts: [], other: [] },
    });
    const r1 = stepAttempt(fresh(), input(SLOT - H, { reading: sick }));
    expect(r1.transitions).toEqual([]);
    expect(r1.effects).toEqual([{ kind: 'precheck-failed', reason: 'UNHEALTHY', message: 'ClusterOperator etcd is Degraded: quorum' }]);
    expect(r1.attempt.noticeAt).toBe(SLOT - H);
    // evaluated once: the next tick says nothing again
    expect(stepAttempt(r1.attempt, input(SLOT - H + M, { reading: sick })).effects).toEqual([]);
  });

  it('a passing notice emits nothing', () => {
    const r = stepAttempt(fresh(), input(SLOT - 30 * M));
    expect(r.effects).toEqual([]);
    expect(r.attempt.noticeAt).toBe(SLOT - 30 * M);
  });

  it('a scheduled attempt of a cluster the provider no longer lists is cancelled, saying so', () => {
    const r = stepAttempt(fresh(), input(SLOT - 90 * M, {}, { managed: false, gone: true }));
    expect(r.attempt.state).toBe('cancelled');
    expect(r.attempt.reason).toBe('UNMANAGED');
    expect(r.attempt.message).toBe('the provider no longer lists the cluster');
  });

  it.each([
    [{ managed: false }, 'UNMANAGED'],
    [{ frozen: { reason: 'release week' } }, 'FROZEN'],
    [{ exclusion: 'maintenance exclusion (sector prod)' }, 'EXCLUDED'],
    [{ blockedBy: '^4\\.13\\.12$' }, 'VERSION_BLOCKED'],
    [{ haltedBy: 'failed on stage-1' }, 'HALTED_BY_FAILURE'],
  ] as const)('is cancelled before its start when %j', (fleet, reason) => {
    const r = stepAttempt(fresh(), input(SLOT - 90 * M, {}, fleet));
    expect(r.attempt.state).toBe('cancelled');
    expect(r.attempt.reason).toBe(reason);
    expect(r.effects).toEqual([]); // nothing was at the provider
  });

  it('is cancelled when the engine withdraws its decision', () => {
    const r = stepAttempt(fresh(), input(SLOT - 90 * M, { decisionWithdrawn: { message: 'cancelled: blocked' } }));
    expect([r.attempt.state, r.attempt.reason]).toEqual(['cancelled', 'DECISION_CHANGED']);
  });

  it('a pause alone does not cancel (the start gate skips if it still holds then)', () => {
    expect(stepAttempt(fresh(), input(SLOT - 90 * M, {}, { paused: true })).attempt.state).toBe('scheduled');
  });
});

describe('start', () => {
  it('at the slot: gates on the fresh reading pass → started with exactly one start effect', () => {
    const r = stepAttempt(fresh(), input(SLOT));
    expect(r.transitions.map((t) => `${t.from}→${t.to}`)).toEqual(['scheduled→pre-checks', 'pre-checks→started']);
    expect(r.effects).toEqual([{ kind: 'start', idempotencyKey: '7:start', version: '4.13.12', at: SLOT }]);
    expect(r.attempt.startRequestedAt).toBe(SLOT);
  });

  it('the provider lead opens the window earlier and passes the slot as the start time', () => {
    const r = stepAttempt(fresh(), input(SLOT - 10 * M, { startLeadMs: 10 * M }));
    expect(r.effects).toEqual([{ kind: 'start', idempotencyKey: '7:start', version: '4.13.12', at: SLOT }]);
  });

  it.each([
    [
      'unhealthy operator',
      input(SLOT, { reading: ok({ health: { operators: [{ name: 'dns', degraded: false, available: false }], alerts: [], other: [] } }) }),
      'UNHEALTHY',
    ],
    [
      'critical alert',
      input(SLOT, { reading: ok({ health: { operators: [], alerts: [{ name: 'EtcdDown', severity: 'critical' }], other: [] } }) }),
      'UNHEALTHY',
    ],
    ['withdrawn from availableUpdates', input(SLOT, { reading: ok({ availableUpgrades: [] }) }), 'NOT_OFFERED'],
    [
      'only conditional',
      input(SLOT, { reading: ok({ availableUpgrades: [], conditionalUpgrades: ['4.13.12'] }) }),
      'CONDITIONAL_NOT_ALLOWED',
    ],
    ['late', input(SLOT + H + 1), 'START_LATE'],
    ['provider error', input(SLOT, { reading: { ok: false, message: 'connection refused' } }), 'PROVIDER_ERROR'],
    ['paused', input(SLOT, {}, { paused: true }), 'PAUSED'],
    ['another upgrade', input(SLOT, { reading: ok({ currentUpgrade: { version: '4.13.11', state: 'started' } }) }), 'UPGRADE_IN_PROGRESS'],
    ['version changed', input(SLOT, { reading: ok({ version: '4.13.11' }) }), 'VERSION_CHANGED'],
  ])('a failing gate (%s) skips the slot without a start', (_name, inp, reason) => {
    const r = stepAttempt(fresh(), inp);
    expect([r.attempt.state, r.attempt.reason]).toEqual(['skipped', reason]);
    expect(r.effects.filter((e) => e.kind === 'start')).toEqual([]);
  });

  it('Upgradeable=False refuses a minor upgrade but not a z-stream one', () => {
    const minor = newAttempt(1, 'c', '4.13.10', '4.14.1', SLOT);
    const reading = ok({ availableUpgrades: ['4.13.12', '4.14.1'], upgradeable: { status: 'False' } });
    expect(stepAttempt(minor, input(SLOT, { reading })).attempt.reason).toBe('NOT_UPGRADEABLE');
    expect(stepAttempt(fresh(), input(SLOT, { reading })).attempt.state).toBe('started');
  });

  it('a conditional update starts when the policy allows it', () => {
    const reading = ok({ availableUpgrades: [], conditionalUpgrades: ['4.13.12'] });
    const r = stepAttempt(fresh(), input(SLOT, { reading, options: { ...DEFAULT_LIFECYCLE_OPTIONS, allowConditionalUpdates: true } }));
    expect(r.attempt.state).toBe('started');
  });

  it('starts exactly at slot + maxUpgradeStartDelay, not a millisecond later', () => {
    expect(stepAttempt(fresh(), input(SLOT + H)).attempt.state).toBe('started');
    expect(stepAttempt(fresh(), input(SLOT + H + 1)).attempt.state).toBe('skipped');
  });
});

describe('unconfirmed start (crash or provider error after the intent)', () => {
  const requested = () => at(fresh(), { state: 'started', startRequestedAt: SLOT });

  it('the provider already holds it → confirmed, no second start', () => {
    const r = stepAttempt(requested(), input(SLOT + M, { reading: ok({ currentUpgrade: { version: '4.13.12', state: 'scheduled' } }) }));
    expect(r.effects).toEqual([]);
    expect(r.attempt.startConfirmedAt).toBe(SLOT + M);
  });

  it('the provider does not hold it and the gates pass → the same start again (same key)', () => {
    const r = stepAttempt(requested(), input(SLOT + M));
    expect(r.effects).toEqual([{ kind: 'start', idempotencyKey: '7:start', version: '4.13.12', at: SLOT + M }]);
    expect(r.transitions).toEqual([]);
  });

  it('the window closed → skipped START_FAILED, no start', () => {
    const r = stepAttempt(requested(), input(SLOT + 2 * H));
    expect([r.attempt.state, r.attempt.reason, r.effects]).toEqual(['skipped', 'START_FAILED', []]);
  });
});

describe('running to the end', () => {
  it('started → upgrading when the provider reports it running', () => {
    const r = stepAttempt(confirmed(), input(SLOT + M, { reading: ok({ currentUpgrade: { version: '4.13.12', state: 'started' } }) }));
    expect([r.attempt.state, r.attempt.runningAt]).toEqual(['upgrading', SLOT + M]);
  });

  it('completion → post-checks → completed when healthy (no hook)', () => {
    const r = stepAttempt(
      at(confirmed(), { state: 'upgrading' }),
      input(SLOT + H, { reading: ok({ version: '4.13.12', lastUpgrade: { version: '4.13.12', state: 'completed' } }) }),
    );
    expect(r.transitions.map((t) => t.to)).toEqual(['post-checks', 'completed']);
  });

  it('unhealthy after completion → failed POST_CHECK_FAILED', () => {
    const reading = ok({ version: '4.13.12', health: { operators: [], alerts: null, other: ['cluster state is error'] } });
    const r = stepAttempt(at(confirmed(), { state: 'upgrading' }), input(SLOT + H, { reading }));
    expect([r.attempt.state, r.attempt.reason]).toEqual(['failed', 'POST_CHECK_FAILED']);
  });

  it("a provider failure is failed with the provider's reason, never cancelled", () => {
    const reading = ok({ lastUpgrade: { version: '4.13.12', state: 'failed', message: 'machine-config stuck' } });
    const r = stepAttempt(at(confirmed(), { state: 'upgrading' }), input(SLOT + H, { reading }));
    expect([r.attempt.state, r.attempt.reason, r.attempt.message]).toEqual(['failed', 'PROVIDER_FAILED', 'machine-config stuck']);
  });

  it('times out at start + upgradeTimeout, keeping the provider state (no effect)', () => {
    const reading = ok({ currentUpgrade: { version: '4.13.12', state: 'started' } });
    expect(stepAttempt(at(confirmed(), { state: 'upgrading' }), input(SLOT + 8 * H, { reading })).attempt.state).toBe('upgrading');
    const r = stepAttempt(at(confirmed(), { state: 'upgrading' }), input(SLOT + 8 * H + 1, { reading }));
    expect([r.attempt.state, r.attempt.reason, r.effects]).toEqual(['timed-out', 'UPGRADE_TIMEOUT', []]);
  });

  it('an upgrade removed at the provider is cancelled REMOVED_AT_PROVIDER', () => {
    const r = stepAttempt(confirmed(), input(SLOT + M));
    expect([r.attempt.state, r.attempt.reason]).toEqual(['cancelled', 'REMOVED_AT_PROVIDER']);
  });

  it('un-managing a cluster whose upgrade the provider holds but has not begun cancels it at the provider', () => {
    const reading = ok({ currentUpgrade: { version: '4.13.12', state: 'scheduled' } });
    const r = stepAttempt(confirmed(), input(SLOT - M, { reading }, { managed: false }));
    expect(r.attempt.state).toBe('cancelled');
    expect(r.effects).toEqual([{ kind: 'cancel-at-provider', idempotencyKey: '7:cancel', version: '4.13.12' }]);
  });

  it('a running upgrade is never cancelled by a fleet change', () => {
    const reading = ok({ currentUpgrade: { version: '4.13.12', state: 'started' } });
    const r = stepAttempt(
      at(confirmed(), { state: 'upgrading' }),
      input(SLOT + M, { reading }, { managed: false, frozen: { reason: null } }),
    );
    expect([r.attempt.state, r.effects]).toEqual(['upgrading', []]);
  });
});

describe('hooks', () => {
  const pending: HookVerdict = { state: 'pending' };
  it('a configured pre-hook is requested once and the start waits for it', () => {
    const r = stepAttempt(fresh(), input(SLOT, { hooks: { pre: pending, post: NONE } }));
    expect(r.attempt.state).toBe('pre-hook');
    expect(r.effects).toEqual([{ kind: 'request-hook', stage: 'pre-upgrade' }]);
    const r2 = stepAttempt(r.attempt, input(SLOT + M, { hooks: { pre: pending, post: NONE } }));
    expect([r2.attempt.state, r2.effects]).toEqual(['pre-hook', []]);
    const r3 = stepAttempt(r2.attempt, input(SLOT + 2 * M, { hooks: { pre: { state: 'allowed' }, post: NONE } }));
    expect(r3.effects.map((e) => e.kind)).toEqual(['start']);
  });

  it('a refusal skips with the hook answer; no verdict by the latest start skips HOOK_TIMEOUT', () => {
    const waiting = at(fresh(), { state: 'pre-hook' });
    const refused = stepAttempt(waiting, input(SLOT, { hooks: { pre: { state: 'refused', reason: 'backup failed' }, post: NONE } }));
    expect([refused.attempt.reason, refused.attempt.message]).toEqual(['HOOK_REFUSED', 'pre-upgrade hook refused: backup failed']);
    expect(stepAttempt(waiting, input(SLOT + H + 1, { hooks: { pre: pending, post: NONE } })).attempt.reason).toBe('HOOK_TIMEOUT');
  });

  it('a refusing post-hook fails the upgrade', () => {
    const reading = ok({ version: '4.13.12' });
    const r = stepAttempt(confirmed(), input(SLOT + H, { reading, hooks: { pre: NONE, post: { state: 'pending' } } }));
    expect(r.attempt.state).toBe('post-hook');
    const r2 = stepAttempt(
      r.attempt,
      input(SLOT + H + M, { reading, hooks: { pre: NONE, post: { state: 'refused', reason: 'app down' } } }),
    );
    expect([r2.attempt.state, r2.attempt.reason]).toEqual(['failed', 'POST_HOOK_FAILED']);
  });
});

it('final attempts never change', () => {
  for (const state of ['completed', 'skipped', 'cancelled', 'failed', 'timed-out'] as const) {
    const done = at(fresh(), { state });
    expect(stepAttempt(done, input(SLOT, {}, { managed: false }))).toEqual({ attempt: done, transitions: [], effects: [] });
  }
});

it('an attempt holds its upgrade in our view only until the provider has taken the start', () => {
  expect(holdsUpgradeInOurView(fresh())).toBe(true);
  expect(holdsUpgradeInOurView(at(fresh(), { state: 'started', startConfirmedAt: null }))).toBe(true);
  expect(holdsUpgradeInOurView(at(fresh(), { state: 'started', startConfirmedAt: SLOT }))).toBe(false);
  expect(holdsUpgradeInOurView(at(fresh(), { state: 'upgrading' }))).toBe(false);
  expect(holdsUpgradeInOurView(at(fresh(), { state: 'skipped' }))).toBe(false);
});

describe('channel switch of a route hop', () => {
  const hop = () => newAttempt(8, 'prod-2', '4.14.38', '4.15.45', SLOT, 'stable-4.15');
  // the old channel does not offer the hop; the new one does
  const onChannel = (channel: string) =>
    ok({ version: '4.14.38', channel, availableUpgrades: channel === 'stable-4.15' ? ['4.14.40', '4.15.45'] : ['4.14.40'] });

  it('the start switches the channel first, as its own effect with its own key, and says so', () => {
    const r = stepAttempt(hop(), input(SLOT, { reading: onChannel('stable-4.14') }));
    expect(r.attempt.state).toBe('started');
    expect(r.effects).toEqual([
      { kind: 'set-channel', idempotencyKey: '8:channel', channel: 'stable-4.15', version: '4.15.45' },
      { kind: 'start', idempotencyKey: '8:start', version: '4.15.45', at: SLOT },
    ]);
    expect(r.transitions.at(-1)?.message).toBe('start of the upgrade to 4.15.45 requested; the channel is switched to stable-4.15 first');
  });

  it('a cluster already on the channel gets the start only', () => {
    const r = stepAttempt(hop(), input(SLOT, { reading: onChannel('stable-4.15') }));
    expect(r.effects).toEqual([{ kind: 'start', idempotencyKey: '8:start', version: '4.15.45', at: SLOT }]);
  });

  it('an unconfirmed start is asked again with the switch only while the channel is still the old one', () => {
    const started = stepAttempt(hop(), input(SLOT, { reading: onChannel('stable-4.14') })).attempt;
    const again = stepAttempt(started, input(SLOT + M, { reading: onChannel('stable-4.14') }));
    expect(again.effects.map((e) => e.kind)).toEqual(['set-channel', 'start']);
    // the switch went through before a crash: the next tick sees the channel and does not switch again
    const switched = stepAttempt(started, input(SLOT + M, { reading: onChannel('stable-4.15') }));
    expect(switched.effects).toEqual([{ kind: 'start', idempotencyKey: '8:start', version: '4.15.45', at: SLOT + M }]);
  });

  it('on the new channel the hop must really be offered', () => {
    const r = stepAttempt(hop(), input(SLOT, { reading: ok({ version: '4.14.38', channel: 'stable-4.15', availableUpgrades: [] }) }));
    expect(r.attempt).toMatchObject({ state: 'skipped', reason: 'NOT_OFFERED' });
    expect(r.effects).toEqual([]);
  });

  it('an attempt without a channel never switches one', () => {
    const r = stepAttempt(fresh(), input(SLOT, { reading: ok({ channel: 'stable-4.12' }) }));
    expect(r.effects.map((e) => e.kind)).toEqual(['start']);
  });
});
