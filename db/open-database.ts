// Opens a SQLite database, tunes it and applies committed migrations. Used by the app, the CLI,
// the seed script and tests (with ':memory:'); the app goes through db/client.ts.
import Database from 'better-sqlite3';
import { drizzle, type BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import fs from 'node:fs';
import path from 'node:path';
import * as schema from './schema';

export type Db = BetterSQLite3Database<typeof schema> & { $client: Database.Database };

const MIGRATIONS_FOLDER = path.join(process.cwd(), 'db', 'migrations');
export const DEFAULT_DATABASE_FILE = path.join('data', 'fleetplan.db');

/** `DATABASE_URL` may be a path, `file:PATH`, `sqlite:PATH` or `:memory:`. */
export function resolveDatabaseFile(url: string | undefined): string {
  if (!url) return DEFAULT_DATABASE_FILE;
  if (url === ':memory:') return url;
  const stripped = url.replace(/^(file|sqlite):(\/\/)?/, '');
  if (/^[a-z]+:\/\//i.test(url) && stripped === url) {
    throw new Error(`DATABASE_URL '${url}' is not a SQLite location (expected a path or file:PATH)`);
  }
  return stripped;
}

export function openDatabase(file: string, opts: { migrationsFolder?: string } = {}): Db {
  if (file !== ':memory:') fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const sqlite = new Database(file);
  // WAL lets readers run while the scheduler writes; busy_timeout makes a second process wait
  // for the write lock instead of failing at once.
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('synchronous = NORMAL');
  const db = drizzle(sqlite, { schema }) as Db;
  migrate(db, { migrationsFolder: opts.migrationsFolder ?? MIGRATIONS_FOLDER });
  return db;
}
