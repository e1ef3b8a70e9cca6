/**
 * The server's side of the scheduler's worker thread: starts dist/worker/scheduler-worker.mjs,
 * forwards "run now" ticks to it, keeps the status it reports, restarts it when it dies, and asks
 * it to stop (finishing the tick in progress and releasing the lease) when the server shuts down.
 * It is the SchedulerControl the services get in the app.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { SchedulerControl, SchedulerRuntimeStatus, TickOutcome } from '@/server/services/scheduler-control';
import type { FromSchedulerThread, ToSchedulerThread } from './scheduler-thread-protocol';

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
  let stopping = false;
  let worker: Worker;
  let alive = false;
  let stopped: (() => void) | undefined;
  let restartTimer: ReturnType<typeof setTimeout> | undefined;
  const firstDelay = opts.restartAfterMs ?? RESTART_AFTER_MS;
  let restartDelay = firstDelay;
  let startedAt = 0;

  const settleAll = (reason: string) => {
    for (const resolve of pending.values()) resolve({ status: 'skipped', reason });
    pending.clear();
  };

  const spawn = () => {
    worker = new Worker(/* turbopackIgnore: true */ file);
    alive = true;
    startedAt = Date.now();
    worker.unref();
    worker.on('message', (message: FromSchedulerThread) => {
      if (message.kind === 'status') status = message.status;
      else if (message.kind === 'tickDone' || message.kind === 'tickFailed') {
        const resolve = pending.get(message.id);
        pending.delete(message.id);
        resolve?.(message.kind === 'tickDone' ? message.outcome : { status: 'skipped', reason: `the tick crashed: ${message.message}` });
      } else if (message.kind === 'stopped') stopped?.();
    });
    worker.on('error', (err) => log(`fleetplan scheduler: the scheduler thread failed: ${err.stack ?? err.message}`));
    worker.on('exit', (code) => {
      alive = false;
      settleAll(`the scheduler thread stopped (exit code ${code})`);
      status = { ...status, started: false, running: false, nextTickAt: null, deliveriesInFlight: 0 };
      stopped?.();
      if (stopping) return;
      if (Date.now() - startedAt >= HEALTHY_AFTER_MS) restartDelay = firstDelay;
      log(`fleetplan scheduler: the scheduler thread exited (code ${code}); starting it again in ${restartDelay / 1000}s`);
      restartTimer = setTimeout(spawn, restartDelay);
      restartTimer.unref();
      restartDelay = Math.min(restartDelay * 2, Math.max(MAX_RESTART_AFTER_MS, firstDelay));
    });
  };
  spawn();

  const post = (message: ToSchedulerThread) => worker.postMessage(message);

  return {
    runTick(_db, tickOpts) {
      if (stopping) return Promise.resolve({ status: 'skipped', reason: 'the server is shutting down' });
      if (!alive) return Promise.resolve({ status: 'skipped', reason: 'the scheduler thread is starting again after a failure' });
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
        post({ kind: 'runTick', id, dryRun: tickOpts.dryRun });
      });
    },
    runtimeStatus: () => status,
    async stop(graceMs = 10_000) {
      if (stopping) return;
      stopping = true;
      clearTimeout(restartTimer);
      if (!alive) return;
      await new Promise<void>((resolve) => {
        const force = setTimeout(resolve, graceMs + 1_000);
        force.unref();
        stopped = () => {
          clearTimeout(force);
          resolve();
        };
        post({ kind: 'stop', graceMs });
      });
      await worker.terminate();
      settleAll('the server is shutting down');
    },
  };
}
