// `fleetplan restore FILE`: replaces the database with a backup, only when the backup is exactly a
// fleetplan database and nothing has the database open.
//
// - The file is copied first (hashed while copying) to a private temporary file beside the
//   database; every check runs on that copy, so the file cannot change between check and use.
// - Refused: anything without a SQLite header, a file with a write-ahead log beside it (a live
//   database or an unfinished copy), a failed integrity or foreign-key check, and any schema that
//   is not this build's (db/database-schema.ts: tables, columns, indexes, no extra triggers or views,
//   drizzle's migration history).
// - "A server is running" is SQLite's own lock: every fleetplan process keeps its connection open
//   in WAL mode (scripts/start.mjs for its whole life, the app and scheduler from the first use),
//   and leaving WAL mode needs every other connection closed. The lock is the kernel's, so it
//   cannot go stale after a crash the way a pid file or heartbeat row can, and it covers any
//   process that has the file open (a second server, a running `fleetplan import`), with or
//   without the scheduler. The lock is held from that check until the file is swapped.
// - The restored database gets an audit row (who: OS user, when, which file, its sha256) and no
//   sessions: sign-ins that ended after the backup was taken must not come back to life.
// - The swap is atomic (rename over the old file); the result is mode 0600 with no -wal/-shm.
import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseDatabaseUrl, redactPostgresUrl } from '@/db/database-location';
import { PRIVATE_FILE_MODE, wrapConnection } from '@/db/open-database';
import { restorePostgres } from './postgres-backup';
import { recordRestore } from '@/server/repositories/database-restore-repository';
import {
  assertSqliteFile,
  checkIntegrity,
  countRows,
  fsyncDirectory,
  fsyncFile,
  makeSelfContained,
  SIDECAR_SUFFIXES,
} from './backup-command';
import { CliFailure, UsageError, parseFileArgs } from './cli-errors';
import { verifyFleetplanSchema } from '@/db/database-schema';
import { osUserName } from './os-user';

const USAGE =
  'usage: fleetplan restore FILE   (replaces DATABASE_URL: a SQLite file, default data/fleetplan.db, or postgres://… through pg_restore; stop every server first)';
export const RESTORE_AUDIT_ACTION = 'database.restore';

export interface RestoreOptions {
  /** the audit row's time (real time by default) */
  now?: () => Date;
  /** the OS user named in the audit row */
  osUser?: string;
}

export interface RestoreResult {
  counts: Record<string, number>;
  sha256: string;
  bytes: number;
}

/** copies `from` to a new private file `to`, returning the sha256 and size of what was copied */
function copyHashing(from: string, to: string): { sha256: string; bytes: number } {
  const hash = createHash('sha256');
  const input = fs.openSync(from, 'r');
  let output: number | undefined;
  try {
    output = fs.openSync(to, 'wx', PRIVATE_FILE_MODE);
    const buffer = Buffer.alloc(1 << 20);
    let bytes = 0;
    for (;;) {
      const read = fs.readSync(input, buffer, 0, buffer.length, null);
      if (read === 0) break;
      hash.update(buffer.subarray(0, read));
      fs.writeSync(output, buffer, 0, read);
      bytes += read;
    }
    fs.fsyncSync(output);
    return { sha256: hash.digest('hex'), bytes };
  } finally {
    fs.closeSync(input);
    if (output !== undefined) fs.closeSync(output);
  }
}

function isBusy(err: unknown): boolean {
  const code = (err as { code?: unknown }).code;
  return code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED';
}

/**
 * Opens the live database and takes its exclusive lock, failing when any other connection has it
 * open: a WAL database can only leave WAL mode when its connection is the last one. The caller
 * closes the handle to release the lock. `null` when there is no database yet.
 */
export function lockLiveDatabase(target: string): Database.Database | null {
  if (!fs.existsSync(target)) return null;
  if (fs.statSync(target).isDirectory()) throw new CliFailure(`DATABASE_URL ${target} is a directory, not a database file`);
  let live: Database.Database | undefined;
  try {
    live = new Database(target, { fileMustExist: true, timeout: 0 });
    live.pragma('journal_mode = DELETE');
    live.pragma('locking_mode = EXCLUSIVE');
    live.exec('BEGIN EXCLUSIVE');
    return live;
  } catch (err) {
    live?.close();
    if (isBusy(err)) {
      throw new CliFailure(
        `another process has ${target} open (a running fleetplan server, or a command still at work); stop it, then restore again`,
      );
    }
    const why = err instanceof Error ? err.message : String(err);
    throw new CliFailure(`the current database ${target} cannot be opened (${why}); move it aside (mv it elsewhere), then restore again`);
  }
}

/** the checks that make a copy acceptable; throws CliFailure naming every problem found */
function verifyCopy(copy: Database.Database, backup: string): void {
  const integrity = checkIntegrity(copy);
  if (integrity !== 'ok') throw new CliFailure(`${backup} is damaged (integrity check: ${integrity.slice(0, 300)})`);
  const verdict = verifyFleetplanSchema(copy);
  if (!verdict.ok) throw new CliFailure(`${backup} is not a fleetplan backup of this version: ${verdict.problems.join('; ')}`);
  const orphans = copy.pragma('foreign_key_check') as unknown[];
  if (orphans.length > 0) throw new CliFailure(`${backup} has ${orphans.length} row(s) whose foreign keys point nowhere`);
}

export function restoreDatabase(backup: string, target: string, opts: RestoreOptions = {}): RestoreResult {
  assertSqliteFile(backup, 'no SQLite header');
  const walBeside = `${backup}-wal`;
  if (fs.existsSync(walBeside) && fs.statSync(walBeside).size > 0) {
    throw new CliFailure(
      `${backup} has a write-ahead log beside it (${walBeside}): it is a live database or an unfinished copy; take a backup with 'fleetplan backup'`,
    );
  }
  const dir = path.dirname(path.resolve(target));
  if (!fs.existsSync(dir)) fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const tmp = `${target}.restore-${process.pid}`;
  const removeTmp = () => {
    for (const f of [tmp, ...SIDECAR_SUFFIXES.map((s) => tmp + s)]) fs.rmSync(f, { force: true });
  };
  removeTmp();
  let live: Database.Database | null = null;
  try {
    const { sha256, bytes } = copyHashing(backup, tmp);
    let counts: Record<string, number>;
    let copy: Database.Database;
    try {
      copy = new Database(tmp, { fileMustExist: true });
      copy.pragma('foreign_keys = ON');
    } catch (err) {
      throw new CliFailure(`${backup} is not a readable SQLite database (${err instanceof Error ? err.message : String(err)})`);
    }
    try {
      try {
        verifyCopy(copy, backup);
      } catch (err) {
        if (err instanceof CliFailure) throw err;
        throw new CliFailure(`${backup} could not be checked (${err instanceof Error ? err.message : String(err)})`);
      }
      makeSelfContained(copy);
      const db = wrapConnection(copy);
      const at = (opts.now ?? (() => new Date()))();
      recordRestore(db, {
        at,
        actor: `cli:${opts.osUser ?? osUserName()}`,
        action: RESTORE_AUDIT_ACTION,
        target: `database:${path.resolve(target)}`,
        after: { file: backup, sha256, bytes, host: os.hostname() },
      });
      counts = countRows(copy);
    } finally {
      copy.close();
    }
    for (const s of SIDECAR_SUFFIXES) fs.rmSync(tmp + s, { force: true });
    fsyncFile(tmp);

    // only now is the live database touched: a refused backup leaves it byte for byte as it was
    live = lockLiveDatabase(target);
    for (const s of SIDECAR_SUFFIXES) fs.rmSync(target + s, { force: true });
    fs.renameSync(tmp, target);
    fsyncDirectory(dir);
    return { counts, sha256, bytes };
  } catch (err) {
    removeTmp();
    throw err;
  } finally {
    live?.close();
  }
}

export async function runRestoreCommand(
  args: string[],
  env: Record<string, string | undefined> = process.env,
  opts: RestoreOptions = {},
): Promise<number> {
  const parsed = parseFileArgs(args, []);
  if (parsed === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if ('usageError' in parsed) throw new UsageError(parsed.usageError, USAGE);
  const backup = path.resolve(parsed.file);
  const location = parseDatabaseUrl(env.DATABASE_URL);
  if (location.kind === 'postgres') {
    const restored = await restorePostgres(location.url, backup, {
      now: opts.now,
      osUser: opts.osUser ?? osUserName(),
      auditAction: RESTORE_AUDIT_ACTION,
    });
    process.stdout.write(
      `fleetplan restore: ${backup} (sha256 ${restored.sha256}, ${restored.tables} tables) -> ${redactPostgresUrl(location.url)}; ` +
        `${restored.sessionsSignedOut} sessions signed out, everyone signs in again; start the replicas\n`,
    );
    return 0;
  }
  const target = location.file;
  if (target === ':memory:') throw new UsageError('DATABASE_URL is :memory:, nothing to restore into', USAGE);
  if (path.resolve(target) === backup) throw new UsageError('FILE is the live database itself', USAGE);
  const result = restoreDatabase(backup, target, opts);
  const summary = Object.entries(result.counts)
    .map(([t, n]) => `${t}=${n}`)
    .join(' ');
  process.stdout.write(
    `fleetplan restore: ${backup} (sha256 ${result.sha256}) -> ${target} (${summary}); everyone signs in again; start the server\n`,
  );
  return 0;
}
