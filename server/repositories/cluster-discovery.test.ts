// Migration 0009 (discovery columns and pending version gates) on a database that already has
// clusters, and what the plan structure revision follows: a pending gate changes decisions, and
// since 0015 labels do (sector selectors read them); cloud, region and nodes do not.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MIGRATIONS_FOLDER, openDatabase } from '@/db/open-database';
import { readPlanStructureRevision } from './data-version-repository';
import { loadInhibitors, loadPendingVersionGates } from './gate-state-repository';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

/** A copy of the migrations up to and including `lastTag`. */
function migrationsUpTo(lastTag: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fleetplan-migrations-'));
  dirs.push(dir);
  fs.cpSync(MIGRATIONS_FOLDER, dir, { recursive: true });
  const journalFile = path.join(dir, 'meta', '_journal.json');
  const journal = JSON.parse(fs.readFileSync(journalFile, 'utf8')) as { entries: { tag: string }[] };
  const end = journal.entries.findIndex((e) => e.tag === lastTag);
  fs.writeFileSync(journalFile, JSON.stringify({ ...journal, entries: journal.entries.slice(0, end + 1) }));
  return dir;
}

describe('migration 0009_cluster_discovery', () => {
  it('gives existing clusters no labels, no cloud and no pending gates, and keeps their region and nodes', async () => {
    const upTo0008 = migrationsUpTo('0008_missed_snapshots');
    const file = path.join(upTo0008, 'fleet.db');
    const before = openDatabase(file, { migrationsFolder: upTo0008 });
    before.$client.exec(`insert into organizations (name, updated_at) values ('org', 0)`);
    before.$client.exec(
      `insert into clusters (organization_id, name, external_id, provider, version, channel, region, node_count, available_upgrades, health_issues, observed_at)
       values (1, 'c1', 'ext-1', 'ocm', '4.15.20', 'stable-4.15', 'eu-west-1', 9, '[]', '[]', 0)`,
    );
    before.$client.close();

    const db = openDatabase(file);
    const row = db.$client.prepare('select labels, cloud, pending_version_gates as gates, region, node_count as nodes from clusters').get();
    expect(row).toEqual({ labels: '{}', cloud: null, gates: '[]', region: 'eu-west-1', nodes: 9 });

    const revision = async () => await readPlanStructureRevision(db);
    const r0 = await revision();
    db.$client.exec(`update clusters set cloud = 'aws', region = 'us-east-1', node_count = 12`);
    expect(await revision()).toBe(r0);
    // since 0015 labels move it too: a sector's label selector reads them
    db.$client.exec(`update clusters set labels = '{"env":"prod"}'`);
    expect(await revision()).toBe((r0 ?? 0) + 1);
    db.$client.exec(`update clusters set fleetplan_labels = '{"tier":"web"}'`);
    expect(await revision()).toBe((r0 ?? 0) + 2);
    const gate = { id: 'gate-416', minor: '4.16', description: 'APIs removed', documentationUrl: null };
    db.$client.prepare('update clusters set pending_version_gates = ?').run(JSON.stringify([gate]));
    expect(await revision()).toBe((r0 ?? 0) + 3);
    expect(await loadPendingVersionGates(db, 1)).toEqual(new Map([['c1', [gate]]]));
    db.$client.close();
  });
});

describe('migration 0011_cluster_inhibitors', () => {
  it('gives existing clusters no facts; writing them moves the plan structure; only facts that can hold are loaded', async () => {
    const upTo0010 = migrationsUpTo('0010_rollout_controls');
    const file = path.join(upTo0010, 'fleet.db');
    const before = openDatabase(file, { migrationsFolder: upTo0010 });
    before.$client.exec(`insert into organizations (name, updated_at) values ('org', 0)`);
    for (const name of ['c1', 'c2'])
      before.$client.exec(
        `insert into clusters (organization_id, name, external_id, provider, version, channel, available_upgrades, health_issues, observed_at)
         values (1, '${name}', 'ext-${name}', 'kubernetes', '4.15.20', 'stable-4.15', '[]', '[]', 0)`,
      );
    before.$client.close();

    const db = openDatabase(file);
    expect(db.$client.prepare('select inhibitors from clusters').all()).toEqual([{ inhibitors: null }, { inhibitors: null }]);
    const r0 = await readPlanStructureRevision(db);
    const logging = { name: 'cluster-logging.v5.8.1', namespace: 'openshift-logging', maxOpenShiftVersion: '4.15' };
    const noLimit = { name: 'cert-manager.v1.13.0', namespace: 'cert-manager', maxOpenShiftVersion: null };
    const set = db.$client.prepare('update clusters set inhibitors = ? where name = ?');
    set.run(JSON.stringify({ operators: [logging, noLimit], removedApis: [] }), 'c1');
    set.run(JSON.stringify({ operators: [noLimit], removedApis: [] }), 'c2');
    expect(await readPlanStructureRevision(db)).toBe((r0 ?? 0) + 2);
    expect(await loadInhibitors(db, 1)).toEqual(new Map([['c1', { operators: [logging], removedApis: [] }]]));
    db.$client.close();
  });
});
