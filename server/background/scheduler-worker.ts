/**
 * Entry point of the scheduler's worker thread (bundled by scripts/build-cli.mjs into
 * dist/worker/scheduler-worker.mjs; started by scheduler-thread.ts). It opens its own connection
 * to the database the server uses and runs the background work there: ticks, deliveries, graph
 * refreshes. The server's thread asks it for "run now" ticks and reads its status through
 * messages, so no tick runs on the event loop that answers requests.
 */
import { processHolder } from '@/server/process-holder';
import { parentPort } from 'node:worker_threads';
import { closeDatabase, connectDatabase } from '@/db/connect';
import type { Db } from '@/db/open-database';
import { getEnv } from '@/server/env';
import { startBackgroundWork } from './background-work';
import type { FromSchedulerThread, ToSchedulerThread } from './scheduler-thread-protocol';

/** how often the status (next tick, last result, deliveries in flight) is sent to the server's thread */
const STATUS_EVERY_MS = 1_000;

function main(): void {
  const port = parentPort;
  if (!port) throw new Error('scheduler-worker runs as a worker thread (scheduler-thread.ts starts it)');
  const env = getEnv();
  let db: Db | undefined;
  const getDb = () => (db ??= connectDatabase(env.database));
  const send = (message: FromSchedulerThread) => port.postMessage(message);
  // the holder is the process: a second server process on the same database is another holder
  const work = startBackgroundWork({ getDb, env, holder: processHolder() });
  const sendStatus = () => send({ kind: 'status', status: work.scheduler.runtimeStatus() });
  const statusTimer = setInterval(sendStatus, STATUS_EVERY_MS);
  sendStatus();

  port.on('message', (message: ToSchedulerThread) => {
    if (message.kind === 'runTick') {
      work.scheduler.runTick(getDb(), { dryRun: message.dryRun }).then(
        (outcome) => {
          // the status first: whoever waits for the tick then reads a status that has it
          sendStatus();
          send({ kind: 'tickDone', id: message.id, outcome });
        },
        (err: unknown) => send({ kind: 'tickFailed', id: message.id, message: err instanceof Error ? err.message : String(err) }),
      );
    } else if (message.kind === 'stop') {
      clearInterval(statusTimer);
      void work
        .stop(message.graceMs)
        .then(() => (db ? closeDatabase(db) : undefined))
        .catch(() => undefined)
        .finally(() => {
          send({ kind: 'stopped' });
          port.close();
        });
    }
  });
}

main();
