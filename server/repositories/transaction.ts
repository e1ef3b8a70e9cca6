// One unit of work: services group repository calls in a transaction without knowing the
// driver's transaction type. See README.md in this folder for the contract.
import type { Db } from '@/db/open-database';

/**
 * Runs `work` in one transaction and returns its result; a throw rolls everything back. The
 * handle passed to `work` is a `Db` like any other, so repository functions take it unchanged.
 * A `withTransaction` inside another one, on either handle, becomes a savepoint: an inner failure
 * undoes only the inner writes. SQLite transactions are synchronous: `work` must not await.
 */
export function withTransaction<T>(db: Db, work: (db: Db) => T): T {
  // better-sqlite3's own transaction function: BEGIN … COMMIT on the connection, or a SAVEPOINT
  // when the connection is in a transaction already. Every query of the connection (drizzle's and
  // prepared statements alike) runs inside it, so the handle itself is the transaction's.
  // IMMEDIATE: the write lock is taken at BEGIN. The server's thread and the scheduler's worker
  // write through two connections; a deferred transaction that reads, then writes after the other
  // committed would fail at once with SQLITE_BUSY_SNAPSHOT, where IMMEDIATE waits its turn
  // (busy_timeout) and reads the latest data. Nested, it is a savepoint as before.
  return db.$client.transaction(() => work(db)).immediate();
}
