import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '@/db/open-database';
import { hasSetting, readSetting, writeSetting } from './scheduler-repository';
import { withTransaction } from './transaction';

const at = new Date('2026-01-01T00:00:00Z');

describe('withTransaction', () => {
  it('commits what the work wrote and returns its result', async () => {
    const db = openDatabase(':memory:');
    const result = await withTransaction(db, async (tx) => {
      await writeSetting(tx, 'a', 1, at);
      return 'done';
    });
    expect(result).toBe('done');
    expect(await readSetting(db, 'a')).toBe(1);
  });

  it('rolls back every write when the work throws', async () => {
    const db = openDatabase(':memory:');
    expect(
      async () =>
        await withTransaction(db, async (tx) => {
          await writeSetting(tx, 'a', 1, at);
          await writeSetting(tx, 'b', 2, at);
          throw new Error('boom');
        }),
    ).toThrow('boom');
    expect(await hasSetting(db, 'a')).toBe(false);
    expect(await hasSetting(db, 'b')).toBe(false);
  });

  it('nests as a savepoint: an inner failure undoes only the inner writes', async () => {
    const db = openDatabase(':memory:');
    await withTransaction(db, async (tx) => {
      await writeSetting(tx, 'outer', 1, at);
      expect(
        async () =>
          await withTransaction(tx, async (inner) => {
            await writeSetting(inner, 'inner', 2, at);
            throw new Error('inner');
          }),
      ).toThrow('inner');
    });
    expect(await hasSetting(db, 'outer')).toBe(true);
    expect(await hasSetting(db, 'inner')).toBe(false);
  });

  it('gives the work the raw connection too, inside the same transaction', async () => {
    const db = openDatabase(':memory:');
    expect(
      async () =>
        await withTransaction(db, (tx) => {
          expect(tx.$client.inTransaction).toBe(true);
          tx.$client.prepare(`insert into settings (key, value, updated_at) values ('raw', '1', 0)`).run();
          throw new Error('undo');
        }),
    ).toThrow('undo');
    expect(await hasSetting(db, 'raw')).toBe(false);
  });

  it('nests as a savepoint on the outer handle too (a repository called with the connection it was given)', async () => {
    const db = openDatabase(':memory:');
    await withTransaction(db, async () => {
      await writeSetting(db, 'outer', 1, at);
      expect(
        async () =>
          await withTransaction(db, async () => {
            await writeSetting(db, 'inner', 2, at);
            throw new Error('inner');
          }),
      ).toThrow('inner');
      expect(db.$client.inTransaction).toBe(true);
    });
    expect(await hasSetting(db, 'outer')).toBe(true);
    expect(await hasSetting(db, 'inner')).toBe(false);
    expect(db.$client.inTransaction).toBe(false);
  });
});

describe('withTransaction across two connections (the server thread and the scheduler worker)', () => {
  it('takes the write lock at its start: a read-then-write unit never fails on data another connection committed meanwhile', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fleetplan-tx-'));
    try {
      const file = path.join(dir, 'fleet.db');
      const server = openDatabase(file);
      const worker = openDatabase(file);
      worker.$client.pragma('busy_timeout = 0');
      await writeSetting(server, 'n', 1, at);
      const result = await withTransaction(server, async (tx) => {
        const n = (await readSetting<number>(tx, 'n'))!;
        // the other connection cannot slip a write in between the read and the write
        expect(async () => await writeSetting(worker, 'n', 100, at)).toThrow(/database is locked|SQLITE_BUSY/);
        await writeSetting(tx, 'n', n + 1, at);
        return n + 1;
      });
      expect(result).toBe(2);
      expect(await readSetting(worker, 'n')).toBe(2);
      // and once it committed, the other connection writes as usual
      await writeSetting(worker, 'n', 3, at);
      expect(await readSetting(server, 'n')).toBe(3);
      server.$client.close();
      worker.$client.close();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
