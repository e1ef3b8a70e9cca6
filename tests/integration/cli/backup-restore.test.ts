// Backup while another process writes: copies are sound snapshots (never half a transaction).
// Restore is tested in tests/integration/cli/restore-command.test.ts.
import Database from 'better-sqlite3';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '@/db/open-database';
import { runBackupCommand } from '@/server/cli/backup-command';
import { waitFor } from '@/tests/support/wait-for';

let dir: string;
let live: string;

function count(file: string, table = 'audit_log'): number {
  const db = new Database(file, { readonly: true });
  const n = (db.prepare(`select count(*) as n from ${table}`).get() as { n: number }).n;
  db.close();
  return n;
}

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fleetplan-backup-'));
  live = path.join(dir, 'live.db');
  openDatabase(live).$client.close();
});

afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/**
 * A second process inserting audit rows two per transaction until `stop()` (which resolves with
 * the number of transactions): it writes all the while the backups are taken, however slowly the
 * machine runs them. (A writer that stopped after a fixed time could finish before the last copy.)
 */
function startWriter(file: string) {
  const stopFile = path.join(dir, `stop-writer-${process.pid}-${Date.now()}`);
  const script = `
    const fs = require('node:fs');
    const Database = require('better-sqlite3');
    const db = new Database(${JSON.stringify(file)});
    db.pragma('journal_mode = WAL'); db.pragma('busy_timeout = 5000');
    const ins = db.prepare("insert into audit_log (at, actor, action, target) values (?, 'writer', 'test.pair', ?)");
    const pair = db.transaction((i) => { ins.run(Date.now(), 'a' + i); ins.run(Date.now(), 'b' + i); });
    const end = Date.now() + 60000; // a test that never stops it
    let i = 0;
    while (Date.now() < end) {
      pair(i++);
      if (i % 50 === 0 && fs.existsSync(${JSON.stringify(stopFile)})) break;
    }
    db.close();
    process.stdout.write(String(i));`;
  const child = spawn(process.execPath, ['-e', script], { cwd: process.cwd(), stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  const done = new Promise<number>((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(Number(out)) : reject(new Error(`writer exited ${code}`))));
  });
  return {
    stop: () => {
      fs.writeFileSync(stopFile, '');
      return done;
    },
    kill: () => child.kill(),
  };
}

async function quietly<T>(fn: () => Promise<T>): Promise<T> {
  const out = process.stdout.write.bind(process.stdout);
  const err = process.stderr.write.bind(process.stderr);
  process.stdout.write = () => true;
  process.stderr.write = () => true;
  try {
    return await fn();
  } finally {
    process.stdout.write = out;
    process.stderr.write = err;
  }
}

describe('fleetplan backup', () => {
  it('takes consistent, sound copies while another process writes in a loop', async () => {
    const writer = startWriter(live);
    try {
      await waitFor(() => count(live) > 199, 20_000, 'the writer to write 200 rows');
      const counts: number[] = [];
      for (let i = 0; i < 3; i++) {
        const file = path.join(dir, `copy-${i}.db`);
        expect(await quietly(() => runBackupCommand([file], { DATABASE_URL: live }))).toBe(0);
        const db = new Database(file, { readonly: true });
        expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
        db.close();
        counts.push(count(file));
        // the live database moves on before the next copy
        await waitFor(() => count(live) > counts[i]!, 20_000, `the writer to write more than ${counts[i]} rows`);
      }
      // every transaction writes two rows: an odd count would be a torn copy
      for (const n of counts) expect(n % 2).toBe(0);
      expect(counts[0]).toBeGreaterThanOrEqual(200);
      expect(counts[2]!).toBeGreaterThan(counts[0]!);
      const pairs = await writer.stop();
      expect(count(live)).toBe(pairs * 2);
      expect(counts[2]!).toBeLessThanOrEqual(pairs * 2);
    } finally {
      writer.kill();
    }
  });

  it('refuses to overwrite an existing file without --force', async () => {
    const file = path.join(dir, 'copy-0.db');
    await expect(quietly(() => runBackupCommand([file], { DATABASE_URL: live }))).rejects.toThrow(/exists; pass --force/);
    expect(await quietly(() => runBackupCommand([file, '--force'], { DATABASE_URL: live }))).toBe(0);
  });
});
