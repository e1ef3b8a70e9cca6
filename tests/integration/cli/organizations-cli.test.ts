// `--org NAME` on the commands that touch one organization's data, and `fleetplan blocked` (the
// instance's blocked versions), on a database file holding two organizations.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '@/db/open-database';
import { runBlockedCommand } from '@/server/cli/blocked-command';
import { runExportCommand } from '@/server/cli/export-command';
import { runImportCommand } from '@/server/cli/import-command';
import { runOrgCommand } from '@/server/cli/org-command';
import { insertTestFleet } from '@/server/scheduler/test-fleet';
import { captureIo } from './capture-io';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fleetplan-orgs-cli-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
const NOW = new Date('2024-07-10T08:00:00Z');

async function twoOrganizations(name: string): Promise<string> {
  const file = path.join(dir, name);
  const db = openDatabase(file);
  await insertTestFleet(
    db,
    { organization: 'alpha', blocked: ['^4\\.13\\.9$'], clusters: [{ name: 'a1', version: '4.13.1', releases: ['4.13.2'] }] },
    NOW,
  );
  await insertTestFleet(db, { organization: 'beta', clusters: [{ name: 'b1', version: '4.13.1', releases: ['4.13.2'] }] }, NOW);
  db.$client.close();
  return file;
}

describe('fleetplan --org and blocked', () => {
  it('exports the organization --org names (the first without it); an unknown one exits 2 with one line', async () => {
    const file = await twoOrganizations('export.db');
    const first = captureIo(file);
    expect(await runExportCommand([], first)).toBe(0);
    expect(first.out).toContain('name: alpha');
    const beta = captureIo(file);
    expect(await runExportCommand(['--org', 'beta'], beta)).toBe(0);
    expect(beta.out).toContain('name: beta');
    expect(beta.out).toContain('b1');
    expect(beta.out).not.toContain('a1');
    const unknown = captureIo(file);
    expect(await runExportCommand(['--org=nope'], unknown)).toBe(2);
    expect(unknown.err).toBe('fleetplan export: There is no organization named "nope"\n');
  });

  it('imports into the organization --org names and no other; an unknown one writes nothing', async () => {
    const file = await twoOrganizations('import.db');
    const yml = path.join(dir, 'beta.yml');
    const exported = captureIo(file);
    expect(await runExportCommand(['--org', 'beta'], exported)).toBe(0);
    fs.writeFileSync(yml, exported.out);
    const revisions = () => {
      const db = openDatabase(file);
      try {
        return db.$client.prepare('select count(*) n from policy_revisions').get() as { n: number };
      } finally {
        db.$client.close();
      }
    };
    const before = revisions();
    const unknown = captureIo(file);
    expect(await runImportCommand([yml, '--org', 'nope'], unknown)).toBe(2);
    expect(unknown.err).toBe('fleetplan import: There is no organization named "nope"\n');
    expect(revisions()).toEqual(before);
    // beta's own file into alpha: it names another organization of the instance
    const wrong = captureIo(file);
    expect(await runImportCommand([yml, '--org', 'alpha'], wrong)).toBe(2);
    expect(wrong.err).toContain('names organization beta, which is another organization of this instance');
    const ok = captureIo(file);
    expect(await runImportCommand([yml, '--org', 'beta', '--dry-run'], ok)).toBe(0);
    expect(ok.out).toContain('organization beta');
  });

  it('gives an organization its own provider by reference; a bad reference or organization exits 2 and writes nothing', async () => {
    const file = await twoOrganizations('provider.db');
    const set = captureIo(file);
    expect(await runOrgCommand(['provider', 'beta', 'kubernetes', '/etc/fleetplan/beta.kubeconfig'], set)).toBe(0);
    expect(set.out).toBe('organization beta uses its own kubernetes provider (credentials: /etc/fleetplan/beta.kubeconfig)\n');
    const bad = captureIo(file);
    expect(await runOrgCommand(['provider', 'alpha', 'ocm', 'not a variable'], bad)).toBe(2);
    expect(bad.err).toContain('credentialsRef: the name of the environment variable that holds the OCM offline token');
    expect(await runOrgCommand(['provider', 'nope', 'simulator'], captureIo(file))).toBe(2);
    expect(await runOrgCommand(['provider', 'alpha', 'aws'], captureIo(file))).toBe(2);
    const listed = captureIo(file);
    expect(await runOrgCommand(['list'], listed)).toBe(0);
    expect(listed.out).toContain('beta\t');
    const db = openDatabase(file);
    try {
      expect(db.$client.prepare('select name, provider_kind k, provider_credentials_ref r from organizations order by id').all()).toEqual([
        { name: 'alpha', k: null, r: null },
        { name: 'beta', k: 'kubernetes', r: '/etc/fleetplan/beta.kubeconfig' },
      ]);
    } finally {
      db.$client.close();
    }
    const cleared = captureIo(file);
    expect(await runOrgCommand(['provider', 'beta', 'none'], cleared)).toBe(0);
    expect(cleared.out).toBe("organization beta uses the instance's provider (FLEETPLAN_PROVIDER)\n");
  });

  it('blocks a version instance-wide, lists and unblocks it; refusals exit 2', async () => {
    const file = await twoOrganizations('blocked.db');
    const empty = captureIo(file);
    expect(await runBlockedCommand(['list'], empty)).toBe(0);
    expect(empty.out).toBe('no version is blocked instance-wide\n');
    const add = captureIo(file);
    expect(await runBlockedCommand(['add', '^4\\.13\\.2$', '--reason', 'CVE'], add)).toBe(0);
    expect(add.out).toBe('blocked ^4\\.13\\.2$ instance-wide (every organization)\n');
    const listed = captureIo(file);
    expect(await runBlockedCommand(['list'], listed)).toBe(0);
    expect(listed.out).toMatch(/^\^4\\\.13\\\.2\$\tCVE\t\(cli:test, /);
    const again = captureIo(file);
    expect(await runBlockedCommand(['add', '^4\\.13\\.2$', '--reason', 'x'], again)).toBe(2);
    expect(again.err).toBe("fleetplan blocked add: '^4\\.13\\.2$' is already blocked instance-wide\n");
    expect(await runBlockedCommand(['add', '^4\\.14$'], captureIo(file))).toBe(2);
    const removed = captureIo(file);
    expect(await runBlockedCommand(['remove', '^4\\.13\\.2$'], removed)).toBe(0);
    const gone = captureIo(file);
    expect(await runBlockedCommand(['remove', '^4\\.13\\.2$'], gone)).toBe(2);
    expect(gone.err).toBe("fleetplan blocked remove: '^4\\.13\\.2$' is not blocked instance-wide\n");
  });
});
