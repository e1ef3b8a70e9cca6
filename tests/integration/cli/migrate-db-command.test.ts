// `fleetplan migrate-db` on a real (throw-away) PostgreSQL: a seeded SQLite install (the demo fleet
// at ~300 clusters plus a row or two in every other table, with awkward values) arrives whole and
// equal; a non-empty target, a database that is not fleetplan's or not fully migrated, and a bad
// URL are refused clearly and change nothing; a copy that differs from its source is rolled back.
import Database from 'better-sqlite3';
import { getTableName, isTable, type Table } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copySqliteToPostgres, openSqliteSource } from '@/db/copy-to-postgres';
import { MIGRATIONS_FOLDER, openDatabase, type Db } from '@/db/open-database';
import { migratePostgres, openPostgres, type PgDb } from '@/db/open-postgres';
import * as pgSchema from '@/db/pg-schema';
import * as schema from '@/db/schema';
import { runMigrateDbCommand } from '@/server/cli/migrate-db-command';
import { describeFailure } from '@/server/cli/cli-errors';
import { runCli } from '../fixtures/spawn-process';
import { demoScaleForClusters, seedDemo } from '@/server/services/demo-seed-service';
import { startThrowawayPostgres, type ThrowawayPostgres } from '@/tests/support/throwaway-postgres';

const NOW = new Date('2026-11-22T12:00:00.123Z');
let server: ThrowawayPostgres;
let dir: string;
let source: string;

function io() {
  const o = { out: '', err: '', env: {}, stdout: (t: string) => void (o.out += t), stderr: (t: string) => void (o.err += t) };
  return o;
}

/** the command with main()'s handling of failures: one line on stderr, exit 1, or 2 with the usage */
async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const [name, ...rest] = args;
  const o = io();
  try {
    const code = await runMigrateDbCommand(rest, o);
    return { code, out: o.out, err: o.err };
  } catch (err) {
    const failure = describeFailure(name!, err, {});
    return { code: failure.exitCode, out: o.out, err: o.err + failure.text };
  }
}

const at = (offsetMs: number) => new Date(NOW.getTime() + offsetMs);

/** a row or two in every table the demo seed leaves empty, with values that are easy to get wrong */
function fillEveryTable(db: Db): void {
  const [org] = db.select().from(schema.organizations).all();
  const [cluster] = db.select().from(schema.clusters).all();
  const orgId = org!.id;
  db.insert(schema.users)
    .values([
      { username: 'ädmin "quoted"', passwordHash: 'scrypt$x', role: 'admin', createdAt: at(1), selectedOrganizationId: orgId },
      {
        username: 'oidc-user',
        passwordHash: '!',
        role: 'viewer',
        createdAt: at(2),
        externalSubject: 'idp:42',
        organizationsOnly: true,
        disabled: true,
      },
    ])
    .run();
  const users = db.select().from(schema.users).all();
  db.insert(schema.organizationRoles)
    .values({ userId: users[1]!.id, organizationId: orgId, role: 'operator', createdBy: 'x', createdAt: at(3), source: 'oidc' })
    .run();
  db.insert(schema.sessions)
    .values({ idHash: 'h1', userId: users[0]!.id, csrfToken: 'c', createdAt: at(4), expiresAt: at(86_400_000) })
    .run();
  db.insert(schema.apiTokens)
    .values({
      name: 'ci',
      userId: users[0]!.id,
      tokenHash: 't1',
      prefix: 'fp_',
      scope: 'approvals:write',
      createdAt: at(5),
      expiresAt: null,
    })
    .run();
  db.insert(schema.signInThrottle)
    .values({ key: 'addr:::1', failures: 3, lastFailureAt: at(6), blockedUntil: at(60_000) })
    .run();
  db.insert(schema.instanceBlockedVersions)
    .values({ pattern: '4.15.*', reason: 'CVE – bad', createdBy: 'admin', createdAt: at(7) })
    .run();
  db.insert(schema.approvals)
    .values({
      organizationId: orgId,
      sector: 'prod',
      version: '4.16.3',
      kind: 'before',
      approvedBy: 'a',
      approvedAt: at(8),
      revokedAt: at(9),
      revokedBy: 'b',
    })
    .run();
  db.insert(schema.policyRevisions)
    .values({
      organizationId: orgId,
      scope: 'cluster',
      subject: cluster!.name,
      revision: 2,
      actor: 'a',
      at: at(10),
      summary: 's',
      before: { z: 1, a: [1, 'x', null] },
      after: null,
    })
    .run();
  db.insert(schema.auditLog)
    .values([
      {
        at: at(11),
        actor: 'cli:test',
        action: 'x',
        target: 'y',
        before: 'a plain string',
        after: { nested: { b: true, a: 0.1 } },
        organizationId: orgId,
      },
      { at: at(12), actor: 'cli:test', action: 'x', target: 'y', before: null, after: [], organizationId: null },
    ])
    .run();
  db.insert(schema.schedulerTicks)
    .values({ startedAt: at(13), finishedAt: at(14), status: 'succeeded', dryRun: true, holder: 'h', summary: { upgrade: 2 } })
    .run();
  db.insert(schema.decisions)
    .values({
      tickId: 1,
      at: at(15),
      organizationId: orgId,
      clusterName: cluster!.name,
      action: 'skip',
      version: null,
      reason: 'R',
      message: 'm',
    })
    .run();
  db.insert(schema.actionIntents)
    .values({
      idempotencyKey: 'k1',
      tickId: 1,
      kind: 'start-upgrade',
      organizationId: orgId,
      clusterName: cluster!.name,
      version: '4.16.3',
      nextRun: at(16),
      status: 'done',
      createdAt: at(17),
      doneAt: at(18),
    })
    .run();
  db.insert(schema.upgradeLifecycles)
    .values({
      clusterId: cluster!.id,
      clusterName: cluster!.name,
      fromVersion: '4.16.2',
      toVersion: '4.16.3',
      slot: at(19),
      state: 'operator-approvals',
      createdAt: at(20),
      updatedAt: at(21),
      operatorApprovals: {
        since: 1,
        approved: [],
        left: [{ namespace: 'ns', name: 'n', operators: ['o'], csvNames: [], why: 'manual' }],
        doneAt: null,
      },
      haltsOnFailure: false,
    })
    .run();
  const [lifecycle] = db.select().from(schema.upgradeLifecycles).all();
  db.insert(schema.upgradeLifecycleTransitions)
    .values({
      lifecycleId: lifecycle!.id,
      at: at(22),
      fromState: null,
      toState: 'scheduled',
      message: 'new\nline',
      actor: 'scheduler:h',
      tickId: 1,
    })
    .run();
  db.insert(schema.metricCounters).values({ name: 'fleetplan_ticks_total', labels: '{"status":"ok"}', value: 12.5 }).run();
  db.insert(schema.schedulerLeases)
    .values({ name: 'scheduler', holder: 'host:1', expiresAt: at(23) })
    .run();
  db.insert(schema.maintenanceExclusions)
    .values({
      organizationId: orgId,
      scope: 'selector',
      subject: 'env=prod',
      startsAt: at(24),
      endsAt: at(25),
      reason: 'r',
      createdBy: 'c',
      createdAt: at(26),
    })
    .run();
  db.insert(schema.webhooks)
    .values({
      name: 'w',
      url: 'https://example.test/h',
      secret: 'enc:v1:abc',
      events: ['started'],
      createdAt: at(27),
      organizationId: orgId,
    })
    .run();
  const [webhook] = db.select().from(schema.webhooks).all();
  db.insert(schema.webhookDeliveries)
    .values({
      webhookId: webhook!.id,
      event: 'started',
      payload: { cluster: 'c', ключ: '💥' },
      status: 'failed',
      attempts: 3,
      lastStatusCode: 500,
      createdAt: at(28),
    })
    .run();
  db.insert(schema.hooks)
    .values({
      organizationId: orgId,
      stage: 'pre-upgrade',
      name: 'h',
      url: 'https://example.test/pre',
      secret: 's',
      createdBy: 'a',
      createdAt: at(29),
    })
    .run();
  const [hook] = db.select().from(schema.hooks).all();
  db.insert(schema.hookCalls)
    .values({
      hookId: hook!.id,
      lifecycleId: String(lifecycle!.id),
      stage: 'pre-upgrade',
      payload: {},
      status: 'refused',
      reason: 'no',
      requestedAt: at(30),
      answeredAt: at(31),
    })
    .run();
  db.insert(schema.settings)
    .values({ key: 'simulator.clock', value: { now: NOW.toISOString(), speed: 60 }, updatedAt: at(32) })
    .run();
}

const sqliteTables = Object.values(schema).filter(isTable) as Table[];
const pgTablesByName = new Map((Object.values(pgSchema).filter(isTable) as Table[]).map((t) => [getTableName(t), t]));

/** JSON with object keys sorted, so rows sort the same whichever order a database gives their keys */
function sortedJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b)))
      : v,
  );
}

const byContent = (rows: unknown[]) => [...rows].sort((a, b) => sortedJson(a).localeCompare(sortedJson(b)));

async function pgCounts(db: PgDb): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const name of pgTablesByName.keys()) {
    const exists = await db.$client.query<{ t: string | null }>('select to_regclass($1) as t', [`public."${name}"`]);
    counts[name] = exists.rows[0]!.t
      ? Number((await db.$client.query<{ n: string }>(`select count(*) as n from "${name}"`)).rows[0]!.n)
      : -1;
  }
  return counts;
}

beforeAll(async () => {
  server = await startThrowawayPostgres();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fleetplan-migrate-db-'));
  source = path.join(dir, 'fleetplan.db');
  const db = openDatabase(source);
  await seedDemo(db, NOW, demoScaleForClusters(300));
  fillEveryTable(db);
  db.$client.close();
}, 120_000);

afterAll(() => {
  server?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('fleetplan migrate-db', () => {
  it('copies every table of a seeded install into an empty PostgreSQL database, equal row for row', async () => {
    const url = await server.createDatabase('full_copy');
    const result = await cli(['migrate-db', '--from', `sqlite:${source}`, '--to', url]);
    expect(result.err).toBe('');
    expect(result.code).toBe(0);
    expect(result.out).toMatch(/^ {2}clusters +327 rows +verified/m);
    expect(result.out).toMatch(
      /copied \d+ rows in 32 tables from .*fleetplan\.db to postgres:\/\/postgres@127\.0\.0\.1:\d+\/full_copy, verified row for row/,
    );

    const sqlite = drizzle(new Database(source, { readonly: true }), { schema });
    const pg = openPostgres(url);
    try {
      expect(sqliteTables).toHaveLength(32);
      for (const table of sqliteTables) {
        const name = getTableName(table);
        const expected = sqlite.select().from(table).all() as unknown[];
        expect(expected.length, `${name} has rows in the seeded source`).toBeGreaterThan(0);
        const actual = await pg.select().from(pgTablesByName.get(name) as typeof pgSchema.settings);
        expect(byContent(actual), name).toEqual(byContent(expected));
      }
      // identity sequences continue after the copied ids
      const maxId = Math.max(
        ...sqlite
          .select({ id: schema.auditLog.id })
          .from(schema.auditLog)
          .all()
          .map((r) => r.id),
      );
      const [added] = await pg.insert(pgSchema.auditLog).values({ at: NOW, actor: 'a', action: 'b', target: 'c' }).returning();
      expect(added!.id).toBe(maxId + 1);
    } finally {
      sqlite.$client.close();
      await pg.$client.end();
    }
    // a copy of a 300-cluster install and its check row for row: 9 s on a quiet machine, three times that under CI load
  }, 120_000);

  it('refuses a target that holds any row of ours, and leaves it as it was', async () => {
    const url = await server.createDatabase('not_empty');
    const target = openPostgres(url);
    try {
      await migratePostgres(target);
      await target.insert(pgSchema.settings).values({ key: 'mine', value: 1, updatedAt: NOW });
      const before = await pgCounts(target);
      const result = await cli(['migrate-db', '--from', `sqlite:${source}`, '--to', url]);
      expect(result.code).toBe(1);
      expect(result.err).toBe(
        'fleetplan migrate-db: the target database is not empty: settings (1 row). migrate-db only fills an empty database; nothing was changed\n',
      );
      expect(await pgCounts(target)).toEqual(before);
    } finally {
      await target.$client.end();
    }
  });

  it('rolls back a copy that does not match its source and names the table', async () => {
    const url = await server.createDatabase('tampered');
    const target = openPostgres(url);
    const sqlite = openSqliteSource(source);
    try {
      await migratePostgres(target);
      const copy = copySqliteToPostgres(sqlite, target, {
        beforeVerify: async (client) =>
          void (await client.query("update sectors set name = name || ' (changed)' where id = (select min(id) from sectors)")),
      });
      await expect(copy).rejects.toThrow(
        "verification failed for sectors: the rows' values differ between SQLite and PostgreSQL; the copy was rolled back",
      );
      const counts = await pgCounts(target);
      expect(Object.entries(counts).filter(([table, n]) => n !== 0 && table !== 'plan_revisions')).toEqual([]);
      expect(counts.plan_revisions).toBe(3); // the migrations' own rows (structure, configuration, cluster_rows)

      const dropped = copySqliteToPostgres(sqlite, target, {
        beforeVerify: async (client) =>
          void (await client.query('delete from soak_samples where ctid in (select ctid from soak_samples limit 1)')),
      });
      await expect(dropped).rejects.toThrow(
        /^verification failed for soak_samples: \d+ rows in SQLite, \d+ in PostgreSQL; the copy was rolled back$/,
      );
    } finally {
      sqlite.close();
      await target.$client.end();
    }
    // two copies of the 300-cluster install, each checked and rolled back: 8 s on a quiet machine
  }, 120_000);

  it('rolls back when PostgreSQL refuses a value SQLite took, and says which table', async () => {
    const small = path.join(dir, 'nul-byte.db');
    const db = openDatabase(small);
    // SQLite text may hold a NUL character; PostgreSQL text cannot
    db.insert(schema.auditLog).values({ at: NOW, actor: 'a', action: 'b', target: 'before\u0000after' }).run();
    db.insert(schema.settings).values({ key: 'k', value: 1, updatedAt: NOW }).run();
    db.$client.close();
    const url = await server.createDatabase('refused_value');
    const result = await cli(['migrate-db', '--from', `sqlite:${small}`, '--to', url]);
    expect(result.code).toBe(1);
    expect(result.err).toMatch(/^fleetplan migrate-db: copying audit_log failed: .*0x00.*; the copy was rolled back\n$/);
    const target = openPostgres(url);
    try {
      const counts = await pgCounts(target);
      expect(Object.entries(counts).filter(([table, n]) => n !== 0 && table !== 'plan_revisions')).toEqual([]);
    } finally {
      await target.$client.end();
    }
  });

  it("refuses a SQLite file that misses some of the migrations, or is not fleetplan's, and says what to do", async () => {
    const partial = path.join(dir, 'partial-migrations');
    fs.mkdirSync(path.join(partial, 'meta'), { recursive: true });
    const journal = JSON.parse(fs.readFileSync(path.join(MIGRATIONS_FOLDER, 'meta', '_journal.json'), 'utf8')) as {
      entries: { tag: string }[];
    };
    const entries = journal.entries.slice(0, 5);
    fs.writeFileSync(path.join(partial, 'meta', '_journal.json'), JSON.stringify({ ...journal, entries }));
    for (const e of entries) fs.copyFileSync(path.join(MIGRATIONS_FOLDER, `${e.tag}.sql`), path.join(partial, `${e.tag}.sql`));
    const old = path.join(dir, 'old.db');
    const oldDb = new Database(old);
    migrate(drizzle(oldDb), { migrationsFolder: partial });
    oldDb.close();
    const url = await server.createDatabase('from_old');

    const result = await cli(['migrate-db', '--from', `sqlite:${old}`, '--to', url]);
    expect(result.code).toBe(1);
    expect(result.err).toContain(
      `has 5 of this fleetplan's ${journal.entries.length} migrations applied: start this version of fleetplan on it once`,
    );

    const foreign = path.join(dir, 'foreign.db');
    const foreignDb = new Database(foreign);
    foreignDb.exec('create table t (x)');
    foreignDb.close();
    const notOurs = await cli(['migrate-db', '--from', `sqlite:${foreign}`, '--to', url]);
    expect(notOurs.code).toBe(1);
    expect(notOurs.err).toContain('is not a fleetplan database this version can read: no drizzle migration history');

    const target = openPostgres(url);
    try {
      expect(Object.values(await pgCounts(target)).every((n) => n === -1)).toBe(true);
    } finally {
      await target.$client.end();
    }
  });

  it('says clearly what is wrong with the command line or the target URL', async () => {
    const wrongScheme = await cli(['migrate-db', '--from', `sqlite:${source}`, '--to', 'mysql://root@localhost/fleetplan']);
    expect(wrongScheme.code).toBe(2);
    expect(wrongScheme.err).toMatch(
      /^fleetplan migrate-db: --to must be a postgres:\/\/ or postgresql:\/\/ URL, not 'mysql:\/\/root@localhost\/fleetplan'\nusage: fleetplan migrate-db/,
    );

    const unreachable = await cli([
      'migrate-db',
      '--from',
      `sqlite:${source}`,
      '--to',
      `postgres://someone:s3cret@127.0.0.1:${server.port + 1}/x`,
    ]);
    expect(unreachable.code).toBe(1);
    expect(unreachable.err).toMatch(
      /^fleetplan migrate-db: cannot connect to postgres:\/\/someone:\*\*\*@127\.0\.0\.1:\d+\/x: .*ECONNREFUSED/,
    );
    expect(unreachable.err).not.toContain('s3cret');

    const missingDatabase = await cli([
      'migrate-db',
      '--from',
      `sqlite:${source}`,
      '--to',
      `postgres://postgres@127.0.0.1:${server.port}/no_such_db`,
    ]);
    expect(missingDatabase.code).toBe(1);
    expect(missingDatabase.err).toContain('database "no_such_db" does not exist');

    const noFrom = await cli(['migrate-db', '--to', `postgres://postgres@127.0.0.1:${server.port}/x`]);
    expect([noFrom.code, noFrom.err.split('\n')[0]]).toEqual([2, 'fleetplan migrate-db: missing --from sqlite:PATH']);
    const plainPath = await cli(['migrate-db', '--from', source, '--to', `postgres://postgres@127.0.0.1:${server.port}/x`]);
    expect(plainPath.err.split('\n')[0]).toBe(
      `fleetplan migrate-db: --from must be sqlite:PATH (the SQLite database file), not '${source}'`,
    );
    const missingFile = await cli([
      'migrate-db',
      '--from',
      `sqlite:${dir}/nope.db`,
      '--to',
      `postgres://postgres@127.0.0.1:${server.port}/x`,
    ]);
    expect(missingFile.err).toBe(`fleetplan migrate-db: ${dir}/nope.db does not exist\n`);
  });

  it('prints its help', async () => {
    const o = io();
    expect(await runMigrateDbCommand(['--help'], o)).toBe(0);
    expect(o.out).toContain('usage: fleetplan migrate-db --from sqlite:PATH --to postgres://');
    expect(o.out).toContain('verified row for row');
    const listed = await runCli(['--help'], {});
    expect(listed.stdout).toContain('fleetplan migrate-db --from sqlite:PATH --to postgres://');
    const own = await runCli(['migrate-db', '--help'], {});
    expect([own.code, own.stdout]).toEqual([0, `${o.out}`]);
  });
});
