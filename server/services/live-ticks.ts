// Finished scheduler ticks as they happen, for the pages' live updates (GET /api/live). One source
// per process, shared by every open page: on PostgreSQL the leader's NOTIFY (whichever replica
// leads), heard on one LISTEN connection; on SQLite, or while that connection is being made again,
// the latest finished tick read once a second.
import type { Db } from '@/db/open-database';
import { latestFinishedTick, listenForFinishedTicks } from '@/server/repositories/scheduler-repository';

export type FinishedTick = { id: number; finishedAt: string };
type Listener = (tick: FinishedTick) => void;

/** how often the latest tick is read where no notification comes */
export const LIVE_TICKS_POLL_MS = 1_000;
/** how long after a broken LISTEN connection it is made again (reads fill the gap) */
const RELISTEN_AFTER_MS = 5_000;

interface Hub {
  listeners: Set<Listener>;
  last: number;
  stop: () => void;
}

const hubs = ((globalThis as unknown as { __fleetplanLiveTicks?: WeakMap<object, Hub> }).__fleetplanLiveTicks ??= new WeakMap());

/** Calls `listener` with each tick finished after now (in order, each once); returns the unsubscribe. */
export function watchFinishedTicks(db: Db, listener: Listener): () => void {
  let hub = hubs.get(db.$client);
  if (!hub) {
    hub = startHub(db);
    hubs.set(db.$client, hub);
  }
  hub.listeners.add(listener);
  const mine = hub;
  return () => {
    mine.listeners.delete(listener);
    if (mine.listeners.size === 0 && hubs.get(db.$client) === mine) {
      hubs.delete(db.$client);
      mine.stop();
    }
  };
}

function startHub(db: Db): Hub {
  const hub: Hub = { listeners: new Set(), last: Number.POSITIVE_INFINITY, stop: () => undefined };
  let stopped = false;
  let listening: { stop(): Promise<void> } | null = null;
  let poll: ReturnType<typeof setInterval> | undefined;
  let relisten: ReturnType<typeof setTimeout> | undefined;

  const announce = (tick: FinishedTick) => {
    if (tick.id <= hub.last) return;
    hub.last = tick.id;
    for (const listener of hub.listeners) listener(tick);
  };
  const readLatest = async () => {
    let latest: Awaited<ReturnType<typeof latestFinishedTick>>;
    try {
      latest = await latestFinishedTick(db);
    } catch {
      return; // the database did not answer: the next read tries again
    }
    // the first read is the baseline (no tick yet: 0): only ticks finished after it are news
    if (hub.last === Number.POSITIVE_INFINITY) hub.last = latest?.id ?? 0;
    else if (latest) announce({ id: latest.id, finishedAt: latest.finishedAt.toISOString() });
  };
  const startPolling = () => {
    poll ??= setInterval(() => void readLatest(), LIVE_TICKS_POLL_MS);
    poll.unref?.();
  };
  const stopPolling = () => {
    if (poll) clearInterval(poll);
    poll = undefined;
  };
  const listen = async () => {
    try {
      listening = await listenForFinishedTicks(db, announce, () => {
        // the connection broke: read meanwhile, listen again shortly
        void listening?.stop();
        listening = null;
        startPolling();
        if (!stopped) relisten = setTimeout(() => void listen(), RELISTEN_AFTER_MS);
      });
    } catch {
      listening = null;
      if (!stopped) relisten = setTimeout(() => void listen(), RELISTEN_AFTER_MS);
      startPolling();
      return;
    }
    if (stopped) {
      await listening?.stop();
      return;
    }
    if (listening) {
      stopPolling();
      await readLatest(); // what finished while no one listened
    } else startPolling(); // SQLite
  };

  void readLatest().then(() => listen());
  hub.stop = () => {
    stopped = true;
    stopPolling();
    if (relisten) clearTimeout(relisten);
    void listening?.stop();
  };
  return hub;
}
