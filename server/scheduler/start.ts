/**
 * The background scheduler loop, started once per server process from instrumentation.ts.
 * Single-flight: the next tick is chained with setTimeout after the previous one finished, and
 * "run now" goes through the same in-process queue, so ticks never overlap in a process; the
 * database lease (run-tick.ts) keeps a second process from acting at the same time.
 */
import os from 'node:os';
import type { Db } from '@/db/open-database';
import { getEnv, type FleetplanEnv } from '@/server/env';
import { getFleetClock } from '@/server/fleet-clock';
import { createProvider } from '@/server/integrations/providers/create-provider';
import { ensureSimulatorState } from '@/server/integrations/providers/simulator';
import type { FleetProvider } from '@/server/integrations/providers/types';
import { pruneOldTicks, readSetting } from '@/server/repositories/scheduler-repository';
import { deliverDueWebhooks } from '@/server/services/webhook-service';
import { runTick, type TickResult } from './run-tick';

export const SCHEDULER_PAUSED_SETTING = 'scheduler.paused';

interface SchedulerRuntime {
  started: boolean;
  intervalMs: number;
  holder: string;
  queue: Promise<unknown>;
  timer?: ReturnType<typeof setTimeout>;
  running: boolean;
  nextTickAt?: Date;
  lastResult?: TickResult & { at: string };
  provider?: FleetProvider;
  stopped: boolean;
}

const g = globalThis as unknown as { __fleetplanScheduler?: SchedulerRuntime };

function runtime(): SchedulerRuntime {
  g.__fleetplanScheduler ??= {
    started: false,
    intervalMs: tickIntervalMs(),
    holder: `${os.hostname()}:${process.pid}`,
    queue: Promise.resolve(),
    running: false,
    stopped: false,
  };
  return g.__fleetplanScheduler;
}

/** FLEETPLAN_TICK_SECONDS, checked at start-up (server/env.ts) */
export function tickIntervalMs(env: Pick<FleetplanEnv, 'tickSeconds'> = getEnv()): number {
  return env.tickSeconds * 1000;
}

/**
 * The lease outlives a few ticks, so a live scheduler keeps it between ticks, but not much more:
 * a server restarted after a crash (new pid, new holder) takes over within about 3 intervals.
 */
export function leaseTtlMs(intervalMs: number): number {
  return Math.max(30_000, 3 * intervalMs);
}

/** The fleet's clock for the configured provider: the simulator's, or real time. */
export function fleetNow(db: Db, realNow = new Date()): Date {
  if (getEnv().provider.name === 'simulator') {
    ensureSimulatorState(db, realNow);
    return getFleetClock(db)();
  }
  return realNow;
}

/** Ticks that nothing refers to are kept this long (fleet time); older ones are deleted. */
export const TICK_RETENTION_MS = 7 * 24 * 3_600_000;
/** Pruning reads every decision's tick id, so it runs at most once per this much fleet time per database. */
const PRUNE_EVERY_MS = 3_600_000;
const lastPruneAt = new WeakMap<Db, number>();

/**
 * Deletes old tick rows nothing refers to, at most once an hour: without it a tick a minute adds
 * 1,440 rows a day forever. Never fails the tick it follows.
 */
function pruneTicksNowAndThen(db: Db, now: Date): void {
  const last = lastPruneAt.get(db);
  if (last !== undefined && Math.abs(now.getTime() - last) < PRUNE_EVERY_MS) return;
  lastPruneAt.set(db, now.getTime());
  try {
    pruneOldTicks(db, new Date(now.getTime() - TICK_RETENTION_MS));
  } catch (err) {
    console.error('fleetplan scheduler: pruning old ticks failed', err);
  }
}

/** Runs one tick through the process's queue (never concurrently with the loop's tick). */
export function runTickExclusive(db: Db, opts: { dryRun?: boolean; provider?: FleetProvider } = {}): Promise<TickResult> {
  const rt = runtime();
  const job = rt.queue.then(async (): Promise<TickResult> => {
    rt.running = true;
    try {
      const provider = opts.provider ?? (await createProvider(db));
      const now = fleetNow(db);
      const result = await runTick({
        db,
        provider,
        now,
        dryRun: opts.dryRun ?? false,
        holder: rt.holder,
        leaseTtlMs: leaseTtlMs(rt.intervalMs),
        log: (m, d) => console.log(`fleetplan scheduler: ${m}`, JSON.stringify(d ?? {})),
      });
      rt.lastResult = { ...result, at: new Date().toISOString() };
      pruneTicksNowAndThen(db, now);
      await deliverDueWebhooks(db, { realNow: new Date() }).catch((err: unknown) =>
        console.error('fleetplan scheduler: webhook delivery failed', err),
      );
      return result;
    } catch (err) {
      // only provider construction can land here (runTick never throws); keep the loop alive
      const result: TickResult = { status: 'skipped', reason: err instanceof Error ? err.message : String(err) };
      rt.lastResult = { ...result, at: new Date().toISOString() };
      return result;
    } finally {
      rt.running = false;
    }
  });
  rt.queue = job.catch(() => undefined);
  return job;
}

export function getSchedulerRuntimeStatus() {
  const rt = runtime();
  return {
    started: rt.started,
    running: rt.running,
    intervalSeconds: rt.intervalMs / 1000,
    holder: rt.holder,
    nextTickAt: rt.nextTickAt?.toISOString() ?? null,
    lastResult: rt.lastResult ?? null,
  };
}

export function startScheduler(getDb: () => Db): void {
  const rt = runtime();
  if (rt.started) return;
  rt.started = true;
  rt.stopped = false;
  const loop = async () => {
    if (rt.stopped) return;
    try {
      const db = getDb();
      if (readSetting<boolean>(db, SCHEDULER_PAUSED_SETTING)) {
        await deliverDueWebhooks(db, { realNow: new Date() }).catch(() => undefined);
      } else {
        await runTickExclusive(db);
      }
    } catch (err) {
      console.error('fleetplan scheduler: tick crashed; retrying next interval', err);
    } finally {
      if (!rt.stopped) {
        rt.nextTickAt = new Date(Date.now() + rt.intervalMs);
        rt.timer = setTimeout(() => void loop(), rt.intervalMs);
        rt.timer.unref?.();
      }
    }
  };
  rt.nextTickAt = new Date(Date.now() + 2000);
  rt.timer = setTimeout(() => void loop(), 2000);
  rt.timer.unref?.();
  console.log(`fleetplan scheduler: started (provider ${getEnv().provider.name}, every ${rt.intervalMs / 1000}s, holder ${rt.holder})`);
}
