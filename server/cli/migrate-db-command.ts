// `fleetplan migrate-db --from sqlite:PATH --to postgres://…`: moves an existing install's SQLite
// database into an empty PostgreSQL database, verified row for row (db/copy-to-postgres.ts).
// The SQLite file is opened read-only and must be a fleetplan database with every migration of
// this build applied; the target must hold no rows of ours (it is never overwritten); its schema
// is migrated (under the migration lock) before the copy.
import type Database from 'better-sqlite3';
import fs from 'node:fs';
import {
  copySqliteToPostgres,
  CopyRefused,
  describeNonEmpty,
  nonEmptyTables,
  openSqliteSource,
  type TableCopy,
} from '@/db/copy-to-postgres';
import { resolveDatabaseFile } from '@/db/open-database';
import { isPostgresUrl, migratePostgres, openPostgres, redactPostgresUrl, type PgDb } from '@/db/open-postgres';
import { secretKeyFileFor } from '@/server/crypto/server-secret-key';
import { assertSqliteFile } from './backup-command';
import { CliFailure, UsageError } from './cli-errors';
import { processIo, type CliIo } from './import-command';

export const MIGRATE_DB_USAGE = [
  'usage: fleetplan migrate-db --from sqlite:PATH --to postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE',
  '',
  'Copies a fleetplan SQLite database into an empty PostgreSQL database: the target schema is',
  'migrated, every table copied in one transaction, and the copy verified row for row (count and',
  'a digest of every value, per table) before it is committed; on any difference nothing is kept.',
  'The SQLite file is only read (it may stay in use). It must have every migration of this',
  'fleetplan applied: start this version of fleetplan on it once first. A target that holds any',
  'row of fleetplan tables is refused.',
].join('\n');

type MigrateDbArgs = { from: string; to: string };

function parseArgs(args: string[]): MigrateDbArgs | 'help' {
  const values: Partial<Record<'--from' | '--to', string>> = {};
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '-h' || arg === '--help') return 'help';
    const [flag, inline] = arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    if (flag !== '--from' && flag !== '--to') {
      throw new UsageError(arg.startsWith('-') ? `unknown option ${arg}` : `unexpected argument ${arg}`, MIGRATE_DB_USAGE);
    }
    const value = inline ?? args[++i];
    if (value === undefined || value === '') throw new UsageError(`${flag} needs a value`, MIGRATE_DB_USAGE);
    if (values[flag] !== undefined) throw new UsageError(`${flag} given twice`, MIGRATE_DB_USAGE);
    values[flag] = value;
  }
  if (!values['--from']) throw new UsageError('missing --from sqlite:PATH', MIGRATE_DB_USAGE);
  if (!values['--to']) throw new UsageError('missing --to postgres://…', MIGRATE_DB_USAGE);
  if (!/^(sqlite|file):/.test(values['--from'])) {
    throw new UsageError(`--from must be sqlite:PATH (the SQLite database file), not '${values['--from']}'`, MIGRATE_DB_USAGE);
  }
  if (!isPostgresUrl(values['--to'])) {
    throw new UsageError(`--to must be a postgres:// or postgresql:// URL, not '${redactPostgresUrl(values['--to'])}'`, MIGRATE_DB_USAGE);
  }
  try {
    new URL(values['--to']);
  } catch {
    throw new UsageError(`--to '${redactPostgresUrl(values['--to'])}' is not a valid URL`, MIGRATE_DB_USAGE);
  }
  return { from: values['--from'], to: values['--to'] };
}

/** the SQLite file, read-only, once it is known to be a fleetplan database with every migration applied */
function openSource(file: string): Database.Database {
  if (file === ':memory:') throw new UsageError('--from must name a database file', MIGRATE_DB_USAGE);
  assertSqliteFile(file, '--from');
  try {
    return openSqliteSource(file);
  } catch (err) {
    if (err instanceof CopyRefused) throw new CliFailure(err.message);
    throw err;
  }
}

async function connectTarget(target: PgDb, url: string): Promise<void> {
  try {
    const client = await target.$client.connect();
    try {
      const empty = await nonEmptyTables(client);
      if (empty.length > 0) throw new CliFailure(describeNonEmpty(empty));
    } finally {
      client.release();
    }
  } catch (err) {
    if (err instanceof CliFailure) throw err;
    const why = err instanceof Error ? err.message : String(err);
    throw new CliFailure(`cannot connect to ${redactPostgresUrl(url)}: ${why}`);
  }
}

function summary(copies: TableCopy[]): string {
  const width = Math.max(...copies.map((c) => c.table.length));
  const lines = copies.map(
    (c) =>
      `  ${c.table.padEnd(width)}  ${String(c.rows).padStart(8)} row${c.rows === 1 ? ' ' : 's'}  verified (digest ${c.digest.slice(0, 12)})`,
  );
  return `${lines.join('\n')}\n`;
}

export async function runMigrateDbCommand(args: string[], io: CliIo = processIo): Promise<number> {
  const parsed = parseArgs(args);
  if (parsed === 'help') {
    io.stdout(`${MIGRATE_DB_USAGE}\n`);
    return 0;
  }
  const file = resolveDatabaseFile(parsed.from);
  const where = redactPostgresUrl(parsed.to);
  const sqlite = openSource(file);
  const target = openPostgres(parsed.to, { max: 2 });
  try {
    await connectTarget(target, parsed.to);
    await migratePostgres(target);
    let copies: TableCopy[];
    try {
      copies = await copySqliteToPostgres(sqlite, target);
    } catch (err) {
      if (err instanceof CopyRefused) throw new CliFailure(err.message);
      throw err;
    }
    const rows = copies.reduce((n, c) => n + c.rows, 0);
    io.stdout(summary(copies));
    io.stdout(`fleetplan migrate-db: copied ${rows} rows in ${copies.length} tables from ${file} to ${where}, verified row for row\n`);
    const keyFile = secretKeyFileFor(file);
    if (fs.existsSync(keyFile)) {
      io.stdout(
        `fleetplan migrate-db: the webhook and hook secrets in it stay encrypted with ${keyFile} (or FLEETPLAN_SECRET_KEY): ` +
          `give the server that key (FLEETPLAN_SECRET_KEY) when it runs on PostgreSQL\n`,
      );
    }
    return 0;
  } finally {
    sqlite.close();
    await target.$client.end();
  }
}
