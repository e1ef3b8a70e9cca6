// Opens a PostgreSQL database (DATABASE_URL=postgres://…) and applies its committed migrations
// (db/pg-migrations, from db/pg-schema.ts) under a lock, so replicas starting together migrate it
// once. The server itself still runs on SQLite (db/open-database.ts) until the repositories are
// asynchronous; today `fleetplan migrate-db` and the tests use this.
import { drizzle, type NodePgDatabase } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import path from 'node:path';
import { Pool, type PoolClient } from 'pg';
import { DatabaseOpenError } from './database-open-error';
import { isPostgresUrl, redactPostgresUrl } from './database-location';

export { isPostgresUrl, redactPostgresUrl };
import * as pgSchema from './pg-schema';

export type PgDb = NodePgDatabase<typeof pgSchema> & { $client: Pool };

export const PG_MIGRATIONS_FOLDER = path.join(process.cwd(), 'db', 'pg-migrations');
/**
 * The key of the session-level advisory lock held while migrating: a constant every fleetplan
 * process shares (the first 8 bytes of sha256("fleetplan migrations"), as a signed bigint), and
 * that no other application of the same database is likely to use.
 */
export const MIGRATION_LOCK_KEY = '5824482907522274216';

/** A pool on `url`; no connection is made until the first query. */
export function openPostgres(url: string, opts: { max?: number } = {}): PgDb {
  if (!isPostgresUrl(url))
    throw new DatabaseOpenError(`'${redactPostgresUrl(url)}' is not a PostgreSQL URL (expected postgres://USER@HOST:PORT/DATABASE)`);
  try {
    new URL(url);
  } catch {
    throw new DatabaseOpenError(`'${redactPostgresUrl(url)}' is not a valid PostgreSQL URL`);
  }
  const pool = new Pool({ connectionString: url, max: opts.max ?? 10 });
  // an idle client whose server went away must not crash the process; the next query reports it
  pool.on('error', () => undefined);
  return drizzle(pool, { schema: pgSchema });
}

/**
 * Runs `work` holding `pg_advisory_lock(MIGRATION_LOCK_KEY)` on one dedicated connection of
 * `pool` (given to `work`): a second process waits for the lock meanwhile. The lock is the
 * session's, so it also ends if the connection dies mid-way.
 */
export async function withMigrationLock<T>(pool: Pool, work: (client: PoolClient) => Promise<T>): Promise<T> {
  let client: PoolClient | undefined;
  let broken: Error | undefined;
  try {
    client = await pool.connect();
    await client.query('select pg_advisory_lock($1::bigint)', [MIGRATION_LOCK_KEY]);
    try {
      return await work(client);
    } finally {
      await client.query('select pg_advisory_unlock($1::bigint)', [MIGRATION_LOCK_KEY]);
    }
  } catch (err) {
    broken = err instanceof Error ? err : new Error(String(err));
    throw err;
  } finally {
    // a connection that failed mid-way is closed, not reused: that also drops any lock it held
    client?.release(broken);
  }
}

/**
 * Applies the migrations not yet applied under the migration lock: a second process waits for
 * the lock, then finds every migration applied and does nothing.
 */
export async function migratePostgres(db: PgDb, opts: { migrationsFolder?: string } = {}): Promise<void> {
  try {
    await withMigrationLock(db.$client, (client) =>
      migrate(drizzle(client, { schema: pgSchema }), { migrationsFolder: opts.migrationsFolder ?? PG_MIGRATIONS_FOLDER }),
    );
  } catch (err) {
    const where = redactPostgresUrl(db.$client.options.connectionString ?? 'PostgreSQL');
    throw new DatabaseOpenError(`cannot migrate the database ${where}: ${err instanceof Error ? err.message : String(err)}`, {
      cause: err,
    });
  }
}
