/**
 * The server's side of the forecast's worker thread: starts dist/worker/forecast-worker.mjs,
 * sends it the Forecast page's requests and hands back its answers, starts it again when it dies,
 * and stops it when the server shuts down. It is the ForecastOffload the forecast service gets in
 * the app (forecast-service.ts), so a forecast's seconds of CPU never run on the request thread.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { AppError } from '@/server/services/app-error';
import type { ForecastOffload, ForecastRunInput, ForecastRunOutput } from '@/server/services/forecast-service';
import type { PolicyDraft } from '@/server/services/policies/evaluate-draft';
import type { ForecastImpact } from '@/server/services/policies/preview-forecast-impact';
import type { FromForecastThread, ToForecastThread } from './forecast-thread-protocol';

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** where `npm run build` puts the worker's bundle (scripts/build-worker.mjs) */
export function forecastWorkerFile(root = process.cwd()): string {
  // a file of the build, found at run time: Next's bundler must neither bundle nor trace it
  return path.join(/* turbopackIgnore: true */ root, 'dist', 'worker', 'forecast-worker.mjs');
}

export interface ForecastThread extends ForecastOffload {
  stop(): Promise<void>;
}

/** a worker that died is started again after this long, doubling while it keeps dying (up to a minute) */
const RESTART_AFTER_MS = 2_000;
const MAX_RESTART_AFTER_MS = 60_000;
const HEALTHY_AFTER_MS = 60_000;
/** a forecast not answered by then is given up (the router's request would have been abandoned long before) */
const ANSWER_TIMEOUT_MS = 3 * 60_000;

type Pending = { resolve: (output: never) => void; reject: (err: Error) => void };

// `opts` has no default: with `= {}` Turbopack folds `opts.file` away, follows the path to the
// bundle into `new Worker(...)` despite the ignore comment, and fails the build on every file of
// the project as a worker entry.
export function startForecastThread(opts: {
  file?: string;
  log?: (line: string) => void;
  restartAfterMs?: number;
  answerTimeoutMs?: number;
  /** told after each walk of the thread's warm list */
  onWarmed?: (forecasts: number) => void;
}): ForecastThread {
  const file = opts.file ?? forecastWorkerFile();
  if (!fs.existsSync(/* turbopackIgnore: true */ file))
    throw new Error(`the forecast's worker bundle ${file} is missing: run \`npm run build\``);
  const log = opts.log ?? ((line: string) => console.error(line));
  const pending = new Map<number, Pending>();
  let nextId = 1;
  let stopping = false;
  let alive = false;
  let worker: Worker;
  let stopped: (() => void) | undefined;
  let restartTimer: ReturnType<typeof setTimeout> | undefined;
  const firstDelay = opts.restartAfterMs ?? RESTART_AFTER_MS;
  let restartDelay = firstDelay;
  let startedAt = 0;

  const rejectAll = (message: string) => {
    for (const p of pending.values()) p.reject(new Error(message));
    pending.clear();
  };

  const spawn = () => {
    worker = new Worker(/* turbopackIgnore: true */ file);
    alive = true;
    startedAt = Date.now();
    worker.unref();
    worker.on('message', (message: FromForecastThread) => {
      if (message.kind === 'stopped') {
        stopped?.();
        return;
      }
      if (message.kind === 'warmed') {
        opts.onWarmed?.(message.forecasts);
        return;
      }
      const p = pending.get(message.id);
      pending.delete(message.id);
      if (!p) return;
      if (message.kind === 'done') p.resolve(message.output as never);
      else
        p.reject(
          message.code
            ? new AppError(message.code, message.message, message.problems)
            : new Error(`the forecast failed: ${message.message}`),
        );
    });
    worker.on('error', (err) => log(`fleetplan forecast: the forecast thread failed: ${err.stack ?? err.message}`));
    worker.on('exit', (code) => {
      alive = false;
      rejectAll(`the forecast thread stopped (exit code ${code}); try again in a moment`);
      stopped?.();
      if (stopping) return;
      if (Date.now() - startedAt >= HEALTHY_AFTER_MS) restartDelay = firstDelay;
      log(`fleetplan forecast: the forecast thread exited (code ${code}); starting it again in ${restartDelay / 1000}s`);
      restartTimer = setTimeout(spawn, restartDelay);
      restartTimer.unref();
      restartDelay = Math.min(restartDelay * 2, Math.max(MAX_RESTART_AFTER_MS, firstDelay));
    });
  };
  spawn();

  const post = (message: ToForecastThread) => worker.postMessage(message);

  /** sends a request and waits for its answer (of the type the request's kind answers with) */
  const ask = <T>(request: DistributiveOmit<Extract<ToForecastThread, { id: number }>, 'id'>): Promise<T> => {
    if (stopping) return Promise.reject(new Error('the server is shutting down'));
    if (!alive) return Promise.reject(new Error('the forecast thread is starting again after a failure; try again in a moment'));
    const id = nextId++;
    return new Promise<T>((resolve, reject) => {
      const timeoutMs = opts.answerTimeoutMs ?? ANSWER_TIMEOUT_MS;
      const timer = setTimeout(() => {
        pending.delete(id);
        reject(new Error(`the forecast thread did not answer within ${Math.round(timeoutMs / 1000)}s`));
      }, timeoutMs);
      timer.unref();
      pending.set(id, {
        resolve: (output: T) => {
          clearTimeout(timer);
          resolve(output);
        },
        reject: (err) => {
          clearTimeout(timer);
          reject(err);
        },
      });
      post({ ...request, id });
    });
  };

  return {
    run: (organizationId: number, input: ForecastRunInput, atMs: number) =>
      ask<ForecastRunOutput>({ kind: 'run', organizationId, input, atMs }),
    impact: (organizationId: number, draft: PolicyDraft, atMs: number) =>
      ask<ForecastImpact>({ kind: 'impact', organizationId, draft, atMs }),
    async stop() {
      if (stopping) return;
      stopping = true;
      clearTimeout(restartTimer);
      if (!alive) return;
      await new Promise<void>((resolve) => {
        const force = setTimeout(resolve, 2_000);
        force.unref();
        stopped = () => {
          clearTimeout(force);
          resolve();
        };
        post({ kind: 'stop' });
      });
      await worker.terminate();
      rejectAll('the server is shutting down');
    },
  };
}
