// Next bundles server code more than once (a copy of a module in each of several chunks) (instrumentation, route handlers): a handle made through
// one copy of db/postgres-handle.ts and a unit of work begun through one copy of
// server/repositories/transaction.ts must be known to every other copy. (A production server on
// PostgreSQL answered /api/readyz with "e.get is not a function": the route's copy did not know
// the handle the scheduler's copy had made, and took it for SQLite.)
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { migratePostgres, openPostgres, type PgDb } from './open-postgres';
import { startThrowawayPostgres, type ThrowawayPostgres } from '@/tests/support/throwaway-postgres';

let server: ThrowawayPostgres;
beforeAll(async () => {
  server = await startThrowawayPostgres();
}, 60_000);
afterAll(() => server?.stop());

it('knows a handle, and its units of work, whichever copy of the modules made them', async () => {
  const first = await import('./postgres-handle');
  vi.resetModules();
  const second = await import('./postgres-handle');
  const secondTransactions = await import('@/server/repositories/transaction');
  expect(second).not.toBe(first);
  const base = openPostgres(await server.createDatabase());
  try {
    const db = first.asFleetplanDb(base);
    expect(second.isPostgresHandle(db)).toBe(true);
    // a unit of work begun through the other copy: the handle's queries run inside it (SERIALIZABLE)
    const isolation = async () =>
      (
        await (db as unknown as { execute(q: string): Promise<{ rows: { level: string }[] }> }).execute(
          "select current_setting('transaction_isolation') as level",
        )
      ).rows[0]!.level;
    expect(await isolation()).toBe('read committed');
    expect(await secondTransactions.withTransaction(db, isolation)).toBe('serializable');
  } finally {
    await base.$client.end();
  }
});

it("runs a query made through the handle inside another copy's unit of work, and rolls it back with it", async () => {
  const maker = await import('./postgres-handle');
  vi.resetModules();
  const other = await import('./postgres-handle');
  const base = openPostgres(await server.createDatabase());
  try {
    await migratePostgres(base);
    const db = maker.asFleetplanDb(base);
    const inside = other.inPostgresTransaction(db, async () => {
      // outside the unit of work this insert would be committed at once
      await (db as unknown as PgDb).execute("insert into settings (key, value, updated_at) values ('copies', '1', now())");
      throw new Error('undo');
    });
    await expect(inside).rejects.toThrow('undo');
    expect((await base.$client.query("select key from settings where key = 'copies'")).rows).toEqual([]);
  } finally {
    await base.$client.end();
  }
});

it('holds a SQLite connection for a unit of work against callers of another copy of the module', async () => {
  const first = await import('@/server/repositories/transaction');
  vi.resetModules();
  const second = await import('@/server/repositories/transaction');
  const { openDatabase } = await import('./open-database');
  const db = openDatabase(':memory:');
  try {
    let finish!: () => void;
    const unit = first.withTransaction(db, () => new Promise<void>((resolve) => (finish = resolve)));
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(second.connectionHeld(db)).toBe(true);
    finish();
    await unit;
    expect(second.connectionHeld(db)).toBe(false);
  } finally {
    db.$client.close();
  }
});

it('reads together from one snapshot: a unit of work committed between two reads shows up in neither', async () => {
  const { asFleetplanDb } = await import('./postgres-handle');
  const { readTogether, withTransaction } = await import('@/server/repositories/transaction');
  const { readSetting, writeSetting } = await import('@/server/repositories/scheduler-repository');
  const url = await server.createDatabase();
  const base = openPostgres(url);
  const othersBase = openPostgres(url); // another replica's pool
  try {
    await migratePostgres(base);
    const db = asFleetplanDb(base);
    const others = asFleetplanDb(othersBase);
    const at = new Date('2026-11-27T06:00:00.000Z');
    await writeSetting(db, 'page', 1, at);
    const [before, after] = await readTogether(db, async () => {
      const first = await readSetting<number>(db, 'page');
      // another replica's unit of work, committed between the two reads
      await withTransaction(others, () => writeSetting(others, 'page', 2, at));
      return [first, await readSetting<number>(db, 'page')];
    });
    expect([before, after]).toEqual([1, 1]);
    expect(await readSetting<number>(db, 'page')).toBe(2);
  } finally {
    await Promise.all([base.$client.end(), othersBase.$client.end()]);
  }
});
