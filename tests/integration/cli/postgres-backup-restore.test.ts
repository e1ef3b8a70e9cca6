// `fleetplan backup` and `fleetplan restore` with DATABASE_URL=postgres://… (pg_dump/pg_restore
// wrapped), on a throw-away PostgreSQL: a backup restores the database as it was, signs everyone
// out and leaves an audit row; a file that is not a fleetplan dump, and a database a replica is
// still connected to, are refused and change nothing.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeDatabase, openDatabaseAt } from '@/db/connect';
import type { Db } from '@/db/open-database';
import { APPLICATION_NAME, openPostgres } from '@/db/open-postgres';
import { asFleetplanDb } from '@/db/postgres-handle';
import { runBackupCommand } from '@/server/cli/backup-command';
import { runRestoreCommand } from '@/server/cli/restore-command';
import { listAudit } from '@/server/repositories/audit-repository';
import { countOtherConnections } from '@/server/repositories/health-repository';
import {
  findOrganizationByName,
  insertEmptyOrganization,
  listOrganizations,
  renameOrganization,
} from '@/server/repositories/organization-repository';
import { findLiveSession, insertSession } from '@/server/repositories/session-repository';
import { insertUser } from '@/server/repositories/user-repository';
import { startThrowawayPostgres, type ThrowawayPostgres } from '@/tests/support/throwaway-postgres';
import { waitFor } from '@/tests/support/wait-for';

const NOW = new Date('2026-11-27T09:00:00.000Z');
let server: ThrowawayPostgres;
let dir: string;

beforeAll(async () => {
  server = await startThrowawayPostgres();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fleetplan-pg-backup-'));
}, 60_000);
afterAll(() => {
  server?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function quietly<T>(fn: () => Promise<T>): Promise<{ result: T; out: string }> {
  const write = process.stdout.write.bind(process.stdout);
  let out = '';
  process.stdout.write = (chunk: string | Uint8Array) => ((out += String(chunk)), true);
  try {
    return { result: await fn(), out };
  } finally {
    process.stdout.write = write;
  }
}

async function withDb<T>(url: string, work: (db: Db) => Promise<T>): Promise<T> {
  const db = await openDatabaseAt({ kind: 'postgres', url });
  try {
    return await work(db);
  } finally {
    await closeDatabase(db);
  }
}

/**
 * Waits until `count` fleetplan connections to the database at `url` are open (restore refuses
 * while any is). A pool this test ended is closed on its side at once, but its server process
 * leaves pg_stat_activity a moment later (often still there right after the close, for longer on a
 * loaded machine): a restore just then would count it as a replica still connected.
 */
async function untilFleetplanConnections(url: string, count: number): Promise<void> {
  // counted as restore counts them, from a connection that is not a fleetplan one itself
  const watcher = asFleetplanDb(openPostgres(url, { max: 1, applicationName: 'test-watcher' }));
  try {
    await waitFor(
      async () => (await countOtherConnections(watcher, APPLICATION_NAME)) === count,
      20_000,
      `${count} fleetplan connections to ${url}`,
    );
  } finally {
    await closeDatabase(watcher);
  }
}

describe('backup and restore on PostgreSQL', () => {
  it('restores the database as it was at the backup, signs everyone out and records who restored what', async () => {
    const url = await server.createDatabase();
    await withDb(url, async (db) => {
      await insertEmptyOrganization(db, 'payments', NOW);
      const { id: userId } = await insertUser(db, { username: 'ana', passwordHash: 'x', role: 'admin', createdAt: NOW });
      await insertSession(db, { idHash: 'h1', userId, csrfToken: 'c', createdAt: NOW, expiresAt: new Date(NOW.getTime() + 3_600_000) });
    });
    const file = path.join(dir, 'fleet.dump');
    const backup = await quietly(() => runBackupCommand([file], { DATABASE_URL: url }));
    expect(backup.result).toBe(0);
    expect(backup.out).toMatch(
      /^fleetplan backup: postgres:\/\/postgres@127\.0\.0\.1:\d+\/\w+ -> .*fleet\.dump \(pg_dump custom format, \d+ tables, \d+ bytes\)/,
    );
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    // without --force an existing backup is kept
    await expect(quietly(() => runBackupCommand([file], { DATABASE_URL: url }))).rejects.toThrow(/exists; pass --force/);

    // changed after the backup
    await withDb(url, async (db) => {
      const org = await findOrganizationByName(db, 'payments');
      await renameOrganization(db, org!.id, 'billing', NOW);
      await insertEmptyOrganization(db, 'later', NOW);
    });

    await untilFleetplanConnections(url, 0);
    const restore = await quietly(() => runRestoreCommand([file], { DATABASE_URL: url }, { now: () => NOW, osUser: 'ops' }));
    expect(restore.result).toBe(0);
    expect(restore.out).toMatch(/1 sessions signed out/);
    await withDb(url, async (db) => {
      expect((await listOrganizations(db)).map((o) => o.name)).toEqual(['payments']);
      expect(await findLiveSession(db, 'h1', NOW)).toBeUndefined();
      const [entry] = (await listAudit(db)).rows;
      expect(entry).toMatchObject({ actor: 'cli:ops', action: 'database.restore', after: { file, sessionsSignedOut: 1 } });
    });
  });

  it('refuses a file that is not a fleetplan dump, and a database a replica is connected to; nothing changes', async () => {
    const url = await server.createDatabase();
    await withDb(url, (db) => insertEmptyOrganization(db, 'payments', NOW));
    const file = path.join(dir, 'kept.dump');
    await quietly(() => runBackupCommand([file], { DATABASE_URL: url }));

    const junk = path.join(dir, 'junk.dump');
    fs.writeFileSync(junk, 'PGDMP but not really');
    await expect(quietly(() => runRestoreCommand([junk], { DATABASE_URL: url }))).rejects.toThrow(
      /is not a PostgreSQL dump in pg_dump's custom format/,
    );

    // a dump of some other database
    const other = await server.createDatabase();
    const { Client } = await import('pg');
    const client = new Client({ connectionString: other });
    await client.connect();
    await client.query('create table notes (id int)');
    await client.end();
    const foreign = path.join(dir, 'foreign.dump');
    // backup itself refuses to keep a dump that is not fleetplan's
    await expect(quietly(() => runBackupCommand([foreign], { DATABASE_URL: other }))).rejects.toThrow(
      /is a PostgreSQL dump, but not of a fleetplan database/,
    );
    expect(fs.readdirSync(dir).filter((f) => f.includes('foreign'))).toEqual([]);

    // a replica still connected
    const replica = await openDatabaseAt({ kind: 'postgres', url });
    try {
      await listOrganizations(replica);
      await withDb(url, (db) => insertEmptyOrganization(db, 'after-backup', NOW));
      await untilFleetplanConnections(url, 1); // the replica's
      await expect(quietly(() => runRestoreCommand([file], { DATABASE_URL: url }))).rejects.toThrow(
        /1 fleetplan connection\(s\) to .* are open \(a running replica or command\): stop every replica first; nothing changed/,
      );
      expect((await listOrganizations(replica)).map((o) => o.name)).toEqual(['payments', 'after-backup']);
    } finally {
      await closeDatabase(replica);
    }
  });
});
