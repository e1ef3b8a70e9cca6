// `fleetplan restore` accepts only this build's exact schema, refuses while a server has the
// database open, and records who restored which file (sha256) in the restored database.
import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MIGRATIONS_FOLDER, openDatabase } from '@/db/open-database';
import { seedDemo } from '@/server/services/demo-seed-service';
import { backupDatabase } from '@/server/cli/backup-command';
import { verifyFleetplanSchema } from '@/db/database-schema';
import { RESTORE_AUDIT_ACTION, restoreDatabase } from '@/server/cli/restore-command';
import { runCli, startFixture } from '../fixtures/spawn-process';

const NOW = new Date('2026-11-22T12:00:00Z');
let dir: string;
let live: string;
let goodBackup: string;

function sha256(file: string): string {
  return createHash('sha256').update(fs.readFileSync(file)).digest('hex');
}

function rows(file: string, sql: string): unknown[] {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare(sql).all();
  } finally {
    db.close();
  }
}

/** a copy of the good backup changed by `sql` */
function tamperedCopy(name: string, sql: string): string {
  const file = path.join(dir, name);
  fs.copyFileSync(goodBackup, file);
  const db = new Database(file);
  db.exec(sql);
  db.close();
  return file;
}

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fleetplan-restore-'));
  live = path.join(dir, 'live.db');
  const db = openDatabase(live);
  await seedDemo(db, NOW);
  db.$client.prepare("insert into users (username, password_hash, role, created_at) values ('vera', 'x', 'viewer', ?)").run(NOW.getTime());
  db.$client.close();
  goodBackup = path.join(dir, 'good.db');
  await backupDatabase(live, goodBackup);
  // the live database moves on after the backup, so a restore is visible
  const later = openDatabase(live);
  later.$client.prepare("insert into audit_log (at, actor, action, target) values (?, 'x', 'after.backup', 'x')").run(NOW.getTime());
  later.$client.close();
});

afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

let liveHashBefore: string;
beforeEach(() => {
  liveHashBefore = sha256(live);
});

function expectRefused(file: string, message: RegExp): void {
  expect(() => restoreDatabase(file, live)).toThrow(message);
  expect(sha256(live)).toBe(liveHashBefore);
  expect(fs.readdirSync(dir).filter((f) => f.includes('.restore-'))).toEqual([]);
}

describe('fleetplan restore refuses what is not exactly a fleetplan database', () => {
  it('refuses a stub that has the expected table names but none of their columns', () => {
    const names = rows(goodBackup, "select name from sqlite_master where type = 'table' and name not like 'sqlite_%'") as {
      name: string;
    }[];
    expect(names.length).toBeGreaterThan(10);
    const stub = path.join(dir, 'stub.db');
    const db = new Database(stub);
    for (const { name } of names) db.exec(`create table "${name}" (x)`);
    db.close();
    expectRefused(stub, /not a fleetplan backup/);
  });

  it('refuses the stub even when it carries our migration history', () => {
    const names = rows(goodBackup, "select name from sqlite_master where type = 'table' and name not like 'sqlite_%'") as {
      name: string;
    }[];
    const stub = path.join(dir, 'stub-with-history.db');
    const db = new Database(stub);
    for (const { name } of names) if (name !== '__drizzle_migrations') db.exec(`create table "${name}" (x)`);
    const [history] = rows(goodBackup, "select sql from sqlite_master where name = '__drizzle_migrations'") as { sql: string }[];
    db.exec(history!.sql);
    for (const m of rows(goodBackup, 'select hash, created_at from __drizzle_migrations') as { hash: string; created_at: number }[]) {
      db.prepare('insert into __drizzle_migrations (hash, created_at) values (?, ?)').run(m.hash, m.created_at);
    }
    db.close();
    expectRefused(stub, /not a fleetplan backup of this version: table action_intents differs .* and \d+ more differences$/);
  });

  it('refuses a real backup with an added trigger (the viewer-becomes-admin attack)', () => {
    const file = tamperedCopy(
      'trigger.db',
      "create trigger promote after insert on sessions begin update users set role = 'admin' where id = new.user_id; end",
    );
    expectRefused(file, /unexpected trigger promote/);
  });

  it('refuses a real backup with an added view, an added column or a dropped index', () => {
    expectRefused(tamperedCopy('view.db', 'create view v as select * from users'), /unexpected view v/);
    expectRefused(tamperedCopy('column.db', 'alter table users add column backdoor text'), /table users differs/);
    const indexName = (
      rows(goodBackup, "select name from sqlite_master where type = 'index' and sql is not null limit 1") as { name: string }[]
    )[0]!.name;
    expectRefused(tamperedCopy('index.db', `drop index "${indexName}"`), new RegExp(`missing index ${indexName}`));
  });

  it('refuses a backup whose migration history is not this build’s', () => {
    expectRefused(tamperedCopy('history.db', "update __drizzle_migrations set hash = 'forged'"), /migration 1 is not this build's/);
    expectRefused(
      tamperedCopy('newer.db', "insert into __drizzle_migrations (hash, created_at) values ('future', 99999999999999)"),
      /made by a newer fleetplan/,
    );
  });

  it('refuses a file that is not SQLite, a directory, an empty file and a damaged copy, each with a clear message', () => {
    const text = path.join(dir, 'notes.txt');
    fs.writeFileSync(text, 'definitely not a database\n'.repeat(50));
    expectRefused(text, /is not a SQLite database/);
    const empty = path.join(dir, 'empty.db');
    fs.writeFileSync(empty, '');
    expectRefused(empty, /is not a SQLite database/);
    expectRefused(dir, /is a directory/);
    expectRefused(path.join(dir, 'missing.db'), /does not exist/);
    const damaged = path.join(dir, 'damaged.db');
    const bytes = fs.readFileSync(goodBackup);
    bytes.fill(0x5a, 4096 * 3, 4096 * 6);
    fs.writeFileSync(damaged, bytes);
    expectRefused(damaged, /damaged|not a readable|could not be checked|malformed/);
  });
});

describe('fleetplan restore and a running server', () => {
  it('refuses while a process holds the database the way `npm start` does (scheduler off), then restores once it stopped', async () => {
    const server = await startFixture('tests/integration/fixtures/hold-database-like-a-server.ts', {
      DATABASE_URL: live,
      FLEETPLAN_SCHEDULER: 'off',
      FLEETPLAN_ADMIN_PASSWORD: 'a-long-enough-password',
    });
    try {
      liveHashBefore = sha256(live);
      const refused = await runCli(['restore', goodBackup], { DATABASE_URL: live });
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/^fleetplan restore: another process has .*live\.db open/);
      expect(refused.stderr.trim().split('\n')).toHaveLength(1);
      expect(rows(live, "select count(*) as n from audit_log where action = 'after.backup'")).toEqual([{ n: 1 }]);
      expect(sha256(live)).toBe(liveHashBefore);
    } finally {
      await server.stop();
    }
    const restored = await runCli(['restore', goodBackup], { DATABASE_URL: live });
    expect(restored.stderr).toBe('');
    expect(restored.code).toBe(0);
    expect(rows(live, "select count(*) as n from audit_log where action = 'after.backup'")).toEqual([{ n: 0 }]);
    // a tsx fixture that prepares the database, then two CLI processes: 6 s with one other test process running
  }, 120_000);
});

describe('a successful restore', () => {
  it('is audited in the restored database (OS user, real time, file, sha256), signs everyone out, and leaves one private file', () => {
    const withSession = path.join(dir, 'with-session.db');
    fs.copyFileSync(goodBackup, withSession);
    const s = new Database(withSession);
    s.prepare("insert into sessions (id_hash, user_id, csrf_token, created_at, expires_at) values ('h', 1, 'c', ?, ?)").run(
      NOW.getTime(),
      NOW.getTime() + 86_400_000 * 365 * 10,
    );
    s.close();
    const fileHash = sha256(withSession);
    const before = Date.now();
    restoreDatabase(withSession, live);
    const after = Date.now();

    const audit = rows(live, `select at, actor, action, target, after from audit_log where action = '${RESTORE_AUDIT_ACTION}'`) as {
      at: number;
      actor: string;
      target: string;
      after: string;
    }[];
    expect(audit).toHaveLength(1);
    expect(audit[0]!.actor).toBe(`cli:${os.userInfo().username}`);
    expect(audit[0]!.at).toBeGreaterThanOrEqual(before);
    expect(audit[0]!.at).toBeLessThanOrEqual(after);
    expect(audit[0]!.target).toBe(`database:${path.resolve(live)}`);
    expect(JSON.parse(audit[0]!.after)).toMatchObject({ file: withSession, sha256: fileHash, sessionsSignedOut: 1 });
    expect(rows(live, 'select count(*) as n from sessions')).toEqual([{ n: 0 }]);
    expect(rows(live, "select role from users where username = 'vera'")).toEqual([{ role: 'viewer' }]);

    expect(fs.statSync(live).mode & 0o777).toBe(0o600);
    expect(fs.readdirSync(dir).filter((f) => f.startsWith('live.db'))).toEqual(['live.db']);
    const reopened = openDatabase(live);
    expect(reopened.$client.pragma('integrity_check', { simple: true })).toBe('ok');
    reopened.$client.close();
  });

  it('restores into a location that has no database yet (a new machine): private file in a private directory', () => {
    const target = path.join(dir, 'new-machine', 'data', 'fleetplan.db');
    restoreDatabase(goodBackup, target);
    expect(rows(target, "select count(*) as n from users where username = 'vera'")).toEqual([{ n: 1 }]);
    expect(fs.statSync(target).mode & 0o777).toBe(0o600);
    expect(fs.statSync(path.dirname(target)).mode & 0o777).toBe(0o700);
    expect(fs.readdirSync(path.dirname(target))).toEqual(['fleetplan.db']);
  });

  it('accepts a backup from before a later migration (verified against the schema of its own migrations)', () => {
    const folder = fs.mkdtempSync(path.join(dir, 'migrations-'));
    fs.cpSync(MIGRATIONS_FOLDER, folder, { recursive: true });
    const journalFile = path.join(folder, 'meta', '_journal.json');
    const journal = JSON.parse(fs.readFileSync(journalFile, 'utf8')) as { entries: { idx: number; when: number; tag: string }[] };
    const last = journal.entries[journal.entries.length - 1]!;
    journal.entries.push({ ...last, idx: last.idx + 1, when: last.when + 1000, tag: '9999_later' });
    fs.writeFileSync(journalFile, JSON.stringify(journal));
    fs.writeFileSync(path.join(folder, '9999_later.sql'), 'CREATE TABLE `later_things` (`id` integer PRIMARY KEY NOT NULL);');

    const older = new Database(goodBackup, { readonly: true });
    expect(verifyFleetplanSchema(older, folder)).toEqual({ ok: true, migrations: journal.entries.length - 1 });
    older.close();
    const newer = openDatabase(path.join(dir, 'newer-schema.db'), { migrationsFolder: folder });
    expect(verifyFleetplanSchema(newer.$client, folder)).toEqual({ ok: true, migrations: journal.entries.length });
    newer.$client.exec('drop table later_things');
    expect(verifyFleetplanSchema(newer.$client, folder)).toEqual({ ok: false, problems: ['missing table later_things'] });
    newer.$client.close();
  });
});
