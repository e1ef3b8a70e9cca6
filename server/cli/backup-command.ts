// `fleetplan backup FILE [--force]`: a consistent copy of the live database while the server runs.
// SQLite's online backup API copies pages inside one read transaction when asked for all pages in
// one step, so the copy is a snapshot of one moment; WAL mode lets the server keep writing meanwhile.
// @see https://www.sqlite.org/backup.html
import Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import { resolveDatabaseFile } from '@/db/open-database';

const USAGE = 'usage: fleetplan backup FILE [--force]   (reads DATABASE_URL, default data/fleetplan.db)';
/** tables whose row counts are printed, so an operator can eyeball the copy */
export const REPORTED_TABLES = ['clusters', 'policy_revisions', 'audit_log', 'decisions', 'users', 'api_tokens'] as const;

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

export function checkIntegrity(file: string): string {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const rows = db.pragma('integrity_check') as { integrity_check: string }[];
    return rows.map((r) => r.integrity_check).join('; ');
  } finally {
    db.close();
  }
}

/** Copies `source` (a live database) to `target` atomically: temp file, integrity check, rename. */
export async function backupDatabase(source: string, target: string): Promise<Record<string, number>> {
  const tmp = `${target}.partial-${process.pid}`;
  fs.rmSync(tmp, { force: true });
  const db = new Database(source, { fileMustExist: true });
  try {
    db.pragma('busy_timeout = 5000');
    await db.backup(tmp, { progress: () => 0x7fffffff });
  } finally {
    db.close();
  }
  const integrity = checkIntegrity(tmp);
  if (integrity !== 'ok') {
    fs.rmSync(tmp, { force: true });
    throw new Error(`the copy failed its integrity check: ${integrity}`);
  }
  const copy = new Database(tmp, { readonly: true });
  const counts = countRows(copy);
  copy.close();
  fs.renameSync(tmp, target);
  return counts;
}

export async function runBackupCommand(args: string[], env: Record<string, string | undefined> = process.env): Promise<number> {
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
  const target = path.resolve(rest[0]!);
  const source = resolveDatabaseFile(env.DATABASE_URL);
  if (source === ':memory:') {
    process.stderr.write('fleetplan backup: DATABASE_URL is :memory:, nothing to back up\n');
    return 2;
  }
  if (!fs.existsSync(source)) {
    process.stderr.write(`fleetplan backup: no database at ${source}\n`);
    return 1;
  }
  if (path.resolve(source) === target) {
    process.stderr.write('fleetplan backup: FILE is the live database itself\n');
    return 2;
  }
  if (fs.existsSync(target) && !force) {
    process.stderr.write(`fleetplan backup: ${target} exists; pass --force to overwrite it\n`);
    return 1;
  }
  if (!fs.existsSync(path.dirname(target))) {
    process.stderr.write(`fleetplan backup: directory ${path.dirname(target)} does not exist\n`);
    return 1;
  }
  const counts = await backupDatabase(source, target);
  const summary = Object.entries(counts)
    .map(([t, n]) => `${t}=${n}`)
    .join(' ');
  process.stdout.write(`fleetplan backup: ${source} -> ${target} (integrity ok; ${summary})\n`);
  return 0;
}
