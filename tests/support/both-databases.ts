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
/**
 * Two connections to one fresh database. With `seed`: to a copy of a database `seed` filled once
 * per file and kind (a copied file, or a PostgreSQL template), for tests that each need the same
 * costly fleet (the demo seed) and would otherwise write it again every time.
 */
export type OpenTwice = (seed?: (db: Db) => Promise<unknown>) => Promise<[Db, Db]>;

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
    const seededFiles = new Map<(db: Db) => Promise<unknown>, Promise<string>>();
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
      async (seed) => {
        const newFile = () => {
          const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fleetplan-two-connections-'));
          dirs.push(dir);
          return path.join(dir, 'fleet.db');
        };
        const file = newFile();
        if (seed) {
          let seeded = seededFiles.get(seed);
          if (!seeded) {
            seeded = (async () => {
              const template = newFile();
              const db = openDatabase(template);
              try {
                await seed(db);
                db.$client.pragma('wal_checkpoint(TRUNCATE)'); // everything in the file itself, ready to copy
              } finally {
                db.$client.close();
              }
              return template;
            })();
            seededFiles.set(seed, seeded);
          }
          fs.copyFileSync(await seeded, file);
        }
        const connect = (): Db => {
          const db = openDatabase(file);
          opened.push(db);
          reconnectors.set(db, connect);
          return db;
        };
        return [connect(), connect()];
      },
    );
  });
  describe(`${name} (PostgreSQL)`, () => {
    let server: ThrowawayPostgres | undefined;
    let template: Promise<string> | undefined;
    const seededTemplates = new Map<(db: Db) => Promise<unknown>, Promise<string>>();
    const pools: { end(): Promise<void>; ended: boolean }[] = [];
    beforeAll(async () => {
      server = await startThrowawayPostgres();
    }, 60_000);
    afterAll(async () => {
      // (a test may have ended its pool itself: a database that stops answering)
      await Promise.all(pools.filter((p) => !p.ended).map((p) => p.end()));
      server?.stop();
    });
    const freshDatabase = async (seed?: (db: Db) => Promise<unknown>) => {
      template ??= migratedTemplate(server!);
      if (!seed) return await server!.createDatabase(undefined, { template: await template });
      let seeded = seededTemplates.get(seed);
      if (!seeded) {
        seeded = (async () => {
          const name = `fleetplan_seeded_${seededTemplates.size}`;
          const pg = openPostgres(await server!.createDatabase(name, { template: await template }));
          try {
            await seed(asFleetplanDb(pg));
          } finally {
            await pg.$client.end();
          }
          return name;
        })();
        seededTemplates.set(seed, seeded);
      }
      return await server!.createDatabase(undefined, { template: await seeded });
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
      async (seed) => {
        const url = await freshDatabase(seed);
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
