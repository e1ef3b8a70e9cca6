// Runs a suite on SQLite and on PostgreSQL (a throw-away server: tests/support/throwaway-postgres.ts):
// each `open()` gives a fresh, migrated database behind the repositories' `Db` handle, and
// `openTwice()` two connections to one fresh database, as two processes (replicas, the CLI beside
// the server) have them: a SQLite file opened twice, or two PostgreSQL pools; `anotherConnection`
// one more to the same database (a process with nothing cached yet). On PostgreSQL the
// migrations run once per file, into a template each test's database is copied from: copying is
// cheaper than migrating again, and a file may open a database for each of dozens of tests.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe } from 'vitest';
import { openDatabase, type Db } from '@/db/open-database';
import { migratePostgres, openPostgres } from '@/db/open-postgres';
import { asFleetplanDb, isPostgresHandle } from '@/db/postgres-handle';
import { startThrowawayPostgres, type ThrowawayPostgres } from './throwaway-postgres';

export type DatabaseKind = 'sqlite' | 'postgres';

/** two connections to one fresh database */
export type OpenTwice = () => Promise<[Db, Db]>;

const reconnectors = new WeakMap<Db, () => Db>();

/** Closes one connection before the suite ends (a test that opens many: PostgreSQL allows only so many). */
export async function closeConnection(db: Db): Promise<void> {
  if (isPostgresHandle(db)) {
    const pool = db.$client as unknown as { end(): Promise<void>; ended: boolean };
    if (!pool.ended) await pool.end();
  } else {
    db.$client.close();
  }
}

/** Another connection to the database `db` is on (`db` from `openTwice`, or from this); closed with the suite. */
export function anotherConnection(db: Db): Db {
  const connect = reconnectors.get(db);
  if (!connect) throw new Error('anotherConnection: a connection openTwice gave is needed (an in-memory SQLite database has no other)');
  return connect();
}

export function onBothDatabases(name: string, suite: (open: () => Promise<Db>, kind: DatabaseKind, openTwice: OpenTwice) => void): void {
  describe(`${name} (SQLite)`, () => {
    const opened: Db[] = [];
    const dirs: string[] = [];
    afterAll(() => {
      opened.forEach((db) => db.$client.close());
      dirs.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true }));
    });
    suite(
      () => {
        const db = openDatabase(':memory:');
        opened.push(db);
        return Promise.resolve(db);
      },
      'sqlite',
      () => {
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fleetplan-two-connections-'));
        dirs.push(dir);
        const file = path.join(dir, 'fleet.db');
        const connect = (): Db => {
          const db = openDatabase(file);
          opened.push(db);
          reconnectors.set(db, connect);
          return db;
        };
        return Promise.resolve([connect(), connect()]);
      },
    );
  });
  describe(`${name} (PostgreSQL)`, () => {
    let server: ThrowawayPostgres | undefined;
    let template: Promise<string> | undefined;
    const pools: { end(): Promise<void>; ended: boolean }[] = [];
    beforeAll(async () => {
      server = await startThrowawayPostgres();
    }, 60_000);
    afterAll(async () => {
      // (a test may have ended its pool itself: a database that stops answering)
      await Promise.all(pools.filter((p) => !p.ended).map((p) => p.end()));
      server?.stop();
    });
    const freshDatabase = async () => {
      template ??= migratedTemplate(server!);
      return await server!.createDatabase(undefined, { template: await template });
    };
    const connect = (url: string): Db => {
      const pg = openPostgres(url);
      pools.push(pg.$client);
      const db = asFleetplanDb(pg);
      reconnectors.set(db, () => connect(url));
      return db;
    };
    suite(
      async () => connect(await freshDatabase()),
      'postgres',
      async () => {
        const url = await freshDatabase();
        return [connect(url), connect(url)];
      },
    );
  });
}

/** a migrated database on `server`, closed again (a template must have no connections); its name */
async function migratedTemplate(server: ThrowawayPostgres): Promise<string> {
  const name = 'fleetplan_migrated';
  const pg = openPostgres(await server.createDatabase(name));
  try {
    await migratePostgres(pg);
  } finally {
    await pg.$client.end();
  }
  return name;
}
