// Runs a suite on SQLite and on PostgreSQL (a throw-away server: tests/support/throwaway-postgres.ts):
// each `open()` gives a fresh, migrated database behind the repositories' `Db` handle. On PostgreSQL
// the migrations run once per file, into a template each test's database is copied from: copying
// is cheaper than migrating again, and a file may open a database for each of dozens of tests.
import { afterAll, beforeAll, describe } from 'vitest';
import { openDatabase, type Db } from '@/db/open-database';
import { migratePostgres, openPostgres } from '@/db/open-postgres';
import { asFleetplanDb } from '@/db/postgres-handle';
import { startThrowawayPostgres, type ThrowawayPostgres } from './throwaway-postgres';

export type DatabaseKind = 'sqlite' | 'postgres';

export function onBothDatabases(name: string, suite: (open: () => Promise<Db>, kind: DatabaseKind) => void): void {
  describe(`${name} (SQLite)`, () => {
    const opened: Db[] = [];
    afterAll(() => opened.forEach((db) => db.$client.close()));
    suite(() => {
      const db = openDatabase(':memory:');
      opened.push(db);
      return Promise.resolve(db);
    }, 'sqlite');
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
    suite(async () => {
      template ??= migratedTemplate(server!);
      const pg = openPostgres(await server!.createDatabase(undefined, { template: await template }));
      pools.push(pg.$client);
      return asFleetplanDb(pg);
    }, 'postgres');
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
