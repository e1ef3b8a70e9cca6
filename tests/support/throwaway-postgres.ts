// A throw-away PostgreSQL server for tests: `initdb` a cluster in a fresh temporary directory,
// start it with `pg_ctl` on a free port (its unix socket in that directory too, trust auth, no
// fsync: nothing here must survive the test), and `stop()` it and delete the directory. No system
// service is used or started. Debian's `postgresql` package provides the binaries (scripts/test.sh
// installs it when missing). PostgreSQL refuses to run as root, so a root process runs the server
// as the `postgres` user (the package creates it), who then owns the directory.
//
// One server per test file (beforeAll/afterAll); `createDatabase()` gives each test a fresh database.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { findPostgresTools } from '@/db/postgres-tools';

export type ThrowawayPostgres = {
  /** `postgres://postgres@127.0.0.1:PORT/postgres` */
  url: string;
  port: number;
  /** a new database on the server, empty or a copy of `template` (no one may be connected to it); returns its URL */
  createDatabase(name?: string, options?: { template?: string }): Promise<string>;
  stop(): void;
};

/** Where initdb/pg_ctl are: $POSTGRES_BIN, `pg_config --bindir`, the newest /usr/lib/postgresql/N/bin, or PATH. */
export function findPostgresBinaries(): string {
  const found = findPostgresTools(['initdb', 'pg_ctl']);
  if (!found) {
    throw new Error(
      "PostgreSQL's initdb and pg_ctl were not found (looked at $POSTGRES_BIN, pg_config --bindir, /usr/lib/postgresql/*/bin and PATH). " +
        'Install it (Debian: apt-get install -y --no-install-recommends postgresql; `npm test` does that as root) or set POSTGRES_BIN.',
    );
  }
  return found;
}

function isRoot(): boolean {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}

/** uid/gid of the `postgres` account, which a root process runs the server as */
function postgresAccount(): { uid: number; gid: number } {
  try {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    return { uid, gid };
  } catch {
    throw new Error(
      "running as root, PostgreSQL needs an unprivileged account: there is no 'postgres' user (Debian's postgresql package creates it)",
    );
  }
}

function run(bin: string, args: string[], cwd: string): void {
  const [command, commandArgs] = isRoot() ? ['runuser', ['-u', 'postgres', '--', bin, ...args]] : [bin, args];
  const result = spawnSync(command, commandArgs, { cwd, encoding: 'utf8', env: { ...process.env, LC_ALL: 'C' } });
  if (result.status !== 0) {
    const output = `${result.stdout ?? ''}${result.stderr ?? ''}`.trim();
    throw new Error(`${path.basename(bin)} ${args.join(' ')} failed (${result.error?.message ?? `exit ${result.status}`}): ${output}`);
  }
}

/** a port nobody listens on now: one from FLEETPLAN_TEST_PG_PORTS (`54800-54899`) when set, else one the OS picks */
async function freePort(tried: Set<number>): Promise<number> {
  const range = /^(\d+)-(\d+)$/.exec(process.env.FLEETPLAN_TEST_PG_PORTS ?? '');
  const listenOn = (port: number) =>
    new Promise<number | null>((resolve) => {
      const server = net.createServer();
      server.once('error', () => resolve(null));
      server.listen(port, '127.0.0.1', () => {
        const address = server.address();
        server.close(() => resolve(typeof address === 'object' && address ? address.port : null));
      });
    });
  if (!range) {
    const port = await listenOn(0);
    if (port === null) throw new Error('no free port for the throw-away PostgreSQL');
    return port;
  }
  for (let port = Number(range[1]); port <= Number(range[2]); port++) {
    if (tried.has(port)) continue;
    tried.add(port);
    if ((await listenOn(port)) !== null) return port;
  }
  throw new Error(`no free port in FLEETPLAN_TEST_PG_PORTS=${process.env.FLEETPLAN_TEST_PG_PORTS}`);
}

const START_ATTEMPTS = 5;

export async function startThrowawayPostgres(): Promise<ThrowawayPostgres> {
  const bin = findPostgresBinaries();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fleetplan-pg-'));
  const dataDir = path.join(dir, 'data');
  const logFile = path.join(dir, 'server.log');
  let started = false;
  try {
    if (isRoot()) {
      const { uid, gid } = postgresAccount();
      fs.chownSync(dir, uid, gid);
    }
    fs.chmodSync(dir, 0o700);
    run(path.join(bin, 'initdb'), ['-D', dataDir, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--locale=C', '--no-sync'], dir);
    const tried = new Set<number>();
    let lastError: unknown;
    // another process may take the port between the probe and the server's bind: try another
    for (let attempt = 0; attempt < START_ATTEMPTS && !started; attempt++) {
      const port = await freePort(tried);
      const options = [
        `-p ${port}`,
        `-k ${dir}`,
        "-c listen_addresses='127.0.0.1'",
        '-c fsync=off',
        '-c synchronous_commit=off',
        '-c full_page_writes=off',
        '-c max_connections=40',
        '-c shared_buffers=16MB',
      ].join(' ');
      try {
        run(path.join(bin, 'pg_ctl'), ['-D', dataDir, '-l', logFile, '-o', options, '-w', '-t', '30', 'start'], dir);
        started = true;
        const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
        let databases = 0;
        let stopped = false;
        const stop = () => {
          if (stopped) return;
          stopped = true;
          process.off('exit', stop);
          try {
            run(path.join(bin, 'pg_ctl'), ['-D', dataDir, '-m', 'immediate', '-w', 'stop'], dir);
          } finally {
            fs.rmSync(dir, { recursive: true, force: true });
          }
        };
        // a test run that ends without afterAll (a crash, a timeout) must not leave a server running
        process.once('exit', stop);
        return {
          url,
          port,
          async createDatabase(name = `test_${++databases}_${process.pid}`, options: { template?: string } = {}) {
            for (const n of [name, options.template ?? 'template1']) {
              if (!/^[a-z_][a-z0-9_]*$/.test(n)) throw new Error(`not a plain database name: ${n}`);
            }
            const client = new Client({ connectionString: url });
            await client.connect();
            try {
              // a natural-language collation, as production databases are usually created with
              // (en_US.UTF-8): fleetplan must sort text in byte order on it, as on SQLite. A copy of
              // a template (made here, so in en-US too) takes the template's collation.
              await client.query(
                options.template
                  ? `create database "${name}" template "${options.template}"`
                  : `create database "${name}" template template0 locale_provider icu icu_locale 'en-US'`,
              );
            } finally {
              await client.end();
            }
            return `postgres://postgres@127.0.0.1:${port}/${name}`;
          },
          stop,
        };
      } catch (err) {
        lastError = err;
      }
    }
    const log = fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8').slice(-2000) : '';
    throw new Error(`the throw-away PostgreSQL did not start: ${String(lastError)}\n${log}`);
  } finally {
    if (!started) fs.rmSync(dir, { recursive: true, force: true });
  }
}
