// `fleetplan import` / `fleetplan export` against a seeded database file.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml, stringify } from 'yaml';
import { openDatabase } from '@/db/open-database';
import { seedDemo } from '@/server/services/demo-seed-service';
import { runExportCommand } from '@/server/cli/export-command';
import { runImportCommand, type CliIo } from '@/server/cli/import-command';

let dir: string;
let dbFile: string;

function io(): CliIo & { out: string; err: string } {
  const o = {
    out: '',
    err: '',
    env: { DATABASE_URL: dbFile, FLEETPLAN_ACTOR: 'cli:test' },
    stdout: (t: string) => void (o.out += t),
    stderr: (t: string) => void (o.err += t),
  };
  return o;
}

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

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fleetplan-import-'));
  dbFile = path.join(dir, 'fleet.db');
  const db = openDatabase(dbFile);
  seedDemo(db, new Date('2026-11-22T12:00:00Z'));
  db.$client.close();
});

afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('fleetplan import / export', () => {
  it('exports the organization, re-imports it (dry run and real), and exports one cluster', async () => {
    const exp = io();
    expect(runExportCommand([], exp)).toBe(0);
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
    expect(runExportCommand(['--cluster', target.name], one)).toBe(0);
    expect(parseYaml(one.out)).toEqual({ $schema: '/openshift/cluster-1.yml', name: target.name, upgradePolicy: target.upgradePolicy });
    const again = io();
    runExportCommand([], again);
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
    expect(runExportCommand(['--cluster', 'nope'], unknownCluster)).toBe(2);
  });
});
