/**
 * The background scheduler loop, started once per server process from instrumentation.ts.
 * Single-flight: the next tick is chained with setTimeout after the previous one finished, and
 * "run now" goes through the same in-process queue, so ticks never overlap in a process; the
 * database lease keeps a second process from acting at the same time.
 *
 * The lease lives 1.5 tick intervals and is renewed at every tick and, while a tick runs, every
 * half interval; a standby whose tick found it held tries again right when it expires. So a
 * standby takes over within two intervals of the holder's death, and at its next tick after the
 * holder shut down (stop() releases the lease).
 *
 * Webhook deliveries and hook calls run in their own loop beside the ticks (delivery-loop.ts).
 * What the loop needs from the rest of the server (sending a delivery, building the provider) is
 * passed in, so the scheduler does not import services.
 */
import { processHolder } from '@/server/process-holder';
import type { Db } from '@/db/open-database';
import { getEnv, type FleetplanEnv } from '@/server/env';
import { getFleetClock } from '@/server/fleet-clock';
import { providerForOrganization } from '@/server/integrations/providers/create-provider';
import type { OrganizationRow } from '@/server/repositories/organization-repository';
import { ensureSimulatorState } from '@/server/integrations/providers/simulator';
import type { FleetProvider } from '@/server/integrations/providers/types';
import {
  getLease,
  pruneOldTicks,
  readSetting,
  releaseLease,
  SCHEDULER_LEASE_NAME,
  SCHEDULER_PAUSED_SETTING,
} from '@/server/repositories/scheduler-repository';
import type { SchedulerControl, SchedulerRuntimeStatus, TickOutcome } from '@/server/services/scheduler-control';
import { startDeliveryLoop, type DeliveryLoop } from './delivery-loop';
import { runTick, type RunTickOptions, type TickResult } from './run-tick';

/** kept here for callers that import it from the scheduler */
export { SCHEDULER_PAUSED_SETTING };

/** FLEETPLAN_TICK_SECONDS, checked at start-up (server/env.ts) */
export function tickIntervalMs(env: Pick<FleetplanEnv, 'tickSeconds'> = getEnv()): number {
  return env.tickSeconds * 1000;
}

/**
 * The lease outlives one interval by half of one: the holder renews it at least every interval,
 * and a standby that retries at its expiry takes over within two intervals of a crash.
 */
export function leaseTtlMs(intervalMs: number): number {
  return Math.round(1.5 * intervalMs);
}

/** The fleet's clock for the configured provider: the simulator's, or real time. */
export async function fleetNow(db: Db, realNow = new Date(), providerName: string = getEnv().provider.name): Promise<Date> {
  if (providerName === 'simulator') {
    await ensureSimulatorState(db, realNow);
    return (await getFleetClock(db))();
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
async function pruneTicksNowAndThen(db: Db, now: Date): Promise<void> {
  const last = lastPruneAt.get(db);
  if (last !== undefined && Math.abs(now.getTime() - last) < PRUNE_EVERY_MS) return;
  lastPruneAt.set(db, now.getTime());
  try {
    await pruneOldTicks(db, new Date(now.getTime() - TICK_RETENTION_MS));
  } catch (err) {
    console.error('fleetplan scheduler: pruning old ticks failed', err);
  }
}

export interface SchedulerLoopOptions {
  /** `host:pid` in the app */
  holder: string;
  intervalMs: number;
  /** builds the provider for a tick; when it throws, the tick is recorded as failed with the reason */
  createProvider?: (db: Db) => Promise<FleetProvider>;
  /** the fleet's clock (default: the configured provider's) */
  fleetNow?: (db: Db) => Date | Promise<Date>;
  /** sends one due webhook delivery or hook call; false when nothing was due (default: no deliveries) */
  deliverNext?: (db: Db, holder: string) => Promise<boolean>;
  /** the blocking hooks the lifecycle asks and waits for (services/hooks); none configured when absent */
  hooks?: Pick<RunTickOptions, 'hookVerdict' | 'requestHook'>;
  /** deliveries sent at the same time (FLEETPLAN_DELIVERY_CONCURRENCY) */
  deliveryConcurrency?: number;
  /** how long an idle delivery slot waits before it looks again */
  deliveryIdleMs?: number;
  /** delay before the first tick (default 2 s) */
  firstTickDelayMs?: number;
  /** whether ticks are paused now (default: the scheduler.paused setting; tests: a stop() arriving meanwhile) */
  pausedNow?: (db: Db) => Promise<boolean>;
  log?: (message: string, detail?: unknown) => void;
  logError?: (message: string, err?: unknown) => void;
}

export interface SchedulerLoop extends SchedulerControl {
  readonly holder: string;
  start(getDb: () => Db): void;
  /** Stops ticking and delivering, waits for the tick in progress (up to `graceMs`) and releases the lease. */
  stop(graceMs?: number): Promise<void>;
  /** one tick through the loop's queue; `provider` replaces the configured one (tests) */
  runTickExclusive(db: Db, opts?: { dryRun?: boolean; provider?: FleetProvider }): Promise<TickResult>;
}

/** A scheduler loop: one per server process in the app; tests make several to play several processes. */
export function createSchedulerLoop(opts: SchedulerLoopOptions): SchedulerLoop {
  const holder = opts.holder;
  const intervalMs = opts.intervalMs;
  const ttlMs = leaseTtlMs(intervalMs);
  const clock = opts.fleetNow ?? (async (db: Db) => await fleetNow(db));
  const log = opts.log ?? ((m, d) => console.log(`fleetplan scheduler: ${m}`, JSON.stringify(d ?? {})));
  const logError = opts.logError ?? ((m, err) => console.error(`fleetplan scheduler: ${m}`, err ?? ''));

  let started = false;
  let stopped = false;
  let running = false;
  let queue: Promise<unknown> = Promise.resolve();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let nextTickAt: Date | undefined;
  let lastResult: (TickResult & { at: string }) | undefined;
  let deliveries: DeliveryLoop | undefined;
  /** the database this loop ticked on last: stop() releases the lease there */
  let db: Db | undefined;

  const runTickExclusive: SchedulerLoop['runTickExclusive'] = (tickDb, tickOpts = {}) => {
    db = tickDb;
    const job = queue.then(async (): Promise<TickResult> => {
      running = true;
      try {
        const dryRun = tickOpts.dryRun ?? false;
        // a provider that cannot be built fails its organization's part of the tick, with the reason
        const built = async (make: () => Promise<FleetProvider | null>) => {
          try {
            return await make();
          } catch (err) {
            const reason = `the provider could not be built: ${err instanceof Error ? err.message : String(err)}`;
            logError(reason);
            throw new Error(reason);
          }
        };
        const providerFor = (org: OrganizationRow, first: boolean) =>
          tickOpts.provider
            ? first
              ? tickOpts.provider
              : null
            : built(() =>
                opts.createProvider
                  ? first
                    ? opts.createProvider(tickDb)
                    : Promise.resolve(null)
                  : providerForOrganization(tickDb, org, first),
              );
        const now = await clock(tickDb);
        const result = await runTick({
          db: tickDb,
          providerFor,
          now,
          dryRun,
          holder,
          leaseTtlMs: ttlMs,
          // long ticks keep the lease: renewed every half interval while this tick runs (never taken over)
          leaseRenewEveryMs: Math.max(50, intervalMs / 2),
          log: (m, d) => log(m, d),
          ...opts.hooks,
        });
        lastResult = { ...result, at: new Date().toISOString() };
        await pruneTicksNowAndThen(tickDb, now);
        deliveries?.wake();
        return result;
      } finally {
        running = false;
      }
    });
    queue = job.catch(() => undefined);
    return job;
  };

  /** When the lease is someone else's, look again right when it expires (but at least once an interval). */
  const delayAfter = async (result: TickResult | undefined, loopDb: Db): Promise<number> => {
    if (result?.status !== 'skipped') return intervalMs;
    const lease = await getLease(loopDb, SCHEDULER_LEASE_NAME);
    if (!lease || lease.holder === holder) return intervalMs;
    const untilExpiry = lease.expiresAt.getTime() - Date.now() + 25;
    return Math.min(intervalMs, Math.max(25, untilExpiry));
  };

  const schedule = (ms: number, loop: () => Promise<void>) => {
    nextTickAt = new Date(Date.now() + ms);
    timer = setTimeout(() => void loop(), ms);
    timer.unref?.();
  };

  const status = (): SchedulerRuntimeStatus => ({
    started,
    running,
    intervalSeconds: intervalMs / 1000,
    holder,
    nextTickAt: nextTickAt?.toISOString() ?? null,
    lastResult: lastResult ? { ...toOutcome(lastResult), at: lastResult.at } : null,
    deliveriesInFlight: deliveries?.busy() ?? 0,
  });

  return {
    holder,
    runTickExclusive,
    runTick: async (tickDb, tickOpts) => toOutcome(await runTickExclusive(tickDb, tickOpts)),
    runtimeStatus: status,
    start(getDb) {
      if (started) return;
      started = true;
      stopped = false;
      db = getDb();
      const deliverNext = opts.deliverNext;
      if (deliverNext) {
        deliveries = startDeliveryLoop({
          deliverNext: () => deliverNext(getDb(), holder),
          concurrency: opts.deliveryConcurrency ?? 4,
          idleMs: opts.deliveryIdleMs ?? 1_000,
          log: (m, err) => logError(m, err),
        });
      }
      const loop = async () => {
        if (stopped) return;
        let result: TickResult | undefined;
        let loopDb: Db | undefined;
        try {
          loopDb = getDb();
          const paused = opts.pausedNow
            ? await opts.pausedNow(loopDb)
            : ((await readSetting<boolean>(loopDb, SCHEDULER_PAUSED_SETTING)) ?? false);
          // stop() may have come while the setting was read: it has released the lease by now, and
          // a tick begun here would take it again after SIGTERM and act while the process exits
          if (!paused && !stopped) result = await runTickExclusive(loopDb);
        } catch (err) {
          logError('tick crashed; retrying next interval', err);
        } finally {
          const delay = loopDb ? await delayAfter(result, loopDb).catch(() => intervalMs) : intervalMs;
          // (checked after the wait for the lease: a stop() during it must not be followed by a tick)
          if (!stopped) schedule(delay, loop);
        }
      };
      schedule(opts.firstTickDelayMs ?? 2_000, loop);
      log(`started (every ${intervalMs / 1000}s, holder ${holder})`);
    },
    async stop(graceMs = 10_000) {
      if (stopped) return;
      stopped = true;
      clearTimeout(timer);
      nextTickAt = undefined;
      let graceTimer: ReturnType<typeof setTimeout> | undefined;
      const grace = new Promise<void>((resolve) => {
        graceTimer = setTimeout(resolve, graceMs);
        graceTimer.unref?.();
      });
      await Promise.all([Promise.race([queue, grace]), deliveries?.stop(graceMs)]);
      clearTimeout(graceTimer);
      // also after "run now" ticks of a loop that was never started: the lease is theirs too
      if (db && !running) {
        try {
          if (await releaseLease(db, SCHEDULER_LEASE_NAME, holder)) log('released the lease');
        } catch (err) {
          logError('releasing the lease failed', err);
        }
      }
      started = false;
    },
  };
}

function toOutcome(result: TickResult): TickOutcome {
  if (result.status === 'succeeded') return { status: 'succeeded', tickId: result.tickId, summary: { ...result.summary } };
  if (result.status === 'failed') return { status: 'failed', tickId: result.tickId, error: result.error };
  return { status: 'skipped', reason: result.reason };
}

// ---- the process's scheduler --------------------------------------------------------------

const g = globalThis as unknown as {
  __fleetplanScheduler?: SchedulerLoop;
  __fleetplanSchedulerControl?: SchedulerControl;
};

/**
 * A loop in this thread for processes that did not hand the services another scheduler (tests,
 * the CLI's server-less use): ticks on request only, no deliveries. Next bundles server code more
 * than once (instrumentation, route handlers), so the one instance lives on globalThis.
 */
export function processScheduler(): SchedulerLoop {
  g.__fleetplanScheduler ??= createSchedulerLoop({
    holder: processHolder(),
    intervalMs: tickIntervalMs(),
    deliveryConcurrency: getEnv().deliveryConcurrency,
  });
  return g.__fleetplanScheduler;
}

/**
 * What the services may ask of this process's scheduler: what instrumentation.ts set up (the
 * worker thread's proxy, or the loop in this thread under `next dev`), else processScheduler().
 */
export function processSchedulerControl(): SchedulerControl {
  return g.__fleetplanSchedulerControl ?? processScheduler();
}

/** The app's scheduler, set up by instrumentation.ts: the services talk to `control`. */
export function useSchedulerControl(control: SchedulerControl): void {
  g.__fleetplanSchedulerControl = control;
}

/** Runs one tick through the process's queue (never concurrently with the loop's tick). */
export function runTickExclusive(db: Db, opts: { dryRun?: boolean; provider?: FleetProvider } = {}): Promise<TickResult> {
  return processScheduler().runTickExclusive(db, opts);
}

/** The key under which scripts/serve.mjs finds what to run before exiting (a plain global: it is not bundled). */
export const SHUTDOWN_HOOKS_KEY = Symbol.for('fleetplan.shutdownHooks');

/** scripts/serve.mjs awaits these before the process exits on SIGTERM/SIGINT (the scheduler's lease is released). */
export function registerShutdownHook(hook: () => Promise<void>): void {
  const holder = globalThis as unknown as Record<symbol, Set<() => Promise<void>> | undefined>;
  const hooks = (holder[SHUTDOWN_HOOKS_KEY] ??= new Set());
  hooks.add(hook);
}
