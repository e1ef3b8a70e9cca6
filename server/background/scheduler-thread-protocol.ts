// The messages between the server's thread and the scheduler's worker thread (scheduler-worker.ts,
// scheduler-thread.ts). Plain data only: they are copied across threads.
import type { SchedulerRuntimeStatus, TickOutcome } from '@/server/services/scheduler-control';

export type ToSchedulerThread = { kind: 'runTick'; id: number; dryRun: boolean } | { kind: 'stop'; graceMs: number };

export type FromSchedulerThread =
  | { kind: 'status'; status: SchedulerRuntimeStatus }
  | { kind: 'tickDone'; id: number; outcome: TickOutcome }
  | { kind: 'tickFailed'; id: number; message: string }
  | { kind: 'stopped' };
