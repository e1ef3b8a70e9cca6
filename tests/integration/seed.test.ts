// `npm run db:seed` never replaces data unless told --reset (and then audits it); `npm start`
// seeds the demo fleet into an empty database only for the simulator provider.
import Database from 'better-sqlite3';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '@/db/open-database';
import { prepareDatabase } from '@/server/cli/prepare-database';
import { runSeed, SEED_RESET_AUDIT_ACTION } from '@/server/cli/seed-command';
import { seedDemo } from '@/server/services/demo-seed-service';
import { parseEnv } from '@/server/env';
import { readDemoLoginSetting, writeDemoLoginSetting } from '@/server/repositories/user-repository';
import { runSeedScript } from './fixtures/spawn-process';

const NOW = new Date('2026-11-22T12:00:00Z');
const REVISIONS = 123;
let dir: string;
let counter = 0;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fleetplan-seed-'));
});

afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function count(file: string, sql: string): number {
  const db = new Database(file, { readonly: true });
  try {
    return (db.prepare(sql).get() as { n: number }).n;
  } finally {
    db.close();
  }
}

/** a database in use: the demo fleet, 123 policy revisions, an admin, demo sign-in turned off */
async function usedDatabase(): Promise<string> {
  const file = path.join(dir, `used-${++counter}.db`);
  const db = openDatabase(file);
  await seedDemo(db, NOW);
  const insert = db.$client.prepare(
    "insert into policy_revisions (organization_id, scope, subject, revision, actor, at, summary) values (1, 'organization', 'app-sre', ?, 'alice', ?, 'edit')",
  );
  for (let i = 1; i <= REVISIONS; i++) insert.run(i, NOW.getTime());
  db.$client.prepare("insert into users (username, password_hash, role, created_at) values ('admin', 'x', 'admin', ?)").run(NOW.getTime());
  await writeDemoLoginSetting(db, false, NOW);
  db.$client.close();
  return file;
}

async function demoLoginSetting(file: string): Promise<boolean> {
  const db = openDatabase(file);
  try {
    return await readDemoLoginSetting(db);
  } finally {
    db.$client.close();
  }
}

const quiet = () => undefined;

describe('npm run db:seed', () => {
  it('refuses a database that holds data, says what it holds, and changes nothing', async () => {
    const file = await usedDatabase();
    const auditBefore = count(file, 'select count(*) as n from audit_log');
    const out = await runSeedScript([], { DATABASE_URL: file });
    expect(out.code).toBe(1);
    expect(out.stderr).toMatch(
      /is not empty \(1 organization, 57 clusters, 123 policy revisions, 1 user, 0 API tokens, 0 webhooks\); nothing changed/,
    );
    expect(out.stderr).toMatch(/--reset/);
    expect(count(file, 'select count(*) as n from policy_revisions')).toBe(REVISIONS);
    expect(count(file, 'select count(*) as n from audit_log')).toBe(auditBefore);
    expect(await demoLoginSetting(file)).toBe(false);
    // the seed script runs in a child process through tsx, which compiles it and all it imports: 5 s beside one other test process
  }, 120_000);

  it('with --if-empty leaves a database that holds data alone (exit 0)', async () => {
    const file = await usedDatabase();
    const lines: string[] = [];
    expect(await runSeed(['--if-empty'], { DATABASE_URL: file }, (l) => lines.push(l), quiet)).toBe(0);
    expect(lines.join('\n')).toMatch(/already holds data/);
    expect(count(file, 'select count(*) as n from policy_revisions')).toBe(REVISIONS);
  });

  it('with --reset replaces the fleet and records who did it and what was there', async () => {
    const file = await usedDatabase();
    const before = Date.now();
    expect(await runSeed(['--reset'], { DATABASE_URL: file, FLEETPLAN_ADMIN_PASSWORD: 'long-enough-password' }, quiet, quiet)).toBe(0);
    expect(count(file, 'select count(*) as n from policy_revisions')).toBe(0);
    const db = new Database(file, { readonly: true });
    const audit = db.prepare('select at, actor, before from audit_log where action = ?').all(SEED_RESET_AUDIT_ACTION) as {
      at: number;
      actor: string;
      before: string;
    }[];
    db.close();
    expect(audit).toHaveLength(1);
    expect(audit[0]!.actor).toBe(`cli:${os.userInfo().username}`);
    expect(audit[0]!.at).toBeGreaterThanOrEqual(before);
    expect(JSON.parse(audit[0]!.before)).toEqual({
      organizations: 1,
      clusters: 57,
      policyRevisions: REVISIONS,
      users: 1,
      apiTokens: 0,
      webhooks: 0,
    });
  });

  it('with --reset writes the audit entry, the wipe and the new fleet in one transaction: a failed seed changes nothing', async () => {
    const file = await usedDatabase();
    const auditBefore = count(file, 'select count(*) as n from audit_log');
    const clustersBefore = count(file, 'select count(*) as n from clusters');
    const broken = new Database(file);
    // the new demo fleet cannot be written: its organization insert fails after the wipe
    broken.exec("create trigger refuse_organizations before insert on organizations begin select raise(abort, 'disk full'); end");
    broken.close();
    await expect(
      runSeed(['--reset'], { DATABASE_URL: file, FLEETPLAN_ADMIN_PASSWORD: 'long-enough-password' }, quiet, quiet),
    ).rejects.toThrow(/disk full/);
    expect(count(file, 'select count(*) as n from audit_log')).toBe(auditBefore);
    expect(count(file, 'select count(*) as n from policy_revisions')).toBe(REVISIONS);
    expect(count(file, 'select count(*) as n from clusters')).toBe(clustersBefore);
    expect(count(file, 'select count(*) as n from organizations')).toBe(1);
  });

  it('rejects an unknown argument with exit 2 before touching the database', async () => {
    const file = path.join(dir, 'untouched.db');
    const errors: string[] = [];
    expect(await runSeed(['--rest'], { DATABASE_URL: file }, quiet, (l) => errors.push(l))).toBe(2);
    expect(errors).toEqual([expect.stringMatching(/unknown argument --rest/)]);
    expect(fs.existsSync(file)).toBe(false);
  });
});

describe('npm start on an empty database', () => {
  const base = { FLEETPLAN_ADMIN_PASSWORD: 'long-enough-password' };

  it.each([
    {
      provider: 'ocm',
      env: { FLEETPLAN_PROVIDER: 'ocm', FLEETPLAN_OCM_TOKEN: 'unused' },
      organizations: 1,
      demoLogin: false,
      log: /provider ocm: .* starts empty/,
    },
    {
      provider: 'kubernetes',
      env: { FLEETPLAN_PROVIDER: 'kubernetes', FLEETPLAN_KUBECONFIG: '/nonexistent/kubeconfig' },
      organizations: 1,
      demoLogin: false,
      log: /provider kubernetes: .* starts empty/,
    },
    {
      provider: 'simulator, FLEETPLAN_SEED_DEMO=0',
      env: { FLEETPLAN_SEED_DEMO: '0' },
      organizations: 0,
      demoLogin: false,
      log: /FLEETPLAN_SEED_DEMO=0: .* starts empty/,
    },
    {
      provider: 'simulator (default)',
      env: {},
      organizations: 1,
      demoLogin: true,
      log: /seeded the simulated demo fleet \(57 clusters\)/,
    },
    {
      provider: 'simulator (named)',
      env: { FLEETPLAN_PROVIDER: 'simulator' },
      organizations: 1,
      demoLogin: true,
      log: /seeded the simulated demo fleet/,
    },
  ])('$provider', async ({ env, organizations, demoLogin, log }) => {
    const file = path.join(dir, `start-${++counter}.db`);
    const lines: string[] = [];
    const db = await prepareDatabase(parseEnv({ ...base, ...env, DATABASE_URL: file }), (l) => lines.push(l));
    db.$client.close();
    expect(count(file, 'select count(*) as n from organizations')).toBe(organizations);
    expect(lines.join('\n')).toMatch(log);
    expect(await demoLoginSetting(file)).toBe(demoLogin);
  });
});
