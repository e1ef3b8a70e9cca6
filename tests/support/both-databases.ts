// Runs a suite on SQLite and on PostgreSQL (a throw-away server: tests/support/throwaway-postgres.ts):
// each `open()` gives a fresh, migrated database behind the repositories' `Db` handle.
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
      const pg = openPostgres(await server!.createDatabase());
      pools.push(pg.$client);
      await migratePostgres(pg);
      return asFleetplanDb(pg);
    }, 'postgres');
  });
}
