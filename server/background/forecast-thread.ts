/**
 * The server's side of the forecast's worker thread: starts dist/worker/forecast-worker.mjs,
 * sends it the Forecast page's requests and hands back its answers, starts it again when it dies,
 * and stops it when the server shuts down. It is the ForecastOffload the forecast service gets in
 * the app (forecast-service.ts), so a forecast's seconds of CPU never run on the request thread, and
 * the MetricsOffload of /api/metrics (a scrape at 10k clusters is another such second).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { MetricsOffload, MetricsScrapeOptions } from '@/server/metrics/collect-fleet-metrics';
import { AppError } from '@/server/services/app-error';
import type { ForecastOffload, ForecastRunInput, ForecastRunOutput } from '@/server/services/forecast-service';
import type { PolicyDraft } from '@/server/services/policies/evaluate-draft';
import type { ForecastImpact } from '@/server/services/policies/preview-forecast-impact';
import type { FromForecastThread, ToForecastThread } from './forecast-thread-protocol';
import { superviseWorker, type StoppedMessage } from './supervised-worker';

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** where `npm run build` puts the worker's bundle (scripts/build-worker.mjs) */
export function forecastWorkerFile(root = process.cwd()): string {
  // a file of the build, found at run time: Next's bundler must neither bundle nor trace it
  return path.join(/* turbopackIgnore: true */ root, 'dist', 'worker', 'forecast-worker.mjs');
}

/** Also renders /api/metrics scrapes: like a forecast, seconds of CPU at 10k clusters read from the database. */
export interface ForecastThread extends ForecastOffload, MetricsOffload {
  stop(): Promise<void>;
}

/** a worker that died is started again after this long, doubling while it keeps dying (up to a minute) */
const RESTART_AFTER_MS = 2_000;
const MAX_RESTART_AFTER_MS = 60_000;
const HEALTHY_AFTER_MS = 60_000;
/** a forecast not answered by then is given up (the router's request would have been abandoned long before) */
const ANSWER_TIMEOUT_MS = 3 * 60_000;
/** how long a stopping worker may take to close its database before it is terminated */
const STOP_GRACE_MS = 2_000;

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
  const pending = new Map<number, Pending>();
  let nextId = 1;

  const rejectAll = (message: string) => {
    for (const p of pending.values()) p.reject(new Error(message));
    pending.clear();
  };

  const worker = superviseWorker<ToForecastThread, Exclude<FromForecastThread, StoppedMessage>>({
    file,
    label: 'fleetplan forecast: the forecast thread',
    log: opts.log ?? ((line: string) => console.error(line)),
    restartAfterMs: opts.restartAfterMs ?? RESTART_AFTER_MS,
    maxRestartAfterMs: MAX_RESTART_AFTER_MS,
    healthyAfterMs: HEALTHY_AFTER_MS,
    onMessage: (message) => {
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
    },
    onExit: (code) => rejectAll(`the forecast thread stopped (exit code ${code}); try again in a moment`),
  });

  /** sends a request and waits for its answer (of the type the request's kind answers with) */
  const ask = <T>(request: DistributiveOmit<Extract<ToForecastThread, { id: number }>, 'id'>): Promise<T> => {
    if (worker.stopping) return Promise.reject(new Error('the server is shutting down'));
    if (!worker.alive) return Promise.reject(new Error('the forecast thread is starting again after a failure; try again in a moment'));
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
      worker.post({ ...request, id });
    });
  };

  return {
    run: (organizationId: number, input: ForecastRunInput, atMs: number) =>
      ask<ForecastRunOutput>({ kind: 'run', organizationId, input, atMs }),
    impact: (organizationId: number, draft: PolicyDraft, atMs: number) =>
      ask<ForecastImpact>({ kind: 'impact', organizationId, draft, atMs }),
    renderMetrics: (atMs: number, metricsOpts: MetricsScrapeOptions) => ask<string>({ kind: 'metrics', atMs, opts: metricsOpts }),
    async stop() {
      await worker.stop({ kind: 'stop' }, STOP_GRACE_MS);
      rejectAll('the server is shutting down');
    },
  };
}
