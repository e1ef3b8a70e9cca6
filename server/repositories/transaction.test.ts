import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '@/db/open-database';
import { hasSetting, readSetting, writeSetting } from './scheduler-repository';
import { readTogether, withTransaction } from './transaction';

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
    await expect(
      async () =>
        await withTransaction(db, async (tx) => {
          await writeSetting(tx, 'a', 1, at);
          await writeSetting(tx, 'b', 2, at);
          throw new Error('boom');
        }),
    ).rejects.toThrow('boom');
    expect(await hasSetting(db, 'a')).toBe(false);
    expect(await hasSetting(db, 'b')).toBe(false);
  });

  it('nests as a savepoint: an inner failure undoes only the inner writes', async () => {
    const db = openDatabase(':memory:');
    await withTransaction(db, async (tx) => {
      await writeSetting(tx, 'outer', 1, at);
      await expect(
        async () =>
          await withTransaction(tx, async (inner) => {
            await writeSetting(inner, 'inner', 2, at);
            throw new Error('inner');
          }),
      ).rejects.toThrow('inner');
    });
    expect(await hasSetting(db, 'outer')).toBe(true);
    expect(await hasSetting(db, 'inner')).toBe(false);
  });

  it('gives the work the raw connection too, inside the same transaction', async () => {
    const db = openDatabase(':memory:');
    await expect(
      async () =>
        await withTransaction(db, (tx) => {
          expect(tx.$client.inTransaction).toBe(true);
          tx.$client.prepare(`insert into settings (key, value, updated_at) values ('raw', '1', 0)`).run();
          throw new Error('undo');
        }),
    ).rejects.toThrow('undo');
    expect(await hasSetting(db, 'raw')).toBe(false);
  });

  it('nests as a savepoint on the outer handle too (a repository called with the connection it was given)', async () => {
    const db = openDatabase(':memory:');
    await withTransaction(db, async () => {
      await writeSetting(db, 'outer', 1, at);
      await expect(
        async () =>
          await withTransaction(db, async () => {
            await writeSetting(db, 'inner', 2, at);
            throw new Error('inner');
          }),
      ).rejects.toThrow('inner');
      expect(db.$client.inTransaction).toBe(true);
    });
    expect(await hasSetting(db, 'outer')).toBe(true);
    expect(await hasSetting(db, 'inner')).toBe(false);
    expect(db.$client.inTransaction).toBe(false);
  });
});

describe('withTransaction on a connection other work shares (one process, awaits between statements)', () => {
  /** resolves after the microtasks and timers already queued ran: other work gets its chance */
  const yieldToOthers = () => new Promise<void>((resolve) => setTimeout(resolve, 5));

  it('keeps other work out of an open transaction: its write is not rolled back with it, and lands after', async () => {
    const db = openDatabase(':memory:');
    let outsideDone = false;
    let begin!: () => void;
    const started = new Promise<void>((resolve) => (begin = resolve));
    // another request, begun outside the unit of work, writes through the same connection
    const outside = (async () => {
      await started;
      await writeSetting(db, 'outside', 2, at);
      outsideDone = true;
    })();
    const failed = withTransaction(db, async (tx) => {
      await writeSetting(tx, 'inside', 1, at);
      begin();
      await yieldToOthers();
      expect(outsideDone).toBe(false); // it waits for the transaction to end
      throw new Error('undo');
    });
    await expect(failed).rejects.toThrow('undo');
    await outside;
    expect(outsideDone).toBe(true);
    expect(await hasSetting(db, 'inside')).toBe(false);
    expect(await readSetting(db, 'outside')).toBe(2);
  });

  it('runs two units of work one after the other: each sees the other whole or not at all', async () => {
    const db = openDatabase(':memory:');
    await writeSetting(db, 'n', 0, at);
    const increment = () =>
      withTransaction(db, async (tx) => {
        const n = (await readSetting<number>(tx, 'n'))!;
        await yieldToOthers(); // a lost update if the other unit could read n here
        await writeSetting(tx, 'n', n + 1, at);
      });
    await Promise.all([increment(), increment(), increment()]);
    expect(await readSetting(db, 'n')).toBe(3);
  });

  it("lets the unit's own calls through on the outer handle (no waiting on itself)", async () => {
    const db = openDatabase(':memory:');
    await withTransaction(db, async () => {
      await writeSetting(db, 'a', 1, at);
      expect(await readSetting(db, 'a')).toBe(1);
    });
    expect(await readSetting(db, 'a')).toBe(1);
  });
});

describe('readTogether', () => {
  it('keeps reads that await between them together: a unit of work begun meanwhile waits for them', async () => {
    const db = openDatabase(':memory:');
    await writeSetting(db, 'n', 1, at);
    let writerDone = false;
    const reads = readTogether(db, async () => {
      const first = await readSetting<number>(db, 'n');
      await new Promise((resolve) => setTimeout(resolve, 10)); // the writer asks meanwhile
      expect(writerDone).toBe(false);
      return [first, await readSetting<number>(db, 'n')];
    });
    const writer = withTransaction(db, async (tx) => {
      await writeSetting(tx, 'n', 2, at);
      writerDone = true;
    });
    expect(await reads).toEqual([1, 1]);
    await writer;
    expect(await readSetting(db, 'n')).toBe(2);
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
        await expect(async () => await writeSetting(worker, 'n', 100, at)).rejects.toThrow(/database is locked|SQLITE_BUSY/);
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
