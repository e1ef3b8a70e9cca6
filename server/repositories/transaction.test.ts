import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '@/db/open-database';
import { hasSetting, readSetting, writeSetting } from './scheduler-repository';
import { withTransaction } from './transaction';

const at = new Date('2026-01-01T00:00:00Z');

describe('withTransaction', () => {
  it('commits what the work wrote and returns its result', () => {
    const db = openDatabase(':memory:');
    const result = withTransaction(db, (tx) => {
      writeSetting(tx, 'a', 1, at);
      return 'done';
    });
    expect(result).toBe('done');
    expect(readSetting(db, 'a')).toBe(1);
  });

  it('rolls back every write when the work throws', () => {
    const db = openDatabase(':memory:');
    expect(() =>
      withTransaction(db, (tx) => {
        writeSetting(tx, 'a', 1, at);
        writeSetting(tx, 'b', 2, at);
        throw new Error('boom');
      }),
    ).toThrow('boom');
    expect(hasSetting(db, 'a')).toBe(false);
    expect(hasSetting(db, 'b')).toBe(false);
  });

  it('nests as a savepoint: an inner failure undoes only the inner writes', () => {
    const db = openDatabase(':memory:');
    withTransaction(db, (tx) => {
      writeSetting(tx, 'outer', 1, at);
      expect(() =>
        withTransaction(tx, (inner) => {
          writeSetting(inner, 'inner', 2, at);
          throw new Error('inner');
        }),
      ).toThrow('inner');
    });
    expect(hasSetting(db, 'outer')).toBe(true);
    expect(hasSetting(db, 'inner')).toBe(false);
  });

  it('gives the work the raw connection too, inside the same transaction', () => {
    const db = openDatabase(':memory:');
    expect(() =>
      withTransaction(db, (tx) => {
        expect(tx.$client.inTransaction).toBe(true);
        tx.$client.prepare(`insert into settings (key, value, updated_at) values ('raw', '1', 0)`).run();
        throw new Error('undo');
      }),
    ).toThrow('undo');
    expect(hasSetting(db, 'raw')).toBe(false);
  });

  it('nests as a savepoint on the outer handle too (a repository called with the connection it was given)', () => {
    const db = openDatabase(':memory:');
    withTransaction(db, () => {
      writeSetting(db, 'outer', 1, at);
      expect(() =>
        withTransaction(db, () => {
          writeSetting(db, 'inner', 2, at);
          throw new Error('inner');
        }),
      ).toThrow('inner');
      expect(db.$client.inTransaction).toBe(true);
    });
    expect(hasSetting(db, 'outer')).toBe(true);
    expect(hasSetting(db, 'inner')).toBe(false);
    expect(db.$client.inTransaction).toBe(false);
  });
});

describe('withTransaction across two connections (the server thread and the scheduler worker)', () => {
  it('takes the write lock at its start: a read-then-write unit never fails on data another connection committed meanwhile', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fleetplan-tx-'));
    try {
      const file = path.join(dir, 'fleet.db');
      const server = openDatabase(file);
      const worker = openDatabase(file);
      worker.$client.pragma('busy_timeout = 0');
      writeSetting(server, 'n', 1, at);
      const result = withTransaction(server, (tx) => {
        const n = readSetting<number>(tx, 'n')!;
        // the other connection cannot slip a write in between the read and the write
        expect(() => writeSetting(worker, 'n', 100, at)).toThrow(/database is locked|SQLITE_BUSY/);
        writeSetting(tx, 'n', n + 1, at);
        return n + 1;
      });
      expect(result).toBe(2);
      expect(readSetting(worker, 'n')).toBe(2);
      // and once it committed, the other connection writes as usual
      writeSetting(worker, 'n', 3, at);
      expect(readSetting(server, 'n')).toBe(3);
      server.$client.close();
      worker.$client.close();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
