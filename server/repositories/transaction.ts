// One unit of work: services group repository calls in a transaction without knowing the
// driver's transaction type. See README.md in this folder for the contract.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Db } from '@/db/open-database';

type Connection = Db['$client'];

/**
 * Who may use a connection now. better-sqlite3 runs each statement synchronously, but a unit of
 * work awaits between its statements, and everything else on the same connection (another
 * request's reads and writes) would otherwise run inside the open transaction: seen half-written
 * state, or been rolled back with it. So an open transaction owns its connection until it ends;
 * other callers wait their turn (`connectionHeld`), and the owner's own calls (found through
 * AsyncLocalStorage, whichever handle they use) go straight through.
 */
type Turns = { owner: symbol | null; waiting: (() => void)[] };

const turnsOf = new WeakMap<Connection, Turns>();
const ownerOfCall = new AsyncLocalStorage<{ connection: Connection; owner: symbol }>();
let savepoints = 0;

function turns(connection: Connection): Turns {
  let t = turnsOf.get(connection);
  if (!t) turnsOf.set(connection, (t = { owner: null, waiting: [] }));
  return t;
}

function ownsConnection(connection: Connection, t: Turns): boolean {
  const mine = ownerOfCall.getStore();
  return t.owner !== null && mine !== undefined && mine.connection === connection && mine.owner === t.owner;
}

/**
 * Whether another unit of work holds `db`'s connection now. Every repository function starts
 * with `while (connectionHeld(db)) await connectionReleased(db);`: the check is synchronous with
 * the statements after it, so they cannot land inside a transaction that began in between.
 */
export function connectionHeld(db: Db): boolean {
  const t = turnsOf.get(db.$client);
  return t !== undefined && t.owner !== null && !ownsConnection(db.$client, t);
}

/** Resolves when the unit of work holding `db`'s connection ends (check `connectionHeld` again). */
export function connectionReleased(db: Db): Promise<void> {
  const t = turns(db.$client);
  return new Promise<void>((resolve) => t.waiting.push(resolve));
}

/**
 * Runs `work` in one transaction and returns its result; a throw rolls everything back. The
 * handle passed to `work` is a `Db` like any other, so repository functions take it unchanged.
 * A `withTransaction` inside another one, on either handle, becomes a savepoint: an inner failure
 * undoes only the inner writes. `work` should await only repository calls: the connection is
 * closed to everyone else until it ends.
 */
export async function withTransaction<T>(db: Db, work: (db: Db) => Promise<T>): Promise<T> {
  const connection = db.$client;
  const t = turns(connection);
  if (ownsConnection(connection, t)) return savepoint(db, work);
  while (connectionHeld(db)) await connectionReleased(db);
  const owner = Symbol('transaction');
  t.owner = owner;
  try {
    // IMMEDIATE: the write lock is taken at BEGIN. The server's thread and the scheduler's worker
    // write through two connections; a deferred transaction that reads, then writes after the
    // other committed would fail at once with SQLITE_BUSY_SNAPSHOT, where IMMEDIATE waits its turn
    // (busy_timeout) and reads the latest data.
    connection.exec('BEGIN IMMEDIATE');
    let result: T;
    try {
      result = await ownerOfCall.run({ connection, owner }, () => work(db));
    } catch (err) {
      if (connection.inTransaction) connection.exec('ROLLBACK');
      throw err;
    }
    connection.exec('COMMIT');
    return result;
  } finally {
    t.owner = null;
    // Everyone waiting checks again; the first to run takes the connection, the rest wait again.
    for (const wake of t.waiting.splice(0)) wake();
  }
}

async function savepoint<T>(db: Db, work: (db: Db) => Promise<T>): Promise<T> {
  const connection = db.$client;
  const name = `fleetplan_${++savepoints}`;
  connection.exec(`SAVEPOINT ${name}`);
  let result: T;
  try {
    result = await work(db);
  } catch (err) {
    connection.exec(`ROLLBACK TO ${name}`);
    connection.exec(`RELEASE ${name}`);
    throw err;
  }
  connection.exec(`RELEASE ${name}`);
  return result;
}
