/**
 * The server's side of the scheduler's worker thread: starts dist/worker/scheduler-worker.mjs,
 * forwards "run now" ticks to it, keeps the status it reports, restarts it when it dies, and asks
 * it to stop (finishing the tick in progress and releasing the lease) when the server shuts down.
 * It is the SchedulerControl the services get in the app.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { SchedulerControl, SchedulerRuntimeStatus, TickOutcome } from '@/server/services/scheduler-control';
import type { FromSchedulerThread, ToSchedulerThread } from './scheduler-thread-protocol';
import { superviseWorker, type StoppedMessage } from './supervised-worker';

/** where `npm run build` puts the worker's bundle (scripts/build-cli.mjs) */
export function schedulerWorkerFile(root = process.cwd()): string {
  // a file of the build, found at run time: Next's bundler must neither bundle nor trace it
  return path.join(/* turbopackIgnore: true */ root, 'dist', 'worker', 'scheduler-worker.mjs');
}

export interface SchedulerThread extends SchedulerControl {
  stop(graceMs?: number): Promise<void>;
}

/** a worker that died is started again after this long, doubling while it keeps dying (up to a minute) */
const RESTART_AFTER_MS = 5_000;
const MAX_RESTART_AFTER_MS = 60_000;
/** a worker that stays up this long has recovered: the next death waits the first delay again */
const HEALTHY_AFTER_MS = 60_000;
/** a "run now" the worker has not answered by then is given up (a worker stuck in a provider call) */
const RUN_NOW_TIMEOUT_MS = 10 * 60_000;

export function startSchedulerThread(opts: {
  file?: string;
  intervalSeconds: number;
  log?: (line: string) => void;
  restartAfterMs?: number;
  runNowTimeoutMs?: number;
}): SchedulerThread {
  const file = opts.file ?? schedulerWorkerFile();
  if (!fs.existsSync(/* turbopackIgnore: true */ file))
    throw new Error(`the scheduler's worker bundle ${file} is missing: run \`npm run build\``);
  const log = opts.log ?? ((line: string) => console.error(line));
  let status: SchedulerRuntimeStatus = {
    started: false,
    running: false,
    intervalSeconds: opts.intervalSeconds,
    holder: '',
    nextTickAt: null,
    lastResult: null,
    deliveriesInFlight: 0,
  };
  const pending = new Map<number, (outcome: TickOutcome) => void>();
  let nextId = 1;

  const settleAll = (reason: string) => {
    for (const resolve of pending.values()) resolve({ status: 'skipped', reason });
    pending.clear();
  };

  const worker = superviseWorker<ToSchedulerThread, Exclude<FromSchedulerThread, StoppedMessage>>({
    file,
    label: 'fleetplan scheduler: the scheduler thread',
    log,
    restartAfterMs: opts.restartAfterMs ?? RESTART_AFTER_MS,
    maxRestartAfterMs: MAX_RESTART_AFTER_MS,
    healthyAfterMs: HEALTHY_AFTER_MS,
    onMessage: (message) => {
      if (message.kind === 'status') status = message.status;
      else {
        const resolve = pending.get(message.id);
        pending.delete(message.id);
        resolve?.(message.kind === 'tickDone' ? message.outcome : { status: 'skipped', reason: `the tick crashed: ${message.message}` });
      }
    },
    onExit: (code) => {
      settleAll(`the scheduler thread stopped (exit code ${code})`);
      status = { ...status, started: false, running: false, nextTickAt: null, deliveriesInFlight: 0 };
    },
  });

  return {
    runTick(_db, tickOpts) {
      if (worker.stopping) return Promise.resolve({ status: 'skipped', reason: 'the server is shutting down' });
      if (!worker.alive) return Promise.resolve({ status: 'skipped', reason: 'the scheduler thread is starting again after a failure' });
      const id = nextId++;
      return new Promise<TickOutcome>((resolve) => {
        const timeoutMs = opts.runNowTimeoutMs ?? RUN_NOW_TIMEOUT_MS;
        const timer = setTimeout(() => {
          pending.delete(id);
          resolve({ status: 'skipped', reason: `the scheduler thread did not answer within ${Math.round(timeoutMs / 1000)}s` });
        }, timeoutMs);
        timer.unref();
        pending.set(id, (outcome) => {
          clearTimeout(timer);
          resolve(outcome);
        });
        worker.post({ kind: 'runTick', id, dryRun: tickOpts.dryRun });
      });
    },
    runtimeStatus: () => status,
    async stop(graceMs = 10_000) {
      // the worker finishes the tick in progress within graceMs; a second more before it is terminated
      await worker.stop({ kind: 'stop', graceMs }, graceMs + 1_000);
      settleAll('the server is shutting down');
    },
  };
}
