// `fleetplan label` on a database file: kubectl-style changes set and remove fleetplan's labels
// (audited with the CLI's actor), the bare command lists a cluster's labels with their source,
// and a bad change or an unknown cluster exits 2 and writes nothing.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '@/db/open-database';
import { runLabelCommand } from '@/server/cli/label-command';
import { seedDemo } from '@/server/services/demo-seed-service';
import { captureIo } from './capture-io';
import { queryFile } from './query-file';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fleetplan-label-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
const file = path.join(dir, 'fleet.db');
let cluster = '';

const query = <T>(sql: string): T[] => queryFile<T>(file, sql);

beforeAll(async () => {
  const db = openDatabase(file);
  await seedDemo(db, new Date('2026-11-22T12:00:00Z'));
  cluster = (db.$client.prepare('select name from clusters order by name limit 1').get() as { name: string }).name;
  // the provider's labels, as discovery stores them
  db.$client.prepare(`update clusters set labels = '{"env":"stage","team":"search"}' where name = ?`).run(cluster);
  db.$client.close();
});

describe('fleetplan label', () => {
  it('sets and removes fleetplan labels, audited, and lists them with their source', async () => {
    const set = captureIo(file);
    expect(await runLabelCommand([cluster, 'env=prod', 'tier=web'], set)).toBe(0);
    expect(set.out).toBe(`cluster/${cluster} labeled\n`);
    const listed = captureIo(file);
    expect(await runLabelCommand([cluster], listed)).toBe(0);
    expect(listed.out).toBe('env=prod\tfleetplan\nteam=search\tprovider\ntier=web\tfleetplan\n');
    const removed = captureIo(file);
    expect(await runLabelCommand([cluster, 'env-', 'team-'], removed)).toBe(0);
    expect(removed.err).toBe(`fleetplan label: label "team" not found among fleetplan's labels of ${cluster}\n`);
    const after = captureIo(file);
    await runLabelCommand([cluster], after);
    expect(after.out).toBe('env=stage\tprovider\nteam=search\tprovider\ntier=web\tfleetplan\n');
    expect(query<{ actor: string }>("select actor from audit_log where action = 'cluster.label' order by id")).toEqual([
      { actor: 'cli:test' },
      { actor: 'cli:test' },
    ]);
  });

  it('refuses a bad change or an unknown cluster with exit 2 and writes nothing', async () => {
    const before = query<{ n: number }>("select count(*) as n from audit_log where action = 'cluster.label'")[0]!.n;
    const bad = captureIo(file);
    expect(await runLabelCommand([cluster, 'ok=1', 'bad value'], bad)).toBe(2);
    expect(bad.err).toBe("fleetplan label: refused: 'bad value': write key=value to set a label or key- to remove it\n");
    const unknown = captureIo(file);
    expect(await runLabelCommand(['no-such-cluster', 'a=b'], unknown)).toBe(2);
    expect(unknown.err).toBe('fleetplan label: Cluster no-such-cluster does not exist\n');
    const usage = captureIo(file);
    expect(await runLabelCommand([], usage)).toBe(2);
    expect(query<{ n: number }>("select count(*) as n from audit_log where action = 'cluster.label'")[0]!.n).toBe(before);
    expect(query<{ l: string }>(`select fleetplan_labels as l from clusters where name = '${cluster}'`)).toEqual([{ l: '{"tier":"web"}' }]);
  });
});
