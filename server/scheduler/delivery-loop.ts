/**
 * Outbound deliveries (webhook events, blocking-hook calls) run here, beside the scheduler's tick
 * and never inside it: a receiver that hangs holds one of `concurrency` slots until its timeout,
 * while the tick and the other slots go on. Each slot asks `deliverNext` for one due delivery
 * (which claims it in the database, so processes sharing the database never send one twice) and
 * sleeps `idleMs` when nothing is due.
 */

export interface DeliveryLoopOptions {
  /** sends one due delivery; false when nothing was due */
  deliverNext: () => Promise<boolean>;
  concurrency: number;
  /** how long an idle slot waits before it looks again */
  idleMs: number;
  log?: (message: string, err: unknown) => void;
}

export interface DeliveryLoop {
  /** wakes idle slots now (after a tick queued new deliveries) */
  wake(): void;
  /**
   * Stops taking new deliveries and waits up to `graceMs` for the ones being sent; a delivery
   * still in flight then is left to its claim, which lapses so another process retries it.
   */
  stop(graceMs?: number): Promise<void>;
  /** deliveries being sent right now */
  busy(): number;
}

export function startDeliveryLoop(opts: DeliveryLoopOptions): DeliveryLoop {
  let stopped = false;
  let busy = 0;
  const sleepers = new Set<() => void>();
  const log = opts.log ?? ((message, err) => console.error(`fleetplan deliveries: ${message}`, err));

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        sleepers.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      timer.unref?.();
      sleepers.add(done);
    });

  const slot = async () => {
    while (!stopped) {
      let worked = false;
      busy++;
      try {
        worked = await opts.deliverNext();
      } catch (err) {
        log('a delivery failed unexpectedly; the slot goes on', err);
      } finally {
        busy--;
      }
      if (!worked && !stopped) await sleep(opts.idleMs);
    }
  };
  const slots = Array.from({ length: Math.max(1, opts.concurrency) }, () => slot());

  const wakeAll = () => {
    for (const wake of [...sleepers]) wake();
  };
  return {
    wake: wakeAll,
    busy: () => busy,
    async stop(graceMs = 5_000) {
      stopped = true;
      wakeAll();
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        Promise.all(slots),
        new Promise<void>((resolve) => {
          timer = setTimeout(resolve, graceMs);
          timer.unref?.();
        }),
      ]);
      clearTimeout(timer);
    },
  };
}
