// Migration 0014 gives audit_log an organization_id and fills it for the rows written before,
// from what they name: a target `organization:NAME …`, the policy revision written with a policy
// row, the organization in a grant's values, a webhook's or hook's organization, a cluster name
// that only one organization has. Rows of the instance (users, graphs) stay null.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MIGRATIONS_FOLDER, openDatabase } from '@/db/open-database';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fleetplan-backfill-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** db/migrations up to (not including) 0014, as a database made before this change had them */
function migrationsBefore0014(): string {
  const folder = path.join(dir, 'migrations');
  fs.mkdirSync(path.join(folder, 'meta'), { recursive: true });
  const journal = JSON.parse(fs.readFileSync(path.join(MIGRATIONS_FOLDER, 'meta', '_journal.json'), 'utf8')) as {
    entries: { idx: number; tag: string }[];
  };
  journal.entries = journal.entries.filter((e) => e.idx < 14);
  fs.writeFileSync(path.join(folder, 'meta', '_journal.json'), JSON.stringify(journal));
  for (const e of journal.entries) fs.copyFileSync(path.join(MIGRATIONS_FOLDER, `${e.tag}.sql`), path.join(folder, `${e.tag}.sql`));
  return folder;
}

describe('migration 0014: audit rows get their organization', () => {
  it('fills organization_id from what each older row names, and leaves the instance rows null', () => {
    const file = path.join(dir, 'old.db');
    const old = openDatabase(file, { migrationsFolder: migrationsBefore0014() });
    const run = (sql: string, ...args: unknown[]) => old.$client.prepare(sql).run(...args);
    const at = Date.parse('2026-11-01T10:00:00Z');
    run("insert into organizations (id, name, updated_at) values (1, 'team-a', ?), (2, 'team-b', ?)", at, at);
    run(
      "insert into clusters (organization_id, name, external_id, version, channel, labels, pending_version_gates, available_upgrades, health_issues, observed_at) values (2, 'only-in-b', 'x-1', '4.16.1', 'stable-4.16', '{}', '[]', '[]', '[]', ?)",
      at,
    );
    run(
      "insert into webhooks (id, name, url, secret, events, created_at, organization_id) values (7, 'w', 'https://example.test/h', 's', '[]', ?, 2)",
      at,
    );
    run(
      "insert into policy_revisions (organization_id, scope, subject, revision, actor, at, summary) values (2, 'cluster', 'only-in-b', 1, 'alice', ?, 's')",
      at,
    );
    const audit = (action: string, target: string, after: unknown = null, actor = 'alice') =>
      run(
        'insert into audit_log (at, actor, action, target, before, after) values (?, ?, ?, ?, null, ?)',
        at,
        actor,
        action,
        target,
        after === null ? null : JSON.stringify(after),
      );
    audit('organization.provider', 'organization:team-a');
    audit('approval.approve', 'organization:team-b sector:prod version:4.16.2 before');
    audit('policy.cluster.save', 'cluster:only-in-b');
    audit('user.organization-role.grant', 'user:bob', { organization: 'team-b', role: 'operator' });
    audit('webhook.create', 'webhook:7', { name: 'w' });
    audit('lifecycle.acknowledge-failure', 'only-in-b@4.16.2');
    audit('user.create', 'user:bob', { role: 'viewer' });
    audit('graph.import', 'graph:stable-4.16');
    // a name that is a prefix of another organization's must not match it
    audit('organization.provider', 'organization:team-ab');
    old.$client.close();

    const db = openDatabase(file);
    try {
      const rows = db.$client
        .prepare(
          'select a.action, a.target, o.name as organization from audit_log a left join organizations o on o.id = a.organization_id order by a.id',
        )
        .all();
      expect(rows).toEqual([
        { action: 'organization.provider', target: 'organization:team-a', organization: 'team-a' },
        { action: 'approval.approve', target: 'organization:team-b sector:prod version:4.16.2 before', organization: 'team-b' },
        { action: 'policy.cluster.save', target: 'cluster:only-in-b', organization: 'team-b' },
        { action: 'user.organization-role.grant', target: 'user:bob', organization: 'team-b' },
        { action: 'webhook.create', target: 'webhook:7', organization: 'team-b' },
        { action: 'lifecycle.acknowledge-failure', target: 'only-in-b@4.16.2', organization: 'team-b' },
        { action: 'user.create', target: 'user:bob', organization: null },
        { action: 'graph.import', target: 'graph:stable-4.16', organization: null },
        { action: 'organization.provider', target: 'organization:team-ab', organization: null },
      ]);
    } finally {
      db.$client.close();
    }
  });
});
