/**
 * Test support (not used by the app): a small cluster that answers the EUS-to-EUS procedure's
 * effects as the Kubernetes provider does — each write re-reads first and is not sent when the
 * cluster is already so — and logs every write it really makes. Between ticks the cluster-version
 * operator finishes a running hop and the machine-config operator rolls unpaused pools.
 */
import { NO_FLEET_OBSTACLES, type FleetConditions } from './gates';
import { newAttempt, stepAttempt, type LifecycleEffect, type StepInput, type UpgradeAttempt } from './machine';
import type { MachineConfigPoolReading, ObservedCluster } from './observation';
import { newEusProgress } from './eus-procedure';
import { DEFAULT_LIFECYCLE_OPTIONS, DEFAULT_WORKER_ROLLOUT_TIMEOUT_MS, type LifecycleOptions } from './options';
import type { RemovedApiUse } from './inhibitors';

export const EUS_SLOT = Date.parse('2025-03-04T22:00:00Z');
export const EUS_ROUTE = ['4.14.38', '4.15.45', '4.16.20'];
export const ADMIN_GATE = 'ack-4.15-kube-1.29-api-removals-in-4.16';
export const EUS_OPTIONS: LifecycleOptions = {
  ...DEFAULT_LIFECYCLE_OPTIONS,
  eusControlPlaneOnly: { workerRolloutTimeoutMs: DEFAULT_WORKER_ROLLOUT_TIMEOUT_MS },
};

interface Pool {
  paused: boolean;
  machineCount: number;
  /** the release its machines run */
  version: string;
  /** ticks left rolling after its unpause */
  rolling: number;
  degraded: boolean;
}

export class EusWorld {
  version = EUS_ROUTE[0]!;
  channel = 'eus-4.14';
  running: string | null = null;
  last: { version: string; state: 'completed' | 'failed'; message?: string } | null = null;
  acks = new Set<string>();
  pools = new Map<string, Pool>();
  removedApis: RemovedApiUse[] = [];
  /** every write really made, in order: `pause:worker`, `channel:eus-4.16`, `start:4.15.45`, `ack:GATE`, `unpause:worker` */
  writes: string[] = [];
  /** the hop that fails at the provider instead of completing */
  failing: string | null = null;
  /** the admin gates the release declares (openshift-config-managed/admin-gates); undefined: not read */
  declaredGates: string[] | undefined = undefined;

  constructor(pools: { name: string; paused?: boolean; machines?: number }[] = [{ name: 'worker' }, { name: 'infra' }]) {
    this.pools.set('master', { paused: false, machineCount: 3, version: this.version, rolling: 0, degraded: false });
    for (const p of pools)
      this.pools.set(p.name, {
        paused: p.paused ?? false,
        machineCount: p.machines ?? 3,
        version: this.version,
        rolling: 0,
        degraded: false,
      });
  }

  /** what the cluster offers: the next release of the route on an eus channel of the target's minor */
  private offers(): string[] {
    const i = EUS_ROUTE.indexOf(this.version);
    if (i < 0 || i === EUS_ROUTE.length - 1) return [];
    return this.channel === 'eus-4.16' ? [EUS_ROUTE[i + 1]!] : [];
  }

  observe(): ObservedCluster {
    const pools: MachineConfigPoolReading[] = [...this.pools].map(([name, p]) => {
      const behind = p.version !== this.version;
      const updated = !behind && p.rolling === 0;
      return {
        name,
        master: name === 'master',
        paused: p.paused,
        machineCount: p.machineCount,
        updatedMachineCount: updated ? p.machineCount : p.rolling > 0 ? 1 : 0,
        degradedMachineCount: p.degraded ? 1 : 0,
        updated,
        updating: p.rolling > 0,
        degraded: p.degraded,
      };
    });
    // the cluster-version operator holds a minor update behind an admin gate not acknowledged
    const gates = (this.declaredGates ?? [ADMIN_GATE]).filter((g) => g.startsWith('ack-4.15-'));
    const missing = this.version.startsWith('4.15.') ? gates.filter((g) => !this.acks.has(g)) : [];
    const gated = missing.length > 0;
    return {
      version: this.version,
      channel: this.channel,
      availableUpgrades: this.offers(),
      conditionalUpgrades: [],
      upgradeable: gated ? { status: 'False', message: `AdminAckRequired: ${missing.join(', ')}` } : { status: 'True' },
      health: { operators: [], alerts: [], other: [] },
      currentUpgrade: this.running ? { version: this.running, state: 'started' } : null,
      lastUpgrade: this.last,
      inhibitors: { operators: [], removedApis: this.removedApis },
      machineConfigPools: pools,
      ...(this.declaredGates ? { adminGates: this.declaredGates } : {}),
    };
  }

  /** carries an effect out as the provider would (re-read first: nothing is written twice) */
  apply(effect: LifecycleEffect): void {
    if (effect.kind === 'set-pool-paused') {
      const pool = this.pools.get(effect.pool);
      if (!pool || pool.paused === effect.paused) return;
      pool.paused = effect.paused;
      this.writes.push(`${effect.paused ? 'pause' : 'unpause'}:${effect.pool}`);
      if (!effect.paused && pool.version !== this.version) pool.rolling = 2;
    } else if (effect.kind === 'admin-ack') {
      if (this.acks.has(effect.gate)) return;
      this.acks.add(effect.gate);
      this.writes.push(`ack:${effect.gate}`);
    } else if (effect.kind === 'start-hop') {
      if (effect.channel && this.channel !== effect.channel.name) {
        this.channel = effect.channel.name;
        this.writes.push(`channel:${effect.channel.name}`);
      }
      if (this.running === effect.version || this.version === effect.version) return;
      if (!this.offers().includes(effect.version)) throw new Error(`${effect.version} is not offered`);
      this.running = effect.version;
      this.writes.push(`start:${effect.version}`);
    }
  }

  /** time passes: a running hop ends, unpaused pools roll on (the master pool follows the control plane) */
  advance(): void {
    if (this.running) {
      if (this.running === this.failing)
        this.last = { version: this.running, state: 'failed', message: 'ClusterOperator etcd is degraded' };
      else {
        this.last = { version: this.running, state: 'completed' };
        this.version = this.running;
        this.pools.get('master')!.version = this.version;
      }
      this.running = null;
    }
    for (const p of this.pools.values()) {
      if (p.paused || p.degraded) continue;
      if (p.rolling > 0) {
        p.rolling--;
        if (p.rolling === 0) p.version = this.version;
      } else if (p.version !== this.version) p.rolling = 2;
    }
  }
}

/** What run-tick's carryOutEusEffects records once calls returned (acks and hop starts confirmed). */
export function confirmCalls(attempt: UpgradeAttempt, effects: readonly LifecycleEffect[], at: number): UpgradeAttempt {
  let progress = attempt.eusProcedure;
  if (!progress) return attempt;
  let startConfirmedAt = attempt.startConfirmedAt;
  for (const e of effects) {
    if (e.kind === 'admin-ack')
      progress = {
        ...progress,
        acks: progress.acks.map((a) => (a.gate === e.gate && a.confirmedAt === null ? { ...a, confirmedAt: at } : a)),
      };
    if (e.kind === 'start-hop') {
      progress = {
        ...progress,
        hops: progress.hops.map((h, i) => (i === e.hop && h.confirmedAt === null ? { ...h, confirmedAt: at } : h)),
      };
      startConfirmedAt ??= at;
    }
  }
  return { ...attempt, startConfirmedAt, eusProcedure: progress };
}

export function eusAttempt(): UpgradeAttempt {
  return newAttempt(11, 'eus-1', EUS_ROUTE[0]!, EUS_ROUTE[2]!, EUS_SLOT, null, newEusProgress(EUS_ROUTE, 'eus-4.16'));
}

export function eusInput(world: EusWorld, now: number, options = EUS_OPTIONS, fleet: Partial<FleetConditions> = {}): StepInput {
  return {
    now,
    options,
    startLeadMs: 0,
    minStartNoticeMs: 0,
    reading: { ok: true, cluster: world.observe() },
    fleet: { ...NO_FLEET_OBSTACLES, ...fleet },
    decisionWithdrawn: null,
    hooks: { pre: { state: 'none' }, post: { state: 'none' } },
  };
}

/** Steps the attempt tick by tick (10 min apart) until final or `ticks` run out; `crash` true drops that step's calls. */
export function runEus(
  world: EusWorld,
  opts: {
    ticks?: number;
    /** `before`: the process dies after saving the step (its intents), before any call; `after`: after the calls, before recording their answers */
    crash?: (tick: number, step: { attempt: UpgradeAttempt; effects: LifecycleEffect[] }) => 'before' | 'after' | false;
    options?: LifecycleOptions;
    start?: UpgradeAttempt;
  } = {},
): { attempt: UpgradeAttempt; states: string[]; messages: string[]; issued: LifecycleEffect[] } {
  let attempt = opts.start ?? eusAttempt();
  const states: string[] = [attempt.state];
  const messages: string[] = [];
  const issued: LifecycleEffect[] = [];
  for (let tick = 0; tick < (opts.ticks ?? 60) && attempt.finishedAt === null; tick++) {
    const r = stepAttempt(attempt, eusInput(world, EUS_SLOT + tick * 10 * 60_000, opts.options));
    attempt = r.attempt;
    for (const t of r.transitions) {
      if (t.to !== states.at(-1)) states.push(t.to);
      messages.push(t.message);
    }
    issued.push(...r.effects);
    const crash = opts.crash?.(tick, r) ?? false;
    if (crash !== 'before') for (const e of r.effects) world.apply(e);
    // as the tick does: a call that returned confirms its acknowledgement or hop start on the attempt
    if (crash === false) attempt = confirmCalls(attempt, r.effects, EUS_SLOT + tick * 10 * 60_000);
    world.advance();
  }
  return { attempt, states, messages, issued };
}
