// `fleetplan backup FILE` and `fleetplan restore FILE` when DATABASE_URL is PostgreSQL: PostgreSQL's
// own tools, wrapped so that the same commands work on either database.
//
// - backup: `pg_dump --format=custom` (one consistent snapshot while the replicas keep running),
//   written under a temporary name, mode 0600 (it holds password hashes and sealed webhook
//   secrets), checked with `pg_restore --list` and renamed into place only if it is a fleetplan
//   database's dump.
// - restore: only a fleetplan dump (checked first, nothing touched otherwise), only while no
//   fleetplan process is connected (every pool names itself `fleetplan` in pg_stat_activity: stop
//   every replica first), in one transaction (`pg_restore --single-transaction --exit-on-error`),
//   then migrated forward, everyone signed out, and an audit row written.
// The password never appears on a command line: the tools get it through PGPASSWORD.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { closeDatabase } from '@/db/connect';
import { redactPostgresUrl } from '@/db/database-location';
import { PRIVATE_FILE_MODE } from '@/db/open-database';
import { APPLICATION_NAME, migratePostgres, openPostgres } from '@/db/open-postgres';
import { asFleetplanDb } from '@/db/postgres-handle';
import { findPostgresTools } from '@/db/postgres-tools';
import { appendAudit } from '@/server/repositories/audit-repository';
import { countOtherConnections } from '@/server/repositories/health-repository';
import { deleteAllSessions } from '@/server/repositories/session-repository';
import { withTransaction } from '@/server/repositories/transaction';
import { CliFailure } from './cli-errors';

/** what every fleetplan dump holds: the lease table of the schema and drizzle's migration history */
const FLEETPLAN_DUMP_MARKERS = [/ TABLE DATA public scheduler_leases /, / TABLE DATA drizzle __drizzle_migrations /];

function tools(): string {
  const dir = findPostgresTools(['pg_dump', 'pg_restore']);
  if (!dir)
    throw new CliFailure(
      'pg_dump and pg_restore were not found (looked at $POSTGRES_BIN, pg_config --bindir, /usr/lib/postgresql/*/bin and PATH); ' +
        'install the PostgreSQL client (Debian: apt-get install postgresql-client) in a version at least the server’s',
    );
  return dir;
}

/** the URL without its password for the command line, the password in the environment */
function connection(url: string): { dbname: string; env: NodeJS.ProcessEnv } {
  const parsed = new URL(url);
  const password = decodeURIComponent(parsed.password);
  parsed.password = '';
  return { dbname: parsed.toString(), env: { ...process.env, ...(password ? { PGPASSWORD: password } : {}) } };
}

function run(bin: string, args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', (e) => reject(new CliFailure(`${path.basename(bin)} could not run: ${e.message}`)));
    child.on('exit', (code) =>
      code === 0
        ? resolve(out)
        : reject(new CliFailure(`${path.basename(bin)} failed (exit ${code}): ${err.trim().split('\n').slice(-3).join(' ')}`)),
    );
  });
}

/** the tables whose data the dump holds; refuses a file that is not a fleetplan database's dump */
async function dumpedTables(bin: string, file: string): Promise<number> {
  let listing: string;
  try {
    listing = await run(path.join(bin, 'pg_restore'), ['--list', file], process.env);
  } catch (err) {
    throw new CliFailure(`${file} is not a PostgreSQL dump in pg_dump's custom format (${(err as Error).message})`);
  }
  if (!FLEETPLAN_DUMP_MARKERS.every((marker) => marker.test(listing)))
    throw new CliFailure(`${file} is a PostgreSQL dump, but not of a fleetplan database`);
  return listing.split('\n').filter((line) => / TABLE DATA public /.test(line)).length;
}

export async function backupPostgres(url: string, target: string): Promise<{ tables: number; bytes: number }> {
  const bin = tools();
  const tmp = path.join(path.dirname(target), `.${path.basename(target)}.partial-${process.pid}`);
  const { dbname, env } = connection(url);
  try {
    fs.closeSync(fs.openSync(tmp, 'w', PRIVATE_FILE_MODE));
    await run(path.join(bin, 'pg_dump'), ['--format=custom', '--no-owner', '--no-privileges', `--file=${tmp}`, `--dbname=${dbname}`], env);
    fs.chmodSync(tmp, PRIVATE_FILE_MODE);
    const tables = await dumpedTables(bin, tmp);
    fs.renameSync(tmp, target);
    return { tables, bytes: fs.statSync(target).size };
  } catch (err) {
    fs.rmSync(tmp, { force: true });
    throw err;
  }
}

export async function restorePostgres(
  url: string,
  backup: string,
  opts: { now?: () => Date; osUser: string; auditAction: string },
): Promise<{ tables: number; sha256: string; sessionsSignedOut: number }> {
  const bin = tools();
  if (!fs.existsSync(backup)) throw new CliFailure(`no backup at ${backup}`);
  const tables = await dumpedTables(bin, backup);
  const sha256 = createHash('sha256').update(fs.readFileSync(backup)).digest('hex');
  const base = openPostgres(url, { max: 1, applicationName: `${APPLICATION_NAME} restore` });
  const db = asFleetplanDb(base);
  try {
    const others = await countOtherConnections(db, APPLICATION_NAME);
    if (others > 0)
      throw new CliFailure(
        `${others} fleetplan connection(s) to ${redactPostgresUrl(url)} are open (a running replica or command): stop every replica first; nothing changed`,
      );
    const { dbname, env } = connection(url);
    await run(
      path.join(bin, 'pg_restore'),
      ['--clean', '--if-exists', '--no-owner', '--no-privileges', '--single-transaction', '--exit-on-error', `--dbname=${dbname}`, backup],
      env,
    );
    // a backup taken by an older build is brought to this build's schema now, not by the first replica
    await migratePostgres(base);
    const at = (opts.now ?? (() => new Date()))();
    const sessionsSignedOut = await withTransaction(db, async (tx) => {
      const signedOut = await deleteAllSessions(tx);
      await appendAudit(tx, {
        organizationId: null,
        at,
        actor: `cli:${opts.osUser}`,
        action: opts.auditAction,
        target: `database:${redactPostgresUrl(url)}`,
        after: { file: backup, sha256, bytes: fs.statSync(backup).size, host: os.hostname(), sessionsSignedOut: signedOut },
      });
      return signedOut;
    });
    return { tables, sha256, sessionsSignedOut };
  } finally {
    await closeDatabase(db);
  }
}
