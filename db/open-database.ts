// Opens a SQLite database, tunes it and applies committed migrations. Used by the app, the CLI,
// the seed script and tests (with ':memory:'); the app goes through db/client.ts.
import Database from 'better-sqlite3';
import { drizzle, type BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import fs from 'node:fs';
import path from 'node:path';
import { DatabaseOpenError } from './database-open-error';
import * as schema from './schema';

export type Db = BetterSQLite3Database<typeof schema> & { $client: Database.Database };

export const MIGRATIONS_FOLDER = path.join(process.cwd(), 'db', 'migrations');
/** owner read/write only: the database holds password hashes, token hashes and webhook secrets */
export const PRIVATE_FILE_MODE = 0o600;
const PRIVATE_DIRECTORY_MODE = 0o700;

export { DatabaseOpenError };
export { DEFAULT_DATABASE_FILE, resolveDatabaseFile } from './database-location';

function ownedByThisProcess(stat: fs.Stats): boolean {
  return typeof process.getuid !== 'function' || stat.uid === process.getuid();
}

/**
 * Creates `file` empty with mode 0600 when missing (its directory 0700 when missing), and narrows
 * an existing file of ours that others could read. SQLite gives the -wal, -shm and -journal files
 * the main file's permissions, so they follow. Creating the file ourselves (rather than a process
 * umask) also works in worker threads, where process.umask() cannot be set.
 */
export function ensurePrivateFile(file: string): void {
  const dir = path.dirname(path.resolve(file));
  if (!fs.existsSync(dir)) fs.mkdirSync(dir, { recursive: true, mode: PRIVATE_DIRECTORY_MODE });
  fs.closeSync(fs.openSync(file, 'a', PRIVATE_FILE_MODE));
  for (const f of [file, `${file}-wal`, `${file}-shm`, `${file}-journal`]) {
    let stat: fs.Stats;
    try {
      stat = fs.statSync(f);
    } catch {
      continue;
    }
    if (stat.isFile() && (stat.mode & 0o077) !== 0 && ownedByThisProcess(stat)) fs.chmodSync(f, PRIVATE_FILE_MODE);
  }
}

/** A clear reason why `file` cannot be used as the database, before SQLite gives a vaguer one. */
function describeUnusablePath(file: string): string | null {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch {
    return null;
  }
  if (stat.isDirectory()) return 'it is a directory, not a database file';
  if (!stat.isFile()) return 'it is not a regular file';
  return null;
}

export function openDatabase(file: string, opts: { migrationsFolder?: string } = {}): Db {
  let sqlite: Database.Database | undefined;
  try {
    if (file !== ':memory:') {
      const unusable = describeUnusablePath(file);
      if (unusable) throw new DatabaseOpenError(`cannot open the database ${file}: ${unusable}`);
      ensurePrivateFile(file);
    }
    sqlite = new Database(file);
    // WAL lets readers run while the scheduler writes; busy_timeout makes a second process wait
    // for the write lock instead of failing at once.
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('busy_timeout = 5000');
    sqlite.pragma('foreign_keys = ON');
    sqlite.pragma('synchronous = NORMAL');
  } catch (err) {
    sqlite?.close();
    if (err instanceof DatabaseOpenError) throw err;
    const why = err instanceof Error ? err.message : String(err);
    throw new DatabaseOpenError(`cannot open the database ${file}: ${why} (is DATABASE_URL right?)`, { cause: err });
  }
  const db = wrapConnection(sqlite);
  try {
    migrate(db, { migrationsFolder: opts.migrationsFolder ?? MIGRATIONS_FOLDER });
  } catch (err) {
    sqlite.close();
    const why = err instanceof Error ? err.message : String(err);
    throw new DatabaseOpenError(`cannot migrate the database ${file}: ${why}`, { cause: err });
  }
  return db;
}

/** The typed query interface over an already open connection (a backup copy being checked, say). */
export function wrapConnection(sqlite: Database.Database): Db {
  return drizzle(sqlite, { schema });
}
