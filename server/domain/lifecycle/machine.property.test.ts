// Property: whatever the provider reports, tick after tick, an attempt never makes the provider
// start an upgrade it already holds, never starts late or early, never starts through a failed
// gate or on an unreadable cluster, and never leaves a final state. After the platform upgrade
// (operator-approvals phase): never approves a plan the policy excludes, never approves before the
// platform upgrade completed, and never approves a plan twice.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { firstFailingGate, NO_FLEET_OBSTACLES, startGates, type FleetConditions } from './gates';
import { ALLOWED_TRANSITIONS, isFinal, newAttempt, stepAttempt, type HookVerdict, type UpgradeAttempt } from './machine';
import type { ClusterReading, ObservedCluster } from './observation';
import { selectPlan, type InstallPlanReading, type InstallPlansReading } from './operator-approvals';
import { DEFAULT_LIFECYCLE_OPTIONS, type LifecycleOptions } from './options';
import { ADMIN_GATE, EusWorld, runEus } from './test-eus-world';

const M = 60_000;
const SLOT = Date.parse('2024-05-07T22:00:00Z');
const FROM = '4.13.10';
const TO = '4.13.12';

const tickArb = fc.record({
  advanceMs: fc.integer({ min: 0, max: 20 * M }),
  readable: fc.oneof({ arbitrary: fc.constant(true), weight: 6 }, { arbitrary: fc.constant(false), weight: 1 }),
  healthy: fc.boolean(),
  alertCritical: fc.boolean(),
  offered: fc.constantFrom('available', 'available', 'available', 'conditional', 'gone'),
  upgradeable: fc.constantFrom('True', 'False', 'Unknown', null),
  otherUpgrade: fc.boolean(),
  /** rare in real fleets (weighted), so runs reach the later states too */
  obstacle: fc.oneof(
    { arbitrary: fc.constant(null), weight: 30 },
    { arbitrary: fc.constantFrom('unmanaged', 'paused', 'frozen', 'excluded', 'blocked', 'halted', 'withdrawn'), weight: 1 },
  ),
  preHook: fc.constantFrom<HookVerdict>({ state: 'none' }, { state: 'pending' }, { state: 'allowed' }, { state: 'refused', reason: 'no' }),
  postHook: fc.constantFrom<HookVerdict>({ state: 'none' }, { state: 'pending' }, { state: 'allowed' }, { state: 'refused', reason: 'no' }),
  /** what the provider does with a start call: takes it, refuses it, or takes it and the process dies before recording so */
  startOutcome: fc.constantFrom('accept', 'throw', 'accept-then-crash'),
  /** the provider moves a held upgrade on: begins it, completes it, fails it, or loses it */
  providerMove: fc.constantFrom('none', 'begin', 'complete', 'fail', 'remove'),
});

interface ProviderState {
  held: 'none' | 'scheduled' | 'started';
  version: string;
  last: ObservedCluster['lastUpgrade'];
  writes: number;
}

describe('lifecycle properties', () => {
  it('no sequence of provider observations starts twice, late, early, with too little notice or through a failed gate', () => {
    fc.assert(
      fc.property(
        fc.array(tickArb, { minLength: 1, maxLength: 40 }),
        fc.integer({ min: 0, max: 15 * M }),
        fc.integer({ min: 0, max: 2 * 60 * M }),
        fc.boolean(),
        fc.constantFrom(0, 0, 5 * M),
        (ticks, startLeadMs, maxDelay, allowConditional, minStartNoticeMs) => {
          const options: LifecycleOptions = {
            ...DEFAULT_LIFECYCLE_OPTIONS,
            maxUpgradeStartDelayMs: maxDelay,
            allowConditionalUpdates: allowConditional,
          };
          const provider: ProviderState = { held: 'none', version: FROM, last: null, writes: 0 };
          let attempt: UpgradeAttempt = newAttempt(1, 'c', FROM, TO, SLOT);
          let now = SLOT - 60 * M;
          ticks.forEach((t, i) => {
            now += t.advanceMs;
            // the provider moves on between ticks (only an upgrade it holds)
            if (provider.held !== 'none') {
              if (t.providerMove === 'begin') provider.held = 'started';
              if (t.providerMove === 'complete' && provider.held === 'started') {
                provider.held = 'none';
                provider.version = TO;
                provider.last = { version: TO, state: 'completed' };
              }
              if (t.providerMove === 'fail' && provider.held === 'started') {
                provider.held = 'none';
                provider.last = { version: TO, state: 'failed', message: 'boom' };
              }
              // someone removes it at the provider. Only once fleetplan has seen it held: removed between
              // an unrecorded write and the next read, it is indistinguishable from a write that never
              // happened, and the start is sent again (the one case exactly-once cannot cover).
              if (t.providerMove === 'remove' && provider.held === 'scheduled' && attempt.startConfirmedAt !== null) provider.held = 'none';
            }
            const cluster: ObservedCluster = {
              version: provider.version,
              availableUpgrades: t.offered === 'available' ? [TO] : [],
              conditionalUpgrades: t.offered === 'conditional' ? [TO] : [],
              upgradeable: t.upgradeable === null ? null : { status: t.upgradeable },
              health: {
                operators: [{ name: 'etcd', degraded: !t.healthy && i % 3 === 0, available: true }],
                alerts: [{ name: 'X', severity: t.alertCritical && i % 5 === 0 ? 'critical' : 'warning' }],
                other: [],
              },
              currentUpgrade:
                provider.held !== 'none'
                  ? { version: TO, state: provider.held }
                  : t.otherUpgrade && i % 7 === 0
                    ? { version: '4.13.11', state: 'started' }
                    : null,
              lastUpgrade: provider.last,
            };
            const reading: ClusterReading = t.readable ? { ok: true, cluster } : { ok: false, message: 'unreachable' };
            const fleet: FleetConditions = {
              managed: t.obstacle !== 'unmanaged',
              paused: t.obstacle === 'paused',
              frozen: t.obstacle === 'frozen' ? { reason: null } : null,
              exclusion: t.obstacle === 'excluded' ? 'excluded' : null,
              blockedBy: t.obstacle === 'blocked' ? 'x' : null,
              haltedBy: t.obstacle === 'halted' ? 'halted' : null,
            };
            const stepInput = {
              now,
              options,
              startLeadMs,
              minStartNoticeMs,
              reading,
              fleet,
              decisionWithdrawn: t.obstacle === 'withdrawn' ? { message: 'withdrawn' } : null,
              hooks: { pre: t.preHook, post: t.postHook },
            };
            const before = attempt;
            const r = stepAttempt(attempt, stepInput);
            if (isFinal(before.state)) expect(r.attempt).toBe(before);
            let from = before.state;
            for (const tr of r.transitions) {
              expect(tr.from).toBe(from);
              expect(ALLOWED_TRANSITIONS[tr.from]).toContain(tr.to);
              from = tr.to;
            }
            attempt = r.attempt;
            for (const e of r.effects) {
              if (e.kind !== 'start') continue;
              // never on data it could not read, never outside the start window
              expect(reading.ok).toBe(true);
              expect(now).toBeGreaterThanOrEqual(SLOT - startLeadMs);
              // the start asked for: never before the slot, never with less notice than the provider
              // takes, never later than the slot plus maxUpgradeStartDelay
              expect(e.at).toBeGreaterThanOrEqual(SLOT);
              expect(e.at).toBeGreaterThanOrEqual(now + minStartNoticeMs);
              expect(e.at).toBeLessThanOrEqual(SLOT + maxDelay);
              // every gate passes on exactly what the machine saw, for the start it asks for
              expect(firstFailingGate(startGates(before, e.at, options, reading, fleet))).toBeNull();
              // the provider is never asked for an upgrade it holds or went through
              expect(provider.held).toBe('none');
              expect(provider.version).toBe(FROM);
              expect(provider.last).toBeNull();
              if (t.startOutcome === 'throw') continue;
              provider.held = 'scheduled';
              provider.writes++;
              if (t.startOutcome === 'accept') attempt = { ...attempt, startConfirmedAt: now };
            }
            expect(provider.writes).toBeLessThanOrEqual(1);
          });
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('a hop that needs another channel switches it at most once, only when the provider reports another one, and never starts before it', () => {
    const CHANNEL = 'stable-4.14';
    const HOP = '4.14.2';
    const hopTick = fc.record({
      advanceMs: fc.integer({ min: 0, max: 20 * M }),
      readable: fc.oneof({ arbitrary: fc.constant(true), weight: 6 }, { arbitrary: fc.constant(false), weight: 1 }),
      /** what the provider does with a switch: takes it, refuses it, or takes it and the process dies before recording so */
      switchOutcome: fc.constantFrom('accept', 'throw', 'accept-then-crash'),
      startOutcome: fc.constantFrom('accept', 'throw', 'accept-then-crash'),
    });
    let switchedRuns = 0;
    fc.assert(
      fc.property(fc.array(hopTick, { minLength: 1, maxLength: 30 }), (ticks) => {
        const provider = { channel: 'stable-4.13', held: false, switches: 0, starts: 0 };
        let attempt: UpgradeAttempt = newAttempt(2, 'c', FROM, HOP, SLOT, CHANNEL);
        let now = SLOT - 10 * M;
        for (const t of ticks) {
          now += t.advanceMs;
          const cluster: ObservedCluster = {
            version: FROM,
            channel: provider.channel,
            // the old channel does not offer the hop; the new one does
            availableUpgrades: provider.channel === CHANNEL ? [HOP] : [],
            conditionalUpgrades: [],
            upgradeable: { status: 'True' },
            health: { operators: [], alerts: [], other: [] },
            currentUpgrade: provider.held ? { version: HOP, state: 'scheduled' } : null,
            lastUpgrade: null,
          };
          const reading: ClusterReading = t.readable ? { ok: true, cluster } : { ok: false, message: 'unreachable' };
          const r = stepAttempt(attempt, {
            now,
            options: DEFAULT_LIFECYCLE_OPTIONS,
            startLeadMs: 0,
            minStartNoticeMs: 0,
            reading,
            fleet: NO_FLEET_OBSTACLES,
            decisionWithdrawn: null,
            hooks: { pre: { state: 'none' }, post: { state: 'none' } },
          });
          attempt = r.attempt;
          const kinds = r.effects.map((e) => e.kind);
          const switchAt = kinds.indexOf('set-channel');
          if (switchAt >= 0) {
            // only on a reading that showed another channel, and always with the start right after it
            expect(reading.ok && reading.cluster.channel !== CHANNEL).toBe(true);
            expect(kinds[switchAt + 1]).toBe('start');
          }
          // the tick: the switch first; a refused switch holds the start
          let switched = true;
          if (switchAt >= 0) {
            if (t.switchOutcome === 'throw') switched = false;
            else {
              provider.channel = CHANNEL;
              provider.switches++;
            }
          }
          if (kinds.includes('start') && switched) {
            // the provider is asked to start only on the hop's channel, and never twice
            expect(provider.channel).toBe(CHANNEL);
            expect(provider.held).toBe(false);
            if (t.startOutcome !== 'throw') {
              provider.held = true;
              provider.starts++;
              if (t.startOutcome === 'accept') attempt = { ...attempt, startConfirmedAt: now };
            }
          }
          expect(provider.switches).toBeLessThanOrEqual(1);
          expect(provider.starts).toBeLessThanOrEqual(1);
        }
        if (provider.starts > 0) switchedRuns++;
      }),
      { numRuns: 1000 },
    );
    // the generator reaches switched starts, not only refusals
    expect(switchedRuns).toBeGreaterThan(100);
  });
});

const OPERATORS = ['gitops', 'logging', 'local-storage', 'quay'];
const approvalTickArb = fc.record({
  advanceMs: fc.integer({ min: 0, max: 20 * M }),
  /** the platform upgrade: still running, or completed (once completed it stays so) */
  completes: fc.boolean(),
  plansReadable: fc.oneof({ arbitrary: fc.constant(true), weight: 5 }, { arbitrary: fc.constant(false), weight: 1 }),
  /** OLM creates a new pending manual plan for one operator (the next step of its channel) */
  newPlanFor: fc.option(fc.constantFrom(...OPERATORS), { nil: null }),
  /** OLM moves approved plans on */
  olmMove: fc.constantFrom('none', 'install', 'complete', 'fail'),
  approveOutcome: fc.constantFrom('accept', 'throw', 'accept-then-crash'),
});

describe('operator-approvals properties', () => {
  it('never approves an excluded operator, never before the platform upgrade completed, never a plan twice', () => {
    fc.assert(
      fc.property(
        fc.array(approvalTickArb, { minLength: 1, maxLength: 40 }),
        fc.subarray(OPERATORS, { minLength: 1 }),
        fc.subarray(OPERATORS),
        fc.boolean(),
        (ticks, included, excluded, star) => {
          const config = { include: star ? ['*'] : included, exclude: excluded, timeoutMs: 60 * M };
          const options: LifecycleOptions = { ...DEFAULT_LIFECYCLE_OPTIONS, operatorApprovals: config };
          let attempt: UpgradeAttempt = {
            ...newAttempt(1, 'c', FROM, TO, SLOT),
            state: 'upgrading',
            startRequestedAt: SLOT,
            startConfirmedAt: SLOT,
          };
          let completed = false;
          let seq = 0;
          const plans: InstallPlanReading[] = [{ ...pendingPlan('gitops', seq++) }];
          /** approvals the cluster took, per plan */
          const writes = new Map<string, number>();
          let now = SLOT;
          for (const t of ticks) {
            now += t.advanceMs;
            if (t.completes) completed = true;
            if (t.newPlanFor) plans.push(pendingPlan(t.newPlanFor, seq++));
            for (const p of plans) {
              if (!p.approved) continue;
              if (t.olmMove === 'install' && p.phase === 'RequiresApproval') p.phase = 'Installing';
              if (t.olmMove === 'complete' && p.phase !== 'Failed') p.phase = 'Complete';
              if (t.olmMove === 'fail' && p.phase === 'Installing') p.phase = 'Failed';
            }
            const cluster: ObservedCluster = {
              version: completed ? TO : FROM,
              availableUpgrades: [],
              conditionalUpgrades: [],
              upgradeable: { status: 'True' },
              health: { operators: [], alerts: [], other: [] },
              currentUpgrade: completed ? null : { version: TO, state: 'started' },
              lastUpgrade: completed ? { version: TO, state: 'completed' } : null,
            };
            const installPlans: InstallPlansReading =
              attempt.state === 'operator-approvals' && t.plansReadable
                ? { state: 'read', plans: plans.map((p) => ({ ...p })) }
                : { state: 'unread' };
            const before = attempt;
            const r = stepAttempt(attempt, {
              now,
              options,
              startLeadMs: 0,
              minStartNoticeMs: 0,
              reading: { ok: true, cluster },
              fleet: NO_FLEET_OBSTACLES,
              decisionWithdrawn: null,
              hooks: { pre: { state: 'none' }, post: { state: 'none' } },
              installPlans,
            });
            let from = before.state;
            for (const tr of r.transitions) {
              expect(tr.from).toBe(from);
              expect(ALLOWED_TRANSITIONS[tr.from]).toContain(tr.to);
              from = tr.to;
            }
            attempt = r.attempt;
            const keys = new Set<string>();
            for (const e of r.effects) {
              if (e.kind !== 'approve-installplan') continue;
              // only after the platform upgrade, in the phase, on plans it read
              expect(completed).toBe(true);
              expect(before.state).toBe('operator-approvals');
              expect(installPlans.state).toBe('read');
              const p = plans.find((x) => x.name === e.name)!;
              // never an operator the policy excludes (or does not include)
              expect(selectPlan(config, p).approve).toBe(true);
              expect(p.subscriptions.some((s) => excluded.includes(s.name))).toBe(false);
              // one effect per plan per step, keyed by the plan
              expect(keys.has(e.idempotencyKey)).toBe(false);
              keys.add(e.idempotencyKey);
              expect(e.idempotencyKey).toBe(`1:approve:${p.namespace}/${p.name}`);
              if (t.approveOutcome === 'throw') continue;
              // the cluster takes the approval (a dumb model: it counts every write)
              writes.set(e.name, (writes.get(e.name) ?? 0) + 1);
              p.approved = true;
              if (t.approveOutcome === 'accept' && attempt.operatorApprovals)
                attempt = {
                  ...attempt,
                  operatorApprovals: {
                    ...attempt.operatorApprovals,
                    approved: attempt.operatorApprovals.approved.map((a) => (a.name === e.name ? { ...a, confirmedAt: now } : a)),
                  },
                };
            }
            for (const [name, n] of writes) expect(n, `${name} approved ${n} times`).toBeLessThanOrEqual(1);
          }
        },
      ),
      { numRuns: 1000 },
    );
  });
});

function pendingPlan(operator: string, seq: number): InstallPlanReading {
  return {
    namespace: 'openshift-operators',
    name: `install-${operator}-${seq}`,
    approval: 'Manual',
    approved: false,
    phase: 'RequiresApproval',
    csvNames: [`${operator}.v${seq}`],
    subscriptions: [{ namespace: 'openshift-operators', name: operator, package: operator }],
  };
}

describe('property: the EUS-to-EUS procedure, whatever ticks the process dies in', () => {
  it('makes every write once, in the order pause < hop 1 < acknowledgement < hop 2 < unpause, and completes', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom<'before' | 'after' | false>(false, false, 'before', 'after'), { minLength: 40, maxLength: 40 }),
        fc.boolean(),
        (crashes, adminPausedPool) => {
          const world = new EusWorld(adminPausedPool ? [{ name: 'worker' }, { name: 'gpu', paused: true }] : [{ name: 'worker' }]);
          const run = runEus(world, { ticks: 120, crash: (tick) => crashes[tick % crashes.length] ?? false });
          expect(run.attempt.state).toBe('completed');
          expect(new Set(world.writes).size).toBe(world.writes.length);
          const order = ['pause:worker', 'channel:eus-4.16', 'start:4.15.45', `ack:${ADMIN_GATE}`, 'start:4.16.20', 'unpause:worker'];
          expect(world.writes).toEqual(order);
          // the pool the admin paused is never written to
          expect(world.pools.get('gpu')?.paused ?? true).toBe(true);
        },
      ),
      { numRuns: 150 },
    );
  });
});
