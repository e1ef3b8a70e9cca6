// PostgreSQL migrations on a real (throw-away) server: two replicas migrating a fresh database at
// the same time both succeed, each migration is applied once, and every table of the schema exists.
import { getTableName, isTable } from 'drizzle-orm';
import { readMigrationFiles } from 'drizzle-orm/migrator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startThrowawayPostgres, type ThrowawayPostgres } from '@/tests/support/throwaway-postgres';
import { isPostgresUrl, migratePostgres, MIGRATION_LOCK_KEY, openPostgres, PG_MIGRATIONS_FOLDER, redactPostgresUrl } from './open-postgres';
import { DatabaseOpenError, openDatabase } from './open-database';
import * as pgSchema from './pg-schema';

let server: ThrowawayPostgres;

beforeAll(async () => {
  server = await startThrowawayPostgres();
}, 60_000);

afterAll(() => server?.stop());

const schemaTables = Object.values(pgSchema)
  .filter(isTable)
  .map((t) => getTableName(t))
  .sort();

/** how many sessions wait for an advisory lock, once `count` do (or after 10 s) */
async function waitForLockWaiters(db: ReturnType<typeof openPostgres>, count: number): Promise<number> {
  let waiting = 0;
  for (let i = 0; i < 200 && waiting < count; i++) {
    if (i > 0) await new Promise((resolve) => setTimeout(resolve, 50));
    const result = await db.$client.query<{ n: string }>("select count(*) as n from pg_locks where locktype = 'advisory' and not granted");
    waiting = Number(result.rows[0]!.n);
  }
  return waiting;
}

describe('migratePostgres', () => {
  it('migrates a fresh database once when two replicas start together', async () => {
    const url = await server.createDatabase('two_replicas');
    const replicas = [openPostgres(url), openPostgres(url)];
    try {
      // the first replica holds the lock before either starts: both must queue behind it
      const holder = await replicas[0]!.$client.connect();
      await holder.query('select pg_advisory_lock($1::bigint)', [MIGRATION_LOCK_KEY]);
      const running = replicas.map((db) => migratePostgres(db));
      const waiting = await waitForLockWaiters(replicas[0]!, 2);
      await holder.query('select pg_advisory_unlock($1::bigint)', [MIGRATION_LOCK_KEY]);
      holder.release();
      await Promise.all(running);

      const ours = readMigrationFiles({ migrationsFolder: PG_MIGRATIONS_FOLDER });
      const applied = await replicas[1]!.$client.query<{ hash: string; created_at: string }>(
        'select hash, created_at from drizzle.__drizzle_migrations order by id',
      );
      expect(applied.rows.map((r) => [r.hash, Number(r.created_at)])).toEqual(ours.map((m) => [m.hash, m.folderMillis]));
      expect(ours.length).toBeGreaterThanOrEqual(2);
      const tables = await replicas[1]!.$client.query<{ tablename: string }>(
        "select tablename from pg_tables where schemaname = 'public' order by tablename",
      );
      expect(tables.rows.map((r) => r.tablename)).toEqual(schemaTables);
      expect(waiting).toBe(2);
    } finally {
      await Promise.all(replicas.map((db) => db.$client.end()));
    }
  });

  it('does nothing on a database already migrated', async () => {
    const url = await server.createDatabase('already_migrated');
    const db = openPostgres(url);
    try {
      await migratePostgres(db);
      await migratePostgres(db);
      const applied = await db.$client.query<{ n: string }>('select count(*) as n from drizzle.__drizzle_migrations');
      expect(Number(applied.rows[0]!.n)).toBe(readMigrationFiles({ migrationsFolder: PG_MIGRATIONS_FOLDER }).length);
    } finally {
      await db.$client.end();
    }
  });

  it('leaves every text column in byte order (COLLATE "C"), with the triggers as they were, on a database of another collation', async () => {
    const url = await server.createDatabase('byte_order'); // created with an ICU en-US collation
    const db = openPostgres(url);
    try {
      const triggers = () =>
        db.$client.query<{ name: string; def: string }>(
          'select tgname as name, pg_get_triggerdef(oid) as def from pg_trigger where not tgisinternal order by tgname',
        );
      await migratePostgres(db);
      const columns = await db.$client.query<{ table_name: string; column_name: string; collation_name: string | null }>(
        `select table_name, column_name, collation_name from information_schema.columns
         where table_schema = 'public' and data_type = 'text' order by table_name, column_name`,
      );
      expect(columns.rows.length).toBeGreaterThan(50);
      expect(columns.rows.filter((c) => c.collation_name !== 'C')).toEqual([]);
      await db.$client.query(
        "insert into organizations (name, updated_at) values ('a-b', now()), ('Zone', now()), ('a', now()), ('B', now())",
      );
      const names = await db.$client.query<{ name: string }>('select name from organizations order by name');
      expect(names.rows.map((r) => r.name)).toEqual(['B', 'Zone', 'a', 'a-b']); // en-US: a, a-b, B, Zone
      // the triggers the migration made again are the ones the earlier migrations made
      const before = openPostgres(await server.createDatabase('byte_order_before'));
      try {
        const files = readMigrationFiles({ migrationsFolder: PG_MIGRATIONS_FOLDER });
        for (const file of files.filter((m) => !m.sql.join('').includes('COLLATE "C"')))
          for (const q of file.sql) if (q.trim()) await before.$client.query(q);
        expect((await triggers()).rows).toEqual(
          (
            await before.$client.query<{ name: string; def: string }>(
              'select tgname as name, pg_get_triggerdef(oid) as def from pg_trigger where not tgisinternal order by tgname',
            )
          ).rows,
        );
      } finally {
        await before.$client.end();
      }
    } finally {
      await db.$client.end();
    }
  });

  it('keeps the plan revision moving with every write to the plan input, as the SQLite triggers do', async () => {
    const url = await server.createDatabase('plan_revision');
    const db = openPostgres(url);
    try {
      await migratePostgres(db);
      const revision = async () =>
        Object.fromEntries((await db.select().from(pgSchema.planRevisions)).map((r) => [r.scope, r.revision] as const));
      expect(await revision()).toEqual({ structure: 0, configuration: 0, cluster_rows: 0 });
      const now = new Date('2026-11-27T00:00:00.000Z');
      const [org] = await db.insert(pgSchema.organizations).values({ name: 'acme', updatedAt: now }).returning();
      await db
        .insert(pgSchema.clusters)
        .values({ organizationId: org!.id, name: 'c1', externalId: 'x1', version: '4.16.3', channel: 'stable-4.16', observedAt: now });
      expect(await revision()).toEqual({ structure: 2, configuration: 2, cluster_rows: 0 });
      // a field the plan does not read: no bump
      await db.update(pgSchema.clusters).set({ observedAt: new Date(now.getTime() + 1000), region: 'eu' });
      expect(await revision()).toEqual({ structure: 2, configuration: 2, cluster_rows: 0 });
      // what the fleet reports moves the structure only; what people configure both; a cluster's
      // own planned columns move 'cluster_rows' too and stamp the row (migration 0004)
      await db.update(pgSchema.clusters).set({ version: '4.16.4' });
      expect(await revision()).toEqual({ structure: 3, configuration: 2, cluster_rows: 1 });
      await db.update(pgSchema.clusters).set({ fleetplanLabels: { tier: 'gold' } });
      expect(await revision()).toEqual({ structure: 4, configuration: 3, cluster_rows: 2 });
      const stamped = async () => (await db.select({ at: pgSchema.clusters.changedAtRevision }).from(pgSchema.clusters))[0]!.at;
      expect(await stamped()).toBe(2);
      // a rename is not a row's own change: the structure moves alone (the cache loads the whole fleet)
      await db.update(pgSchema.clusters).set({ name: 'c2' });
      expect(await revision()).toEqual({ structure: 5, configuration: 4, cluster_rows: 2 });
      expect(await stamped()).toBe(2);
    } finally {
      await db.$client.end();
    }
  });

  it('has the same plan-revision triggers as SQLite: names, tables, events and watched columns', async () => {
    const url = await server.createDatabase('triggers');
    const db = openPostgres(url);
    const sqlite = openDatabase(':memory:');
    try {
      await migratePostgres(db);
      const watched = (definition: string) => [...definition.matchAll(/OLD\.[`"]?(\w+)[`"]? IS/gi)].map((m) => m[1]).sort();
      const sqliteTriggers = (
        sqlite.$client.prepare("select name, tbl_name as tableName, sql from sqlite_master where type = 'trigger'").all() as {
          name: string;
          tableName: string;
          sql: string;
        }[]
      ).map((t) => ({ name: t.name, table: t.tableName, event: /AFTER (\w+)/.exec(t.sql)![1], columns: watched(t.sql) }));
      const pgTriggers = (
        await db.$client.query<{ name: string; table: string; definition: string }>(
          `select tgname as name, tgrelid::regclass::text as table, pg_get_triggerdef(oid) as definition
             from pg_trigger where not tgisinternal`,
        )
      ).rows.map((t) => ({ name: t.name, table: t.table, event: /AFTER (\w+)/.exec(t.definition)![1], columns: watched(t.definition) }));
      const byName = (a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name);
      expect(sqliteTriggers.length).toBeGreaterThan(10);
      expect(pgTriggers.sort(byName)).toEqual(sqliteTriggers.sort(byName));
    } finally {
      sqlite.$client.close();
      await db.$client.end();
    }
  });

  it('names the database when it cannot reach it, without its password', async () => {
    const db = openPostgres(`postgres://someone:s3cret@127.0.0.1:${server.port + 1}/nowhere`);
    try {
      const failure = migratePostgres(db);
      await expect(failure).rejects.toThrow(DatabaseOpenError);
      await expect(failure).rejects.toThrow(/cannot .*postgres:\/\/someone:\*\*\*@127\.0\.0\.1:\d+\/nowhere/);
      await expect(failure).rejects.not.toThrow(/s3cret/);
    } finally {
      await db.$client.end();
    }
  });
});

describe('PostgreSQL URLs', () => {
  it('recognises postgres:// and postgresql:// only, and refuses anything else', () => {
    expect(['postgres://u@h/d', 'postgresql://h/d', 'sqlite:x.db', 'data/x.db', undefined].map(isPostgresUrl)).toEqual([
      true,
      true,
      false,
      false,
      false,
    ]);
    expect(() => openPostgres('mysql://h/d')).toThrow(/'mysql:\/\/h\/d' is not a PostgreSQL URL/);
    expect(redactPostgresUrl('postgres://u:pw@h:5432/d')).toBe('postgres://u:***@h:5432/d');
  });
});
