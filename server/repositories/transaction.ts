// One unit of work: services group repository calls in a transaction without knowing the
// driver's transaction type. See README.md in this folder for the contract.
import type { Db } from '@/db/open-database';

/**
 * Runs `work` in one transaction and returns its result; a throw rolls everything back. The
 * handle passed to `work` is a `Db` like any other, so repository functions take it unchanged,
 * and a nested `withTransaction` on it becomes a savepoint. SQLite transactions are synchronous:
 * `work` must not await.
 */
export function withTransaction<T>(db: Db, work: (db: Db) => T): T {
  // The transaction shares the connection, so the raw handle (prepared statements) stays valid.
  return db.transaction((tx) => work(Object.assign(tx, { $client: db.$client })));
}
