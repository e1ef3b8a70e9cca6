// The database, its -wal/-shm and backups hold password hashes and webhook secrets: only their
// owner may read them. A backup is one self-contained file with nothing left beside it.
import Database from 'better-sqlite3';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '@/db/open-database';
import { runCli } from './fixtures/spawn-process';

let dir: string;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fleetplan-files-'));
});

afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function mode(file: string): string {
  return (fs.statSync(file).mode & 0o777).toString(8);
}

describe('database file permissions', () => {
  it('creates the database, its -wal and -shm readable by the owner only, and its new directory 0700', () => {
    const file = path.join(dir, 'new-dir', 'fleet.db');
    const db = openDatabase(file);
    db.$client.prepare("insert into settings (key, value, updated_at) values ('k', '1', 0)").run();
    expect(fs.existsSync(`${file}-wal`)).toBe(true);
    expect([mode(file), mode(`${file}-wal`), mode(`${file}-shm`)]).toEqual(['600', '600', '600']);
    expect(mode(path.dirname(file))).toBe('700');
    db.$client.close();
  });

  it('narrows an existing world-readable database when it is opened', () => {
    const file = path.join(dir, 'old.db');
    openDatabase(file).$client.close();
    fs.chmodSync(file, 0o644);
    openDatabase(file).$client.close();
    expect(mode(file)).toBe('600');
  });
});

describe('fleetplan backup files', () => {
  it('writes a private, self-contained backup and leaves no -wal, -shm or temporary file behind', async () => {
    const live = path.join(dir, 'live.db');
    const db = openDatabase(live);
    db.$client.prepare("insert into settings (key, value, updated_at) values ('k', '1', 0)").run();
    const backups = path.join(dir, 'backups');
    fs.mkdirSync(backups);
    const target = path.join(backups, 'copy.db');
    // the live database stays open, as under a running server
    const out = await runCli(['backup', target], { DATABASE_URL: live });
    db.$client.close();
    expect(out.stderr).toBe('');
    expect(out.code).toBe(0);
    expect(fs.readdirSync(backups)).toEqual(['copy.db']);
    expect(mode(target)).toBe('600');
    // header bytes 18-19: 1 = rollback journal, 2 = WAL (a WAL copy would need its -wal to be whole)
    const header = fs.readFileSync(target).subarray(18, 20);
    expect([...header]).toEqual([1, 1]);
    const copy = new Database(target, { readonly: true });
    expect(copy.prepare("select value from settings where key = 'k'").get()).toEqual({ value: '1' });
    copy.close();
    expect(fs.readdirSync(backups)).toEqual(['copy.db']);
  });
});
