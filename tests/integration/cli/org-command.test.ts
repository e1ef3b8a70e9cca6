// `fleetplan org list|create` and `fleetplan demo remove` on database files: a fresh database
// gets its organization, a real provider's blank one gets its name, a second organization is
// refused, and the demo fleet makes way for a blank organization; refusals write nothing.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { captureIo } from './capture-io';
import { queryFile as query } from './query-file';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '@/db/open-database';
import { runDemoCommand, runOrgCommand } from '@/server/cli/org-command';
import { insertEmptyOrganization } from '@/server/repositories/organization-repository';
import { seedDemo } from '@/server/services/demo-seed-service';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fleetplan-org-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const io = captureIo;

describe('fleetplan org', () => {
  it('creates the organization on an empty database, lists it, adds a second one, and refuses a taken name', async () => {
    const file = path.join(dir, 'empty.db');
    const empty = io(file);
    expect(await runOrgCommand(['list'], empty)).toBe(0);
    expect(empty.out).toContain('no organization yet');

    const created = io(file);
    expect(await runOrgCommand(['create', 'team-a'], created)).toBe(0);
    expect(created.out).toContain('created organization team-a');
    const listed = io(file);
    expect(await runOrgCommand(['list'], listed)).toBe(0);
    expect(listed.out).toMatch(/^team-a\trevision 1\t0 clusters \(0 managed\)/);

    const second = io(file);
    expect(await runOrgCommand(['create', 'team-b'], second)).toBe(0);
    expect(second.out).toContain('created organization team-b');
    const both = io(file);
    expect(await runOrgCommand(['list'], both)).toBe(0);
    expect(
      both.out
        .split('\n')
        .filter(Boolean)
        .map((l) => l.split('\t')[0]),
    ).toEqual(['team-a', 'team-b']);
    const taken = io(file);
    expect(await runOrgCommand(['create', 'team-b'], taken)).toBe(2);
    expect(taken.err).toBe('fleetplan org create: organization team-b exists already\n');
    expect(query<{ name: string }>(file, 'select name from organizations order by id')).toEqual([{ name: 'team-a' }, { name: 'team-b' }]);
    expect(query<{ action: string }>(file, "select action from audit_log where action like 'organization.%'")).toEqual([
      { action: 'organization.create' },
      { action: 'organization.create' },
    ]);

    const bad = io(file);
    expect(await runOrgCommand(['create', '../etc'], bad)).toBe(2);
    expect(bad.err).toContain("'../etc' is not an organization name");
    expect(await runOrgCommand(['rename'], io(file))).toBe(2);
  });

  it("names the blank organization a real provider's first start made, keeping its discovered clusters", async () => {
    const file = path.join(dir, 'blank.db');
    const db = openDatabase(file);
    const org = await insertEmptyOrganization(db, 'unnamed', new Date());
    db.$client
      .prepare(
        "insert into clusters (organization_id, name, external_id, provider, version, channel, region, node_count, available_upgrades, healthy, health_issues, upgrade_state, observed_at) values (?, 'c1', 'ext-1', 'ocm', '4.14.1', 'stable-4.14', 'eu', 3, '[]', 1, '[]', 'idle', 0)",
      )
      .run(org.id);
    db.$client.close();
    const named = io(file);
    expect(await runOrgCommand(['create', 'payments'], named)).toBe(0);
    expect(named.out).toContain('named organization payments (was unnamed; its 1 discovered clusters stay)');
    expect(query<{ name: string }>(file, 'select name from organizations')).toEqual([{ name: 'payments' }]);
    expect(query<{ n: number }>(file, 'select count(*) n from clusters')).toEqual([{ n: 1 }]);
  });
});

describe('fleetplan demo remove', () => {
  it('asks for --yes, then replaces the demo fleet with a blank organization; a real fleet is refused', async () => {
    const file = path.join(dir, 'demo.db');
    const db = openDatabase(file);
    await seedDemo(db, new Date('2026-11-20T10:00:00Z'));
    db.$client.close();
    const clustersBefore = query<{ n: number }>(file, 'select count(*) n from clusters')[0]!.n;
    expect(clustersBefore).toBeGreaterThan(40);

    const unsure = io(file);
    expect(await runDemoCommand(['remove'], unsure)).toBe(2);
    expect(unsure.err).toContain('run again with --yes');
    expect(query<{ n: number }>(file, 'select count(*) n from clusters')[0]!.n).toBe(clustersBefore);

    const removed = io(file);
    expect(await runDemoCommand(['remove', '--yes'], removed)).toBe(0);
    expect(removed.out).toContain(`removed the demo fleet (app-sre, ${clustersBefore} clusters)`);
    expect(query<{ name: string }>(file, 'select name from organizations')).toEqual([{ name: 'unnamed' }]);
    for (const table of ['clusters', 'sectors', 'blocked_versions', 'policy_revisions', 'version_soak']) {
      expect(query<{ n: number }>(file, `select count(*) n from ${table}`)[0]!.n, table).toBe(0);
    }
    expect(query<{ action: string }>(file, "select action from audit_log where action = 'demo.remove'")).toHaveLength(1);

    const again = io(file);
    expect(await runDemoCommand(['remove', '--yes'], again)).toBe(2);
    expect(again.err).toContain('there is no demo fleet to remove');
    // and now the organization can be named
    expect(await runOrgCommand(['create', 'app-sre-real'], io(file))).toBe(0);

    // a fleet with a real provider's cluster is not the demo
    const mixed = path.join(dir, 'mixed.db');
    const m = openDatabase(mixed);
    await seedDemo(m, new Date('2026-11-20T10:00:00Z'));
    m.$client.prepare("update clusters set provider = 'ocm' where id = (select min(id) from clusters)").run();
    m.$client.close();
    const refused = io(mixed);
    expect(await runDemoCommand(['remove', '--yes'], refused)).toBe(2);
    expect(refused.err).toMatch(/is not the simulated demo \(1 of its \d+ clusters come from a real provider\); nothing was removed/);
    expect(query<{ n: number }>(mixed, 'select count(*) n from clusters')[0]!.n).toBe(clustersBefore);
  });
});

describe('fleetplan org groups', () => {
  it("sets, lists and clears an organization's OIDC group mapping (audited on it), and refuses a bad one writing nothing", async () => {
    const file = path.join(dir, 'groups.db');
    const db = openDatabase(file);
    await insertEmptyOrganization(db, 'team-a', new Date('2026-11-20T10:00:00Z'));
    db.$client.close();

    const set = io(file);
    expect(await runOrgCommand(['groups', 'team-a', 'operator=sre;viewer=*'], set)).toBe(0);
    expect(set.out).toContain('organization team-a maps OIDC groups: operator=sre;viewer=*');
    const listed = io(file);
    expect(await runOrgCommand(['groups'], listed)).toBe(0);
    expect(listed.out).toBe('team-a\toperator=sre;viewer=*\n');

    const bad = io(file);
    expect(await runOrgCommand(['groups', 'team-a', 'root=ops'], bad)).toBe(2);
    expect(bad.err).toContain("fleetplan org groups: The group mapping of team-a: 'root' is not a role");
    const unknown = io(file);
    expect(await runOrgCommand(['groups', 'team-z', 'viewer=*'], unknown)).toBe(2);
    expect(unknown.err).toContain('There is no organization named "team-z"');
    expect(query<{ m: string }>(file, 'select oidc_role_groups m from organizations')).toEqual([{ m: 'operator=sre;viewer=*' }]);

    expect(await runOrgCommand(['groups', 'team-a', '--clear'], io(file))).toBe(0);
    expect(query<{ m: string | null }>(file, 'select oidc_role_groups m from organizations')).toEqual([{ m: null }]);
    expect(
      query<{ actor: string; target: string; org: string }>(
        file,
        "select a.actor, a.target, o.name org from audit_log a join organizations o on o.id = a.organization_id where a.action = 'organization.oidc-role-groups'",
      ),
    ).toEqual([
      { actor: 'cli:test', target: 'organization:team-a', org: 'team-a' },
      { actor: 'cli:test', target: 'organization:team-a', org: 'team-a' },
    ]);
  });
});
