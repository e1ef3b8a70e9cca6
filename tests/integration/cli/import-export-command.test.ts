// `fleetplan import` / `fleetplan export` against a seeded database file.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { captureIo } from './capture-io';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml, stringify } from 'yaml';
import { openDatabase } from '@/db/open-database';
import { seedDemo } from '@/server/services/demo-seed-service';
import { runExportCommand } from '@/server/cli/export-command';
import { runImportCommand } from '@/server/cli/import-command';

let dir: string;
let dbFile: string;

const io = () => captureIo(dbFile);

function tableCounts(): { revisions: number; audit: number; revision: number } {
  const db = openDatabase(dbFile);
  const n = (t: string) => (db.$client.prepare(`select count(*) as n from ${t}`).get() as { n: number }).n;
  const counts = {
    revisions: n('policy_revisions'),
    audit: n('audit_log'),
    revision: (db.$client.prepare('select revision from organizations').get() as { revision: number }).revision,
  };
  db.$client.close();
  return counts;
}

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fleetplan-import-'));
  dbFile = path.join(dir, 'fleet.db');
  const db = openDatabase(dbFile);
  await seedDemo(db, new Date('2026-11-22T12:00:00Z'));
  db.$client.close();
});

afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('fleetplan import / export', () => {
  it('exports the organization, re-imports it (dry run and real), and exports one cluster', async () => {
    const exp = io();
    expect(await runExportCommand([], exp)).toBe(0);
    const doc = parseYaml(exp.out) as {
      name: string;
      upgradePolicyClusters: { name: string; upgradePolicy: { conditions: { soakDays?: number } } }[];
    };
    expect(doc.upgradePolicyClusters.length).toBeGreaterThan(10);
    const file = path.join(dir, 'org.yml');
    const target = doc.upgradePolicyClusters[2]!;
    target.upgradePolicy.conditions.soakDays = 17;
    fs.writeFileSync(file, stringify(doc));

    const before = tableCounts();
    const dry = io();
    expect(await runImportCommand([file, '--dry-run'], dry)).toBe(0);
    expect(dry.out).toContain(`1 cluster policy(ies) changed: ${target.name}`);
    expect(tableCounts()).toEqual(before);

    const real = io();
    expect(await runImportCommand([file], real)).toBe(0);
    expect(real.err).toBe('');
    const after = tableCounts();
    expect(after.revisions).toBe(before.revisions + 1);
    expect(after.audit).toBe(before.audit + 2);

    const one = io();
    expect(await runExportCommand(['--cluster', target.name], one)).toBe(0);
    expect(parseYaml(one.out)).toEqual({ $schema: '/openshift/cluster-1.yml', name: target.name, upgradePolicy: target.upgradePolicy });
    const again = io();
    await runExportCommand([], again);
    expect(parseYaml(again.out)).toEqual(doc);
  });

  it('invalid input: exit 2, PATH: message lines, nothing written', async () => {
    const file = path.join(dir, 'bad.yml');
    fs.writeFileSync(
      file,
      [
        'name: app-sre',
        'sectors: [{name: a, maxParallelUpgrades: 0}]',
        'upgradePolicyClusters:',
        '- name: hive-prod-01',
        '  upgradePolicy: {workloads: [hive], schedule: "0 99 * * *", conditions: {sector: zz}}',
        '',
      ].join('\n'),
    );
    const before = tableCounts();
    const run = io();
    expect(await runImportCommand([file], run)).toBe(2);
    expect(run.out).toBe('');
    expect(
      run.err
        .trim()
        .split('\n')
        .map((l) => l.split(': ')[0]),
    ).toEqual([
      'sectors[0].maxParallelUpgrades',
      'upgradePolicyClusters[0].upgradePolicy.schedule',
      'upgradePolicyClusters[0].upgradePolicy.conditions.sector',
    ]);
    expect(tableCounts()).toEqual(before);
    const usage = io();
    expect(await runImportCommand([], usage)).toBe(2);
    const missing = io();
    expect(await runImportCommand([path.join(dir, 'nope.yml')], missing)).toBe(2);
    expect(missing.err).toContain('ENOENT');
    const unknownCluster = io();
    expect(await runExportCommand(['--cluster', 'nope'], unknownCluster)).toBe(2);
  });
});

describe('fleetplan import --cluster', () => {
  it('exports one cluster file, imports it edited (dry run, then real), and refuses a bad or unknown one without writing', async () => {
    const exp = io();
    const db = openDatabase(dbFile);
    const name = (
      db.$client.prepare('select name from clusters where upgrade_policy is not null order by name limit 1').get() as { name: string }
    ).name;
    db.$client.close();
    expect(await runExportCommand(['--cluster', name], exp)).toBe(0);
    const doc = parseYaml(exp.out) as { name: string; upgradePolicy: { conditions: { soakDays?: number } } };
    expect(doc.name).toBe(name);
    doc.upgradePolicy.conditions.soakDays = 23;
    const file = path.join(dir, `${name}.yml`);
    // keys of a cluster file that are not policy are left out, and said so
    fs.writeFileSync(file, stringify({ ...doc, spec: { product: 'osd' } }));
    const before = tableCounts();

    const dry = io();
    expect(await runImportCommand(['--cluster', file, '--dry-run'], dry)).toBe(0);
    expect(dry.out).toContain(`dry run: would change the policy of ${name}`);
    expect(tableCounts()).toEqual(before);

    const real = io();
    expect(await runImportCommand(['--cluster', file], real)).toBe(0);
    expect(real.out).toContain(`imported the policy of ${name}`);
    expect(real.out).toContain('note: not policy, left out: spec');
    const after = openDatabase(dbFile);
    const row = after.$client.prepare('select upgrade_policy, policy_revision from clusters where name = ?').get(name) as {
      upgrade_policy: string;
      policy_revision: number;
    };
    const summary = (
      after.$client.prepare('select summary from policy_revisions where subject = ? order by id desc limit 1').get(name) as {
        summary: string;
      }
    ).summary;
    after.$client.close();
    expect((JSON.parse(row.upgrade_policy) as { conditions: { soakDays: number } }).conditions.soakDays).toBe(23);
    expect(summary).toMatch(/: imported from its cluster file$/);
    const counts = tableCounts();
    expect(counts.revisions).toBe(before.revisions + 1);

    // the same file again: nothing changes
    const again = io();
    expect(await runImportCommand(['--cluster', file], again)).toBe(0);
    expect(again.out).toContain(`unchanged: the policy of ${name}`);
    expect(tableCounts()).toEqual(counts);

    // a sector the organization does not have, and a cluster the fleet does not have
    const bad = path.join(dir, 'bad-cluster.yml');
    fs.writeFileSync(bad, stringify({ ...doc, upgradePolicy: { ...doc.upgradePolicy, conditions: { sector: 'no-such-sector' } } }));
    const badIo = io();
    expect(await runImportCommand(['--cluster', bad], badIo)).toBe(2);
    expect(badIo.err).toMatch(/upgradePolicy\.conditions\.sector: .*no-such-sector/);
    const unknown = path.join(dir, 'unknown-cluster.yml');
    fs.writeFileSync(unknown, stringify({ ...doc, name: 'not-in-the-fleet' }));
    const unknownIo = io();
    expect(await runImportCommand(['--cluster', unknown], unknownIo)).toBe(2);
    expect(unknownIo.err).toContain('name: no cluster named not-in-the-fleet in the fleet');
    expect(tableCounts()).toEqual(counts);
  });

  it('lifecycle.operatorApprovals goes through the cluster file: exported as written, imported, a bad one refused at its path', async () => {
    const exp = io();
    // the demo's OCM clusters approve their operators' InstallPlans after the platform upgrade
    expect(await runExportCommand(['--cluster', 'ocm-dev-01'], exp)).toBe(0);
    const doc = parseYaml(exp.out) as { upgradePolicy: { lifecycle: { operatorApprovals: Record<string, unknown> } } };
    expect(doc.upgradePolicy.lifecycle.operatorApprovals).toEqual({ include: ['*'], exclude: ['local-storage-operator'], timeout: '2h' });
    doc.upgradePolicy.lifecycle.operatorApprovals = { include: ['openshift-gitops-operator'], timeout: '45m' };
    const file = path.join(dir, 'ocm-dev-01.yml');
    fs.writeFileSync(file, stringify(doc));
    expect(await runImportCommand(['--cluster', file], io())).toBe(0);
    const again = io();
    expect(await runExportCommand(['--cluster', 'ocm-dev-01'], again)).toBe(0);
    expect((parseYaml(again.out) as typeof doc).upgradePolicy.lifecycle.operatorApprovals).toEqual({
      include: ['openshift-gitops-operator'],
      timeout: '45m',
    });
    const before = tableCounts();
    doc.upgradePolicy.lifecycle.operatorApprovals = { exclude: ['quay-operator'] };
    fs.writeFileSync(file, stringify(doc));
    const bad = io();
    expect(await runImportCommand(['--cluster', file], bad)).toBe(2);
    expect(bad.err).toContain(
      "upgradePolicy.lifecycle.operatorApprovals.include: list the operators whose InstallPlans are approved, or ['*'] for every operator",
    );
    expect(tableCounts()).toEqual(before);
  });
});
