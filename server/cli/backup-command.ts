// `fleetplan backup FILE [--force]`: a consistent copy of the live database while the server runs.
// SQLite's online backup API copies pages inside one read transaction when asked for all pages in
// one step, so the copy is a snapshot of one moment; WAL mode lets the server keep writing meanwhile.
// The copy is one self-contained file (switched to rollback journaling, so no -wal/-shm beside it),
// readable by its owner only (mode 0600: it holds password hashes and webhook secrets), written
// under a temporary name and renamed into place only once it passed its integrity check.
// @see https://www.sqlite.org/backup.html
import Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import { parseDatabaseUrl, redactPostgresUrl } from '@/db/database-location';
import { PRIVATE_FILE_MODE } from '@/db/open-database';
import { backupPostgres } from './postgres-backup';
import { secretKeyFileFor } from '@/server/crypto/server-secret-key';
import { hasSqliteHeader } from '@/db/database-schema';
import { CliFailure, UsageError, parseFileArgs } from './cli-errors';

const USAGE =
  'usage: fleetplan backup FILE [--force]   (reads DATABASE_URL: a SQLite file, default data/fleetplan.db, or postgres://… through pg_dump)';
/** tables whose row counts are printed, so an operator can eyeball the copy */
export const REPORTED_TABLES = ['clusters', 'policy_revisions', 'audit_log', 'decisions', 'users', 'api_tokens'] as const;
export const SIDECAR_SUFFIXES = ['-wal', '-shm', '-journal'] as const;

export function countRows(db: Database.Database): Record<string, number> {
  const counts: Record<string, number> = {};
  const present = new Set(
    (db.prepare("select name from sqlite_master where type = 'table'").all() as { name: string }[]).map((r) => r.name),
  );
  for (const table of REPORTED_TABLES) {
    if (present.has(table)) counts[table] = (db.prepare(`select count(*) as n from "${table}"`).get() as { n: number }).n;
  }
  return counts;
}

export function checkIntegrity(db: Database.Database): string {
  const rows = db.pragma('integrity_check') as { integrity_check: string }[];
  return rows.map((r) => r.integrity_check).join('; ');
}

/** the first bytes of `file`, or a clear reason it cannot be a database file */
export function readFileStart(file: string, bytes = 100): Buffer {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new CliFailure(code === 'ENOENT' ? `${file} does not exist` : `cannot read ${file} (${code ?? String(err)})`);
  }
  if (stat.isDirectory()) throw new CliFailure(`${file} is a directory, not a database file`);
  if (!stat.isFile()) throw new CliFailure(`${file} is not a regular file`);
  const fd = fs.openSync(file, 'r');
  try {
    const buffer = Buffer.alloc(bytes);
    const read = fs.readSync(fd, buffer, 0, bytes, 0);
    return buffer.subarray(0, read);
  } finally {
    fs.closeSync(fd);
  }
}

export function assertSqliteFile(file: string, what: string): void {
  if (!hasSqliteHeader(readFileStart(file))) throw new CliFailure(`${file} is not a SQLite database (${what})`);
}

/** a new empty file only its owner can read; SQLite then writes into it keeping the mode */
export function createPrivateFile(file: string): void {
  fs.rmSync(file, { force: true });
  fs.closeSync(fs.openSync(file, 'wx', PRIVATE_FILE_MODE));
}

/** Leaves `file` as one self-contained rollback-journal database: no -wal or -shm beside it. */
export function makeSelfContained(db: Database.Database): void {
  db.pragma('wal_checkpoint(TRUNCATE)');
  const mode = db.pragma('journal_mode = DELETE', { simple: true });
  if (mode !== 'delete') throw new Error(`could not switch the copy to rollback journaling (journal_mode ${String(mode)})`);
}

export function fsyncFile(file: string): void {
  const fd = fs.openSync(file, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

export function fsyncDirectory(dir: string): void {
  try {
    fsyncFile(dir);
  } catch {
    // not every platform lets a directory be opened for fsync; the rename itself is still atomic
  }
}

/** Copies `source` (a live database) to `target` atomically: temp file, checks, rename. */
export async function backupDatabase(source: string, target: string): Promise<Record<string, number>> {
  const tmp = `${target}.partial-${process.pid}`;
  const removeTmp = () => {
    for (const f of [tmp, ...SIDECAR_SUFFIXES.map((s) => tmp + s)]) fs.rmSync(f, { force: true });
  };
  removeTmp();
  try {
    createPrivateFile(tmp);
    const db = new Database(source, { fileMustExist: true });
    try {
      db.pragma('busy_timeout = 5000');
      await db.backup(tmp, { progress: () => 0x7fffffff });
    } finally {
      db.close();
    }
    const copy = new Database(tmp, { fileMustExist: true });
    let counts: Record<string, number>;
    try {
      makeSelfContained(copy);
      const integrity = checkIntegrity(copy);
      if (integrity !== 'ok') throw new CliFailure(`the copy failed its integrity check: ${integrity}`);
      counts = countRows(copy);
    } finally {
      copy.close();
    }
    for (const s of SIDECAR_SUFFIXES) fs.rmSync(tmp + s, { force: true });
    fsyncFile(tmp);
    fs.renameSync(tmp, target);
    fsyncDirectory(path.dirname(target));
    return counts;
  } catch (err) {
    removeTmp();
    throw err;
  }
}

/** the backup goes to a new file (or, with --force, over an old backup) in a directory that exists */
function checkBackupTarget(target: string, force: boolean): void {
  if (fs.existsSync(target)) {
    if (fs.statSync(target).isDirectory()) throw new CliFailure(`${target} is a directory; name the backup file inside it`);
    if (!force) throw new CliFailure(`${target} exists; pass --force to overwrite it`);
  }
  if (!fs.existsSync(path.dirname(target))) throw new CliFailure(`directory ${path.dirname(target)} does not exist`);
}

export async function runBackupCommand(args: string[], env: Record<string, string | undefined> = process.env): Promise<number> {
  const parsed = parseFileArgs(args, ['--force']);
  if (parsed === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if ('usageError' in parsed) throw new UsageError(parsed.usageError, USAGE);
  const force = parsed.flags.has('--force');
  const target = path.resolve(parsed.file);
  const location = parseDatabaseUrl(env.DATABASE_URL);
  if (location.kind === 'postgres') {
    checkBackupTarget(target, force);
    const { tables, bytes } = await backupPostgres(location.url, target);
    process.stdout.write(
      `fleetplan backup: ${redactPostgresUrl(location.url)} -> ${target} (pg_dump custom format, ${tables} tables, ${bytes} bytes)\n`,
    );
    process.stdout.write(
      'fleetplan backup: the webhook secrets in it are encrypted with FLEETPLAN_SECRET_KEY: keep that key with the backup\n',
    );
    return 0;
  }
  const source = location.file;
  if (source === ':memory:') throw new UsageError('DATABASE_URL is :memory:, nothing to back up', USAGE);
  if (!fs.existsSync(source)) throw new CliFailure(`no database at ${source} (DATABASE_URL)`);
  if (path.resolve(source) === target) throw new UsageError('FILE is the live database itself', USAGE);
  assertSqliteFile(source, 'the database at DATABASE_URL');
  checkBackupTarget(target, force);
  const counts = await backupDatabase(source, target);
  const summary = Object.entries(counts)
    .map(([t, n]) => `${t}=${n}`)
    .join(' ');
  process.stdout.write(`fleetplan backup: ${source} -> ${target} (integrity ok; ${summary})\n`);
  const keyFile = secretKeyFileFor(source);
  if (fs.existsSync(keyFile)) {
    process.stdout.write(
      `fleetplan backup: the webhook secrets in it are encrypted with ${keyFile} (or FLEETPLAN_SECRET_KEY): keep that key with the backup\n`,
    );
  }
  return 0;
}
