// The PostgreSQL handle across copies of db/postgres-handle.ts: Next bundles the module into each
// route's chunks, and the app's one handle is made by whichever copy opens it first. Every copy
// must know the handle, and run a query made through it inside the unit of work of another copy.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startThrowawayPostgres, type ThrowawayPostgres } from '@/tests/support/throwaway-postgres';
import { migratePostgres, openPostgres, type PgDb } from './open-postgres';

type HandleModule = typeof import('./postgres-handle');

/** a fresh copy of the module, as another chunk of the build would have */
async function loadCopy(): Promise<HandleModule> {
  vi.resetModules();
  return await import('./postgres-handle');
}

let server: ThrowawayPostgres | undefined;
let base: PgDb | undefined;
beforeAll(async () => {
  server = await startThrowawayPostgres();
  base = openPostgres(await server.createDatabase('handle_copies'));
  await migratePostgres(base);
}, 60_000);
afterAll(async () => {
  await base?.$client.end();
  server?.stop();
});

describe('the PostgreSQL handle in two copies of its module', () => {
  it('is a PostgreSQL handle to the copy that did not make it', async () => {
    const maker = await loadCopy();
    const other = await loadCopy();
    expect(other).not.toBe(maker);
    expect(other.isPostgresHandle(maker.asFleetplanDb(base!))).toBe(true);
  });

  it("runs a query made through it inside the other copy's unit of work, and rolls it back with it", async () => {
    const maker = await loadCopy();
    const other = await loadCopy();
    const db = maker.asFleetplanDb(base!);
    const inside = other.inPostgresTransaction(db, async () => {
      // outside the unit of work this insert would be committed at once
      await (db as unknown as PgDb).execute("insert into settings (key, value, updated_at) values ('copies', '1', now())");
      throw new Error('undo');
    });
    await expect(inside).rejects.toThrow('undo');
    expect((await base!.$client.query("select key from settings where key = 'copies'")).rows).toEqual([]);
  });
});
