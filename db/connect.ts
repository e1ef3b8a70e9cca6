// Opens the database DATABASE_URL names, whichever kind it is, behind the one `Db` handle the
// repositories take: SQLite (db/open-database.ts, migrated on open) or PostgreSQL
// (db/open-postgres.ts + db/postgres-handle.ts, migrated under an advisory lock).
import type { Pool } from 'pg';
import { describeDatabase, type DatabaseLocation } from './database-location';
import { openDatabase, type Db } from './open-database';
import { migratePostgres, openPostgres, withMigrationLock } from './open-postgres';
import { asFleetplanDb, isPostgresHandle } from './postgres-handle';

export type { DatabaseLocation };

/**
 * A handle on `location` at once. SQLite is migrated as it opens; a PostgreSQL pool connects on
 * its first query and is not migrated here: start-up (`prepareDatabase`) and the CLI migrate it
 * with `openDatabaseAt` before anything else uses it. For the server's lazily opened handle and
 * its worker threads.
 */
export function connectDatabase(location: DatabaseLocation, opts: { poolSize?: number } = {}): Db {
  if (location.kind === 'sqlite') return openDatabase(location.file);
  return asFleetplanDb(openPostgres(location.url, { max: opts.poolSize }));
}

/** A handle on `location`, migrated (PostgreSQL: under the migration lock, so replicas starting together migrate once). */
export async function openDatabaseAt(location: DatabaseLocation, opts: { poolSize?: number } = {}): Promise<Db> {
  if (location.kind === 'sqlite') return openDatabase(location.file);
  const base = openPostgres(location.url, { max: opts.poolSize });
  try {
    await migratePostgres(base);
  } catch (err) {
    await base.$client.end().catch(() => undefined);
    throw err;
  }
  return asFleetplanDb(base);
}

/**
 * Runs start-up's first-start writes (an empty database's organization or demo fleet, the first
 * admin) under the migration lock on PostgreSQL, so replicas starting together on an empty
 * database make them once: the second finds them made. SQLite has one server per file: `work` as it is.
 */
export async function holdingStartupLock<T>(db: Db, work: () => Promise<T>): Promise<T> {
  if (!isPostgresHandle(db)) return await work();
  return await withMigrationLock(db.$client as unknown as Pool, () => work());
}

/** Closes `db`: SQLite's connection, or PostgreSQL's pool once its queries are done. */
export async function closeDatabase(db: Db): Promise<void> {
  if (isPostgresHandle(db)) await (db.$client as unknown as { end(): Promise<void> }).end();
  else db.$client.close();
}

export { describeDatabase };
