import { describe, expect, it } from 'vitest';
import { isEusToEusRoute } from './eus-procedure';
import { stepAttempt, type UpgradeAttempt } from './machine';
import { ADMIN_GATE, EUS_OPTIONS, EUS_SLOT, EusWorld, confirmCalls, eusAttempt, eusInput, runEus } from './test-eus-world';

const FULL_RUN = [
  'pause:worker',
  'pause:infra',
  'channel:eus-4.16',
  'start:4.15.45',
  `ack:${ADMIN_GATE}`,
  'start:4.16.20',
  'unpause:worker',
  'unpause:infra',
];

describe('isEusToEusRoute', () => {
  it.each([
    [['4.14.38', '4.15.45', '4.16.20'], 'eus-4.16', true],
    [['4.6.30', '4.7.60', '4.8.54'], 'eus-4.8', true],
    // an odd start, a stable channel, a channel of another minor, one hop, three hops
    [['4.15.1', '4.16.2', '4.17.3'], 'eus-4.17', false],
    [['4.14.38', '4.15.45', '4.16.20'], 'stable-4.16', false],
    [['4.14.38', '4.15.45', '4.16.20'], 'eus-4.14', false],
    [['4.14.38', '4.15.45'], 'eus-4.16', false],
    [['4.12.1', '4.13.1', '4.14.1', '4.15.1'], 'eus-4.16', false],
    [['4.14.38', '4.15.45', '4.16.20'], null, false],
  ])('%j on %s → %s', (path, channel, expected) => {
    expect(isEusToEusRoute(path, channel)).toBe(expected);
  });
});

describe('the EUS-to-EUS control-plane-only procedure', () => {
  it('pauses the workers, runs both hops with the admin acknowledgement between them, unpauses and watches the rollout: each write once, in order', () => {
    const world = new EusWorld();
    const run = runEus(world);
    expect(world.writes).toEqual(FULL_RUN);
    expect(run.states).toEqual([
      'scheduled',
      'pre-checks',
      'pausing-workers',
      'control-plane-hop',
      'unpausing-workers',
      'workers-rolling',
      'post-checks',
      'completed',
    ]);
    expect(run.attempt.state).toBe('completed');
    expect(world.version).toBe('4.16.20');
    expect([...world.pools.values()].every((p) => p.version === '4.16.20' && !p.paused)).toBe(true);
    expect(run.messages).toContain('paused worker pools: worker, infra');
    expect(
      run.messages.some((m) => m.startsWith('control plane at 4.15.45 (hop 1/2 completed); worker pools worker, infra stay on 4.14.38')),
    ).toBe(true);
    expect(run.messages.some((m) => m.startsWith(`acknowledging admin gate ${ADMIN_GATE}`))).toBe(true);
    expect(run.messages.some((m) => m.startsWith('workers rolled out to 4.16.20: master 3/3, worker 3/3, infra 3/3'))).toBe(true);
  });

  it("acknowledges the gates the cluster's release declares too (its own minor's only), each once, in name order", () => {
    const world = new EusWorld();
    world.declaredGates = [ADMIN_GATE, 'ack-4.15-storage-migration-in-4.16', 'ack-4.14-not-this-hop'];
    const run = runEus(world);
    expect(world.writes).toEqual([
      'pause:worker',
      'pause:infra',
      'channel:eus-4.16',
      'start:4.15.45',
      `ack:${ADMIN_GATE}`,
      'ack:ack-4.15-storage-migration-in-4.16',
      'start:4.16.20',
      'unpause:worker',
      'unpause:infra',
    ]);
    expect(run.attempt.state).toBe('completed');
  });

  it('workers stay on the old release through both hops: the pools are not rolled twice', () => {
    const world = new EusWorld();
    const seen: string[] = [];
    let attempt: UpgradeAttempt = eusAttempt();
    for (let tick = 0; tick < 40 && attempt.finishedAt === null; tick++) {
      const r = stepAttempt(attempt, eusInput(world, EUS_SLOT + tick * 600_000));
      attempt = r.attempt;
      r.effects.forEach((e) => world.apply(e));
      attempt = confirmCalls(attempt, r.effects, EUS_SLOT + tick * 600_000);
      world.advance();
      seen.push(world.pools.get('worker')!.version);
    }
    // 4.14.38 until the unpause, then straight to 4.16.20: never 4.15.45
    expect(seen).not.toContain('4.15.45');
    expect(seen.at(-1)).toBe('4.16.20');
  });

  it('never unpauses (or pauses) a pool the admin had paused, and does not wait for it to roll', () => {
    const world = new EusWorld([{ name: 'worker' }, { name: 'gpu', paused: true }]);
    const run = runEus(world);
    expect(run.attempt.state).toBe('completed');
    expect(world.writes.filter((w) => w.endsWith(':gpu'))).toEqual([]);
    expect(world.pools.get('gpu')!.paused).toBe(true);
    expect(run.messages[run.messages.findIndex((m) => m.startsWith('EUS-to-EUS'))]).toContain(
      'already paused by the admin, left alone: gpu',
    );
    expect(run.attempt.eusProcedure?.pausedBefore).toEqual(['gpu']);
    expect(run.attempt.eusProcedure?.pausedByUs).toEqual(['worker']);
  });

  it('a degraded pool during the rollout fails the attempt, naming the pool', () => {
    const world = new EusWorld();
    let attempt = eusAttempt();
    for (let tick = 0; tick < 40 && attempt.finishedAt === null; tick++) {
      if (attempt.state === 'workers-rolling') world.pools.get('infra')!.degraded = true;
      const r = stepAttempt(attempt, eusInput(world, EUS_SLOT + tick * 600_000));
      attempt = r.attempt;
      r.effects.forEach((e) => world.apply(e));
      attempt = confirmCalls(attempt, r.effects, EUS_SLOT + tick * 600_000);
      world.advance();
    }
    expect(attempt.state).toBe('failed');
    expect(attempt.reason).toBe('WORKER_POOL_DEGRADED');
    expect(attempt.message).toMatch(/^MachineConfigPool infra is Degraded during the worker rollout/);
  });

  it('pools not rolled out by workerRolloutTimeout fail the attempt with their counts', () => {
    const world = new EusWorld();
    const options = { ...EUS_OPTIONS, eusControlPlaneOnly: { workerRolloutTimeoutMs: 15 * 60_000 } };
    let attempt = eusAttempt();
    for (let tick = 0; tick < 40 && attempt.finishedAt === null; tick++) {
      // the machine-config operator stops making progress once the pools are unpaused
      const r = stepAttempt(attempt, eusInput(world, EUS_SLOT + tick * 600_000, options));
      attempt = r.attempt;
      r.effects.forEach((e) => world.apply(e));
      attempt = confirmCalls(attempt, r.effects, EUS_SLOT + tick * 600_000);
      if (attempt.state !== 'workers-rolling') world.advance();
    }
    expect(attempt.state).toBe('failed');
    expect(attempt.reason).toBe('WORKER_ROLLOUT_TIMEOUT');
    expect(attempt.message).toBe('worker pools not rolled out 15m after the unpause: worker 1/3, infra 1/3');
  });

  it('a removed API still in use holds the second hop (no acknowledgement written); past upgradeTimeout it times out, saying the workers stay paused', () => {
    const world = new EusWorld();
    world.removedApis = [
      {
        resource: 'flowschemas.v1beta2.flowcontrol.apiserver.k8s.io',
        removedInRelease: '1.29',
        users: ['system:serviceaccount:ci:deployer'],
      },
    ];
    const run = runEus(world, { ticks: 200 });
    expect(world.writes).toEqual(['pause:worker', 'pause:infra', 'channel:eus-4.16', 'start:4.15.45']);
    expect(run.attempt.state).toBe('timed-out');
    expect(run.attempt.reason).toBe('UPGRADE_TIMEOUT');
    expect(run.attempt.message).toContain('hop 2/2 to 4.16.20 not started 8h after 4.15.45 completed: REMOVED_API_IN_USE');
    expect(run.attempt.message).toContain('worker pools worker, infra stay paused');
    // the hold is noted once, not every tick
    expect(run.messages.filter((m) => m.startsWith('hop 2/2 to 4.16.20 waits: REMOVED_API_IN_USE'))).toHaveLength(1);
  });

  it('a hop the provider fails fails the attempt and leaves the pools paused (nothing rolled back)', () => {
    const world = new EusWorld();
    world.failing = '4.16.20';
    const run = runEus(world);
    expect(run.attempt.state).toBe('failed');
    expect(run.attempt.reason).toBe('PROVIDER_FAILED');
    expect(run.attempt.message).toMatch(/^hop 2\/2 to 4\.16\.20: ClusterOperator etcd is degraded; worker pools worker, infra stay paused/);
    expect(world.writes).not.toContain('unpause:worker');
  });

  it.each([
    ['pausing-workers', 'before'],
    ['pausing-workers', 'after'],
    ['control-plane-hop', 'before'],
    ['control-plane-hop', 'after'],
    ['unpausing-workers', 'before'],
    ['unpausing-workers', 'after'],
  ] as const)('a crash in %s %s its calls (the step and its intents saved) resumes: every write once, none skipped', (state, when) => {
    const world = new EusWorld();
    const crashes: string[] = [];
    const run = runEus(world, {
      // every step of this state that asks for writes dies before its calls, once each
      crash: (_tick, step) => {
        if (step.attempt.state !== state || step.effects.length === 0) return false;
        const key = step.effects.map((e) => ('idempotencyKey' in e ? e.idempotencyKey : e.kind)).join(',');
        if (crashes.includes(key)) return false;
        crashes.push(key);
        return when;
      },
    });
    expect(crashes.length).toBeGreaterThan(0);
    expect(run.attempt.state).toBe('completed');
    expect(world.writes).toEqual(FULL_RUN);
    // asked again after the crash with the same key: never a new one
    const keys = new Set(run.issued.map((e) => ('idempotencyKey' in e ? e.idempotencyKey : e.kind)));
    expect([...keys].sort()).toEqual(
      [
        '11:pause:worker',
        '11:pause:infra',
        '11:hop1:start',
        `11:ack:${ADMIN_GATE}`,
        '11:hop2:start',
        '11:unpause:worker',
        '11:unpause:infra',
      ].sort(),
    );
  });
});
