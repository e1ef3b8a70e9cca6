/**
 * A worker thread the server keeps running: started from a bundle of the build, started again
 * when it dies (after a delay that doubles while it keeps dying, back to the first once it stayed
 * up a minute), and stopped on shutdown by a message it answers with `{ kind: 'stopped' }`. The
 * scheduler's thread (scheduler-thread.ts) and the forecast's (forecast-thread.ts) are two of these;
 * each adds its own messages on top.
 */
import { Worker } from 'node:worker_threads';

/** the worker's answer to the stop message; every other message goes to `onMessage` */
export type StoppedMessage = { kind: 'stopped' };

export interface SupervisedWorker<In> {
  /** false between a death and the next start, and after `stop` */
  readonly alive: boolean;
  /** true once `stop` was called */
  readonly stopping: boolean;
  post(message: In): void;
  /**
   * Sends `message` (the worker's own stop) and waits until it answers `stopped` or `forceAfterMs`
   * passed, then terminates it; no start again after this.
   */
  stop(message: In, forceAfterMs: number): Promise<void>;
}

export interface SupervisedWorkerOptions<Out> {
  file: string;
  /** how log lines name it, e.g. `fleetplan scheduler: the scheduler thread` */
  label: string;
  log: (line: string) => void;
  restartAfterMs: number;
  maxRestartAfterMs: number;
  /** a worker that stays up this long has recovered: the next death waits the first delay again */
  healthyAfterMs: number;
  onMessage: (message: Out) => void;
  /** the worker exited (died, or was stopped): settle what it had in hand */
  onExit: (code: number) => void;
}

export function superviseWorker<In, Out extends { kind: string }>(opts: SupervisedWorkerOptions<Out>): SupervisedWorker<In> {
  let worker: Worker;
  let alive = false;
  let stopping = false;
  let stopped: (() => void) | undefined;
  let restartTimer: ReturnType<typeof setTimeout> | undefined;
  let restartDelay = opts.restartAfterMs;
  let startedAt = 0;

  const spawn = () => {
    worker = new Worker(/* turbopackIgnore: true */ opts.file);
    alive = true;
    startedAt = Date.now();
    worker.unref();
    worker.on('message', (message: Out | StoppedMessage) => {
      if (message.kind === 'stopped') stopped?.();
      else opts.onMessage(message as Out);
    });
    worker.on('error', (err) => opts.log(`${opts.label} failed: ${err.stack ?? err.message}`));
    worker.on('exit', (code) => {
      alive = false;
      opts.onExit(code);
      stopped?.();
      if (stopping) return;
      if (Date.now() - startedAt >= opts.healthyAfterMs) restartDelay = opts.restartAfterMs;
      opts.log(`${opts.label} exited (code ${code}); starting it again in ${restartDelay / 1000}s`);
      restartTimer = setTimeout(spawn, restartDelay);
      restartTimer.unref();
      restartDelay = Math.min(restartDelay * 2, Math.max(opts.maxRestartAfterMs, opts.restartAfterMs));
    });
  };
  spawn();

  return {
    get alive() {
      return alive;
    },
    get stopping() {
      return stopping;
    },
    post: (message) => worker.postMessage(message),
    async stop(message, forceAfterMs) {
      if (stopping) return;
      stopping = true;
      clearTimeout(restartTimer);
      if (!alive) return;
      await new Promise<void>((resolve) => {
        const force = setTimeout(resolve, forceAfterMs);
        force.unref();
        stopped = () => {
          clearTimeout(force);
          resolve();
        };
        worker.postMessage(message);
      });
      await worker.terminate();
    },
  };
}
