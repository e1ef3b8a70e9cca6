// `fleetplan gate list|ack` on a database file, against the fake OCM (clusters_mgmt's
// version_gates and gate_agreements): the list shows what holds which cluster; ack asks for --yes
// first, then agrees exactly once at OCM, takes the gate off the cluster and audits the CLI user;
// an unknown gate is refused with what is pending, and nothing is written.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '@/db/open-database';
import * as t from '@/db/schema';
import { runGateCommand } from '@/server/cli/gate-command';
import { startFakeOcm, type FakeOcm } from '@/tests/fakes/fake-ocm';
import { captureIo } from './capture-io';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fleetplan-gate-'));
const fakes: FakeOcm[] = [];
afterAll(async () => {
  await Promise.all(fakes.map((f) => f.close()));
  fs.rmSync(dir, { recursive: true, force: true });
});

const NOW = new Date('2026-03-02T08:00:00Z');
const GATE = {
  id: 'gate-416',
  version_raw_id_prefix: '4.16',
  label: 'api.openshift.com/gate-ocp',
  value: '4.16',
  description: 'OpenShift 4.16 removes deprecated APIs',
  sts_only: false,
};

async function fixture(name: string) {
  const fake = await startFakeOcm({
    clusters: [{ id: 'ocm-id-1', name: 'rosa-1', version: '4.15.20', releases: ['4.15.20', '4.16.3'] }],
    versionGates: [GATE],
    now: () => NOW,
  });
  fakes.push(fake);
  const file = path.join(dir, `${name}.db`);
  const db = openDatabase(file);
  const org = db.insert(t.organizations).values({ name: 'org', updatedAt: NOW }).returning().get();
  db.insert(t.clusters)
    .values({
      organizationId: org.id,
      name: 'rosa-1',
      externalId: 'ocm-id-1',
      provider: 'ocm',
      version: '4.15.20',
      channel: 'stable-4.15',
      availableUpgrades: ['4.16.3'],
      pendingVersionGates: [{ id: GATE.id, minor: '4.16', description: GATE.description, documentationUrl: null }],
      observedAt: NOW,
    })
    .run();
  db.$client.close();
  const io = () => {
    const o = captureIo(file);
    o.env = { ...o.env, FLEETPLAN_PROVIDER: 'ocm', FLEETPLAN_OCM_URL: fake.url, FLEETPLAN_OCM_TOKEN: fake.token };
    return o;
  };
  const rows = <T>(sql: string) => {
    const d = openDatabase(file);
    try {
      return d.$client.prepare(sql).all() as T[];
    } finally {
      d.$client.close();
    }
  };
  return { fake, io, rows };
}

describe('fleetplan gate', () => {
  it('lists the pending gates, and agrees to one at OCM once, after --yes, audited', async () => {
    const { fake, io, rows } = await fixture('ack');
    const listed = io();
    expect(await runGateCommand(['list'], listed)).toBe(0);
    expect(listed.out).toBe('rosa-1\t4.16\tgate-416\tOpenShift 4.16 removes deprecated APIs\n');

    const unconfirmed = io();
    expect(await runGateCommand(['ack', 'rosa-1', '4.16'], unconfirmed)).toBe(2);
    expect(unconfirmed.err).toContain('run again with --yes');
    expect(fake.gateAgreementWrites()).toEqual([]);

    const done = io();
    expect(await runGateCommand(['ack', 'rosa-1', '4.16', '--yes'], done)).toBe(0);
    expect(done.out).toContain('agreed to the 4.16 version gate for rosa-1 at ocm');
    expect(fake.gateAgreementWrites()).toEqual([expect.objectContaining({ cluster: 'ocm-id-1', gateId: 'gate-416' })]);
    expect(rows<{ gates: string }>('select pending_version_gates as gates from clusters')).toEqual([{ gates: '[]' }]);
    expect(
      rows<{ actor: string; target: string }>("select actor, target from audit_log where action = 'cluster.acknowledge-version-gate'"),
    ).toEqual([{ actor: 'cli:test', target: 'rosa-1@4.16' }]);

    // nothing pending any more: a second ack is refused and OCM is not asked again
    const again = io();
    expect(await runGateCommand(['ack', 'rosa-1', '4.16', '--yes'], again)).toBe(2);
    expect(again.err).toContain('rosa-1 has no pending version gate for 4.16');
    expect(fake.gateAgreementWrites()).toHaveLength(1);
  });

  it('refuses an unknown gate or bad usage, naming what is pending, and writes nothing', async () => {
    const { fake, io, rows } = await fixture('refuse');
    const wrong = io();
    expect(await runGateCommand(['ack', 'rosa-1', '4.17', '--yes'], wrong)).toBe(2);
    expect(wrong.err).toBe('fleetplan gate ack: rosa-1 has no pending version gate for 4.17 (pending: 4.16)\n');
    const usage = io();
    expect(await runGateCommand(['ack', 'rosa-1'], usage)).toBe(2);
    expect(usage.err).toContain('usage: fleetplan gate list');
    expect(fake.gateAgreementWrites()).toEqual([]);
    expect(rows("select * from audit_log where action = 'cluster.acknowledge-version-gate'")).toEqual([]);
  });
});
