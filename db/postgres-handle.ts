// A PostgreSQL database behind the same `Db` handle the repositories take on SQLite.
//
// The repositories are written once, against the query builder both drizzle dialects share
// (select/insert/update/delete, awaited), with the table objects of the handle's dialect
// (server/repositories/dialect.ts). Their row types are equal by construction
// (db/schema-dialects.test.ts), so the handle is typed as the SQLite one; what only SQLite's
// driver has (`.all()`, `.get()`, `.run()`, prepared statements on `$client`) must not be used on
// a handle for which `isPostgresHandle` is true.
//
// Transactions: a unit of work (`withTransaction`) runs on one pooled connection, and every query
// made inside it through this handle (whichever copy of the handle the code holds) goes to that
// connection: AsyncLocalStorage knows which unit of work a query belongs to.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Db } from './open-database';
import type { PgDb } from './open-postgres';

type PgTransaction = Parameters<Parameters<PgDb['transaction']>[0]>[0];

// Process-wide, not per module instance: Next bundles server code more than once (instrumentation,
// route handlers), and a handle made by one copy of this module must be known to every other copy,
// its units of work too.
const shared = globalThis as unknown as {
  __fleetplanPostgresHandles?: { unitOfWork: AsyncLocalStorage<{ base: PgDb; tx: PgTransaction }>; bases: WeakMap<object, PgDb> };
};
const { unitOfWork, bases } = (shared.__fleetplanPostgresHandles ??= { unitOfWork: new AsyncLocalStorage(), bases: new WeakMap() });

/** `base` as a `Db`: queries go to the pool, or to the connection of the unit of work they run in. */
export function asFleetplanDb(base: PgDb): Db {
  const handle = new Proxy(base, {
    get(target, prop) {
      // the pool stays the pool: closing it, or telling whose connection it is
      if (prop === '$client') return target.$client;
      const store = unitOfWork.getStore();
      const through: object = store && store.base === target ? store.tx : target;
      const value: unknown = Reflect.get(through, prop);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(through) : value;
    },
  });
  bases.set(handle, base);
  return handle as unknown as Db;
}

export function isPostgresHandle(db: Db): boolean {
  return bases.has(db);
}

/** how often a unit of work is run again after PostgreSQL refused to serialize it */
const SERIALIZATION_RETRIES = 8;

/**
 * Runs `work` in a transaction on one pooled connection (a savepoint inside another one), every
 * query of it through `db` included; a throw rolls back.
 *
 * SERIALIZABLE, run again when PostgreSQL refuses to serialize it: SQLite runs one writing unit of
 * work at a time, so a read-then-write there never loses an update, and the repositories' callers
 * rely on that. Under PostgreSQL's default (READ COMMITTED) two replicas could both read a value
 * and both write theirs. A unit of work talks only to the database (README in
 * server/repositories), so running it again is safe.
 */
export async function inPostgresTransaction<T>(db: Db, work: () => Promise<T>): Promise<T> {
  const base = bases.get(db);
  if (!base) throw new Error('not a PostgreSQL handle');
  const outer = unitOfWork.getStore();
  if (outer && outer.base === base) return outer.tx.transaction((tx) => unitOfWork.run({ base, tx }, work));
  for (let attempt = 1; ; attempt++) {
    try {
      return await base.transaction((tx) => unitOfWork.run({ base, tx }, work), { isolationLevel: 'serializable' });
    } catch (err) {
      const code = (err as { code?: string; cause?: { code?: string } }).code ?? (err as { cause?: { code?: string } }).cause?.code;
      // 40001 serialization_failure, 40P01 deadlock_detected: nothing was committed
      if ((code !== '40001' && code !== '40P01') || attempt >= SERIALIZATION_RETRIES) throw err;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 10 * attempt));
    }
  }
}

/**
 * Runs reads that belong together (a page and its count, a document read in parts) on one pooled
 * connection in a REPEATABLE READ, READ ONLY transaction: one snapshot, so a unit of work that
 * commits between two of them cannot show up in one and not the other. (SQLite gets the same
 * from a read transaction on its one connection.) Inside a unit of work they simply join it.
 * A read-only transaction at this level takes no lock and is never refused for serialization.
 */
export async function inPostgresReadSnapshot<T>(db: Db, work: () => Promise<T>): Promise<T> {
  const base = bases.get(db);
  if (!base) throw new Error('not a PostgreSQL handle');
  const outer = unitOfWork.getStore();
  if (outer && outer.base === base) return work();
  return base.transaction((tx) => unitOfWork.run({ base, tx }, work), { isolationLevel: 'repeatable read', accessMode: 'read only' });
}
