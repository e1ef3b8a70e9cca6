/**
 * What the scheduler service may ask of the running scheduler loop. The loop (server/scheduler)
 * implements it and is handed in by whoever builds the services, so services never import the
 * scheduler and the scheduler never imports services (each side gets the other's collaborators
 * injected).
 */
import type { Db } from '@/db/open-database';

export type TickOutcome =
  | { status: 'skipped'; reason: string }
  | { status: 'succeeded'; tickId: number; summary: { durationMs: number } & Record<string, number> }
  | { status: 'failed'; tickId: number; error: string };

export interface SchedulerRuntimeStatus {
  /** the loop runs in this process */
  started: boolean;
  /** a tick is running in this process */
  running: boolean;
  intervalSeconds: number;
  /** who this process is when it holds the lease (`host:pid`) */
  holder: string;
  nextTickAt: string | null;
  lastResult: (TickOutcome & { at: string }) | null;
  /** webhook deliveries and hook calls being sent now by this process */
  deliveriesInFlight: number;
}

export interface SchedulerControl {
  /** one tick now, through the loop's queue (never beside another tick of this process) */
  runTick(db: Db, opts: { dryRun: boolean }): Promise<TickOutcome>;
  runtimeStatus(): SchedulerRuntimeStatus;
}

/** For processes without a scheduler loop (CLI, tests): ticks are refused, the status says so. */
export const NO_SCHEDULER: SchedulerControl = {
  runTick: () => Promise.resolve({ status: 'skipped', reason: 'no scheduler runs in this process' }),
  runtimeStatus: () => ({
    started: false,
    running: false,
    intervalSeconds: 0,
    holder: '',
    nextTickAt: null,
    lastResult: null,
    deliveriesInFlight: 0,
  }),
};
