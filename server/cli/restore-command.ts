// `fleetplan restore FILE [--force]`: replaces the database with a backup. Checks the backup's
// integrity first, refuses while a server holds a live scheduler lease (unless --force), and swaps
// the file atomically (copy to a temp file beside it, then rename) after folding and removing the
// old -wal/-shm, so a stale write-ahead log can never be replayed onto the restored data.
// Stop the server first: a running process keeps reading the old (unlinked) file.
import Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import { resolveDatabaseFile } from '@/db/open-database';
import { checkIntegrity, countRows } from './backup-command';

const USAGE = 'usage: fleetplan restore FILE [--force]   (replaces DATABASE_URL, default data/fleetplan.db)';

/** scheduler leases that have not expired: some server is running against this database */
export function findLiveLeases(file: string, now: Date): { name: string; holder: string; expiresAt: Date }[] {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const hasTable = db.prepare("select 1 from sqlite_master where type = 'table' and name = 'scheduler_leases'").get();
    if (!hasTable) return [];
    const rows = db
      .prepare('select name, holder, expires_at as expiresAt from scheduler_leases where expires_at > ?')
      .all(now.getTime()) as { name: string; holder: string; expiresAt: number }[];
    return rows.map((r) => ({ ...r, expiresAt: new Date(r.expiresAt) }));
  } finally {
    db.close();
  }
}

function isFleetplanDatabase(file: string): boolean {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const tables = new Set(
      (db.prepare("select name from sqlite_master where type = 'table'").all() as { name: string }[]).map((r) => r.name),
    );
    return ['organizations', 'clusters', 'users', 'audit_log'].every((t) => tables.has(t));
  } finally {
    db.close();
  }
}

export async function restoreDatabase(backup: string, target: string): Promise<Record<string, number>> {
  const tmp = `${target}.restore-${process.pid}`;
  fs.rmSync(tmp, { force: true });
  const src = new Database(backup, { readonly: true, fileMustExist: true });
  try {
    await src.backup(tmp, { progress: () => 0x7fffffff });
  } finally {
    src.close();
  }
  // counted and switched to rollback journaling before the swap, so nothing opens the restored file
  // in WAL mode until the server does (a -wal beside it would then be the server's own)
  const copy = new Database(tmp);
  copy.pragma('journal_mode = DELETE');
  const counts = countRows(copy);
  copy.close();
  if (fs.existsSync(target)) {
    // fold the old WAL into the old file, so removing -wal/-shm loses nothing if the rename fails
    const old = new Database(target);
    old.pragma('wal_checkpoint(TRUNCATE)');
    old.close();
  }
  for (const suffix of ['-wal', '-shm', '-journal']) fs.rmSync(target + suffix, { force: true });
  fs.renameSync(tmp, target);
  return counts;
}

export async function runRestoreCommand(
  args: string[],
  env: Record<string, string | undefined> = process.env,
  now: Date = new Date(),
): Promise<number> {
  const force = args.includes('--force');
  const rest = args.filter((a) => a !== '--force');
  if (rest.includes('-h') || rest.includes('--help')) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (rest.length !== 1 || rest[0]!.startsWith('-')) {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  const backup = path.resolve(rest[0]!);
  const target = resolveDatabaseFile(env.DATABASE_URL);
  if (target === ':memory:') {
    process.stderr.write('fleetplan restore: DATABASE_URL is :memory:, nothing to restore into\n');
    return 2;
  }
  if (!fs.existsSync(backup)) {
    process.stderr.write(`fleetplan restore: no backup at ${backup}\n`);
    return 1;
  }
  if (path.resolve(target) === backup) {
    process.stderr.write('fleetplan restore: FILE is the live database itself\n');
    return 2;
  }
  let integrity: string;
  try {
    integrity = checkIntegrity(backup);
  } catch (err) {
    integrity = err instanceof Error ? err.message : String(err);
  }
  if (integrity !== 'ok') {
    process.stderr.write(`fleetplan restore: ${backup} is not a sound SQLite database: ${integrity}\n`);
    return 1;
  }
  if (!isFleetplanDatabase(backup)) {
    process.stderr.write(`fleetplan restore: ${backup} is not a fleetplan database (tables missing)\n`);
    return 1;
  }
  if (fs.existsSync(target)) {
    const leases = findLiveLeases(target, now);
    if (leases.length > 0 && !force) {
      const who = leases.map((l) => `${l.name} held by ${l.holder} until ${l.expiresAt.toISOString()}`).join(', ');
      process.stderr.write(`fleetplan restore: a server is running against ${target} (${who}); stop it first, or pass --force\n`);
      return 1;
    }
  } else {
    fs.mkdirSync(path.dirname(path.resolve(target)), { recursive: true });
  }
  const counts = await restoreDatabase(backup, target);
  const summary = Object.entries(counts)
    .map(([t, n]) => `${t}=${n}`)
    .join(' ');
  process.stdout.write(`fleetplan restore: ${backup} -> ${target} (${summary}); start the server again\n`);
  return 0;
}
