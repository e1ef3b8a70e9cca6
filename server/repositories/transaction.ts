// One unit of work: services group repository calls in a transaction without knowing the
// driver's transaction type. See README.md in this folder for the contract.
import { AsyncLocalStorage } from 'node:async_hooks';
import { sql } from 'drizzle-orm';
import type { Db } from '@/db/open-database';
import { inPostgresReadSnapshot, inPostgresTransaction, isPostgresHandle } from '@/db/postgres-handle';
import { pgRun } from './postgres-statement';

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

// Process-wide, not per module instance: Next bundles server code more than once (instrumentation,
// route handlers), and a unit of work begun through one copy of this module must hold the
// connection against callers of every other copy.
const shared = globalThis as unknown as {
  __fleetplanConnectionTurns?: {
    turnsOf: WeakMap<Connection, Turns>;
    ownerOfCall: AsyncLocalStorage<{ connection: Connection; owner: symbol }>;
    savepoints: { count: number };
  };
};
const { turnsOf, ownerOfCall, savepoints } = (shared.__fleetplanConnectionTurns ??= {
  turnsOf: new WeakMap(),
  ownerOfCall: new AsyncLocalStorage(),
  savepoints: { count: 0 },
});

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
  // (a PostgreSQL pool is never in the map: each caller has a connection of its own)
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
  // PostgreSQL: a pooled connection of its own; the pool serves everyone else meanwhile
  if (isPostgresHandle(db)) return inPostgresTransaction(db, () => work(db));
  const connection = db.$client;
  const t = turns(connection);
  if (ownsConnection(connection, t)) return savepoint(db, work);
  const owner = Symbol('transaction');
  await beginImmediate(db, t, owner);
  try {
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

/**
 * Runs reads that await between them (a page and its count, a document read in parts) as one
 * read: on SQLite the connection is held for them, so no unit of work's uncommitted rows show up
 * in between, inside a read transaction (one snapshot, no write lock). Inside a unit of work they
 * simply join it. On PostgreSQL: one read-only snapshot on a pooled connection (inPostgresReadSnapshot).
 */
export async function readTogether<T>(db: Db, work: () => Promise<T>): Promise<T> {
  if (isPostgresHandle(db)) return inPostgresReadSnapshot(db, work);
  const connection = db.$client;
  const t = turns(connection);
  if (ownsConnection(connection, t)) return work();
  while (connectionHeld(db)) await connectionReleased(db);
  // synchronous from the check to BEGIN (deferred: a read takes no lock)
  const owner = Symbol('read');
  connection.exec('BEGIN');
  t.owner = owner;
  try {
    return await ownerOfCall.run({ connection, owner }, work);
  } finally {
    if (connection.inTransaction) connection.exec('COMMIT');
    t.owner = null;
    for (const wake of t.waiting.splice(0)) wake();
  }
}

/**
 * BEGIN IMMEDIATE as soon as no unit of work holds the connection and no other connection (the
 * scheduler's thread, another process) holds the file's write lock. The write lock is taken at
 * BEGIN: the server's thread and the scheduler's worker write through two connections, and a
 * deferred transaction that reads, then writes after the other committed would fail at once with
 * SQLITE_BUSY_SNAPSHOT, where IMMEDIATE waits its turn and reads the latest data.
 * It waits by awaiting, never in the driver: better-sqlite3 would block the thread for up to the
 * connection's busy_timeout, and the unit holding the lock may be on this very thread (a second
 * connection in one process), which could then never finish. Gives up after the connection's
 * busy_timeout, as the driver would. Takes the connection for `owner` in the same step.
 */
async function beginImmediate(db: Db, t: Turns, owner: symbol): Promise<void> {
  const connection = db.$client;
  const patienceMs = connection.pragma('busy_timeout', { simple: true }) as number;
  const giveUpAt = Date.now() + patienceMs;
  for (let attempt = 0; ; attempt++) {
    while (connectionHeld(db)) await connectionReleased(db);
    // synchronous from the check above to BEGIN: nothing else on this connection runs in between
    try {
      connection.pragma('busy_timeout = 0');
      connection.exec('BEGIN IMMEDIATE');
      t.owner = owner; // before anything else on this thread runs
      return;
    } catch (err) {
      if ((err as { code?: string }).code !== 'SQLITE_BUSY' || Date.now() >= giveUpAt) throw err;
    } finally {
      connection.pragma(`busy_timeout = ${patienceMs}`);
    }
    await new Promise((resolve) => setTimeout(resolve, Math.min(2 ** attempt, 25)));
  }
}

async function savepoint<T>(db: Db, work: (db: Db) => Promise<T>): Promise<T> {
  const connection = db.$client;
  const name = `fleetplan_${++savepoints.count}`;
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

/**
 * Inside a unit of work: waits until no other process's unit of work holds the lock `name`, and
 * holds it until this one ends (PostgreSQL: an advisory transaction lock, released at commit or
 * rollback). For work that replicas starting together must do once, such as seeding an empty
 * database. On SQLite the write lock already makes units of work take turns.
 */
export async function holdReplicaLock(db: Db, name: string): Promise<void> {
  if (!isPostgresHandle(db)) return;
  await pgRun(db, sql`select pg_advisory_xact_lock(hashtext(${`fleetplan ${name}`}))`);
}
