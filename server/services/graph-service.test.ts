// Graph service over a real (in-memory) database seeded with the demo fleet and its two graphs.
import fs from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '@/db/open-database';
import { seedDemo } from '@/server/services/demo-seed-service';
import { createCaller } from '@/server/api/root';
import { createContextInner } from '@/server/api/trpc';
import type { Actor } from '@/server/auth/actor';
import { listClusters } from '@/server/repositories/cluster-repository';
import { createGraphService, graphSetLoadCount } from './graph-service';

const NOW = new Date('2026-11-22T12:00:00Z');
const UNION = fs.readFileSync(path.join(process.cwd(), 'server/demo/data/union-4.6-4.9.json'), 'utf8');
const operator: Actor = { name: 'graph-test-operator', role: 'operator', via: 'session', userId: 1 };
const viewer: Actor = { name: 'graph-test-viewer', role: 'viewer', via: 'session', userId: 1 };

let db: Db;

function rows(table: string): number {
  return (db.$client.prepare(`select count(*) as n from ${table}`).get() as { n: number }).n;
}

function caller(actor: Actor) {
  return createCaller(createContextInner({ db, fleetNow: () => NOW, actor }));
}

beforeEach(async () => {
  db = openDatabase(':memory:');
  await seedDemo(db, NOW);
});

describe('graph service', () => {
  it('lists the seeded graphs and their channels, eus first', async () => {
    const list = await caller(viewer).graphs.list();
    expect(list.map((g) => g.name).sort()).toEqual(['stable-4.13', 'union-4.6-4.9']);
    const { channels } = await caller(viewer).graphs.channels();
    const names = channels.map((c) => c.name);
    expect(names[0]).toMatch(/^eus-/);
    const eus48 = channels.find((c) => c.name === 'eus-4.8');
    expect(eus48).toMatchObject({ maxVersion: '4.8.54' });
    expect(eus48!.minors).toContain('4.7');
  });

  it('imports a valid graph, and refuses a broken one without changing anything', async () => {
    const before = { graphs: rows('update_graphs'), audit: rows('audit_log') };
    const bad = JSON.stringify({
      version: 1,
      nodes: [
        { version: '4.7.1', payload: 'x' },
        { version: '4.7.2', payload: 'y' },
      ],
      edges: [[1, 2]],
    });
    await expect(caller(operator).graphs.import({ fileName: 'broken.json', text: bad })).rejects.toThrow(
      /broken\.json is not a valid update graph: edges\[0\] \[1,2\]: node index 2 is out of range/,
    );
    await expect(caller(operator).graphs.import({ fileName: 'v.json', text: '{"nodes":[{"version":"4.7"}]}' })).rejects.toThrow(
      /not SemVer/,
    );
    await expect(caller(operator).graphs.import({ fileName: 'e.json', text: '' })).rejects.toThrow(/empty file/);
    expect({ graphs: rows('update_graphs'), audit: rows('audit_log') }).toEqual(before);

    const small = JSON.stringify({
      version: 1,
      nodes: [
        { version: '4.20.1+arm64', payload: 'p1', metadata: { 'io.openshift.upgrades.graph.release.channels': 'stable-4.20' } },
        { version: '4.20.2+arm64', payload: 'p2', metadata: { 'io.openshift.upgrades.graph.release.channels': 'stable-4.20' } },
      ],
      edges: [[0, 1]],
    });
    const meta = await caller(operator).graphs.import({
      fileName: 'small.json',
      text: small,
      capturedAt: new Date('2026-01-01T00:00:00Z'),
    });
    expect(meta).toMatchObject({ name: 'small', architecture: 'arm64', nodeCount: 2, edgeCount: 1, source: 'upload: small.json' });
    expect(rows('update_graphs')).toBe(before.graphs + 1);
    expect(rows('audit_log')).toBe(before.audit + 1);
    const solved = await caller(viewer).graphs.solve({ from: '4.20.1', channel: 'stable-4.20', allowConditional: false });
    expect(solved.answer.path).toEqual(['4.20.1', '4.20.2']);

    await caller(operator).graphs.delete({ id: meta.id });
    expect(rows('update_graphs')).toBe(before.graphs);
    const after = await caller(viewer).graphs.solve({ from: '4.20.1', channel: 'stable-4.20', allowConditional: false });
    expect(after.answer).toMatchObject({ path: null, reason: 'SOURCE_NOT_IN_CHANNEL' });
  });

  it('refuses imports and deletes from viewers', async () => {
    await expect(caller(viewer).graphs.import({ fileName: 'x.json', text: UNION })).rejects.toThrow(/operator/);
    await expect(caller(viewer).graphs.delete({ id: 1 })).rejects.toThrow(/operator/);
  });

  it('solves 4.6.30 → eus-4.8 with releases, runbook, imageset, mirror list, skew and duration', async () => {
    const r = await caller(viewer).graphs.solve({ from: '4.6.30', channel: 'eus-4.8', allowConditional: false, workerNodes: 6 });
    expect(r.answer.path).toEqual(['4.6.30', '4.7.60', '4.8.54']);
    expect(r.releases.map((x) => x.version)).toEqual(['4.6.30', '4.7.60', '4.8.54']);
    expect(r.releases.every((x) => x.payload.startsWith('quay.io/openshift-release-dev/ocp-release@sha256:'))).toBe(true);
    expect(r.imageset!.yaml).toContain('apiVersion: mirror.openshift.io/v2alpha1');
    expect(r.mirrorList!.text.trim().split('\n')).toHaveLength(3);
    expect((JSON.parse(r.mirrorList!.json) as { releases: unknown[] }).releases).toHaveLength(3);
    expect(r.runbook!.pausesWorkers).toBe(true);
    expect(r.runbook!.text).toContain('oc adm upgrade channel eus-4.8');
    expect(r.runbook!.text).toContain('oc adm upgrade --to=4.8.54');
    expect(r.skew!.ok).toBe(true);
    expect(r.duration!.model).toMatch(/Workers: 1 rollout/);
    expect(r.duration!.totalMinutes).toBeGreaterThan(0);
  });

  it('explains a source missing from the channel, with the channels that hold it and the EUS lag', async () => {
    const r = await caller(viewer).graphs.solve({ from: '4.9.0', channel: 'eus-4.8', allowConditional: false });
    expect(r.answer).toMatchObject({ path: null, reason: 'SOURCE_NOT_IN_CHANNEL' });
    expect(r.sourceChannels.length).toBeGreaterThan(0);
    expect(r.sourceChannels).not.toContain('eus-4.8');
    expect(r.eusHint).toMatch(/EUS channels lag GA/);
    expect(r.runbook).toBeNull();
  });

  it('solves for a cluster of the fleet by name, with its version and node count', async () => {
    const cluster = (await listClusters(db, { filter: {}, sort: 'name', direction: 'asc', offset: 0, limit: 1 })).rows[0]!;
    const r = await caller(viewer).graphs.solve({ clusterName: cluster.name, channel: 'stable-4.13', allowConditional: true });
    expect(r.cluster).toMatchObject({ name: cluster.name, version: cluster.version });
    expect(r.answer.from).toBe(cluster.version);
    expect(r.nodes.workers).toBe(Math.max(0, cluster.nodeCount - 3));
    await expect(caller(viewer).graphs.solve({ clusterName: 'no-such-cluster', allowConditional: false })).rejects.toThrow(
      /No cluster named/,
    );
  });

  it("lists, hop by hop, what the cluster's operators and removed-API use would hold (the scheduler's rule)", async () => {
    const cluster = (await listClusters(db, { filter: {}, sort: 'name', direction: 'asc', offset: 0, limit: 1 })).rows[0]!;
    const solve = () => caller(viewer).graphs.solve({ clusterName: cluster.name, channel: 'eus-4.8', allowConditional: false });
    db.$client.prepare('update clusters set version = ?, inhibitors = null where id = ?').run('4.6.30', cluster.id);
    expect((await solve()).hopInhibitors).toMatchObject({
      reported: false,
      hops: [
        { to: '4.7.60', inhibitors: [] },
        { to: '4.8.54', inhibitors: [] },
      ],
    });

    const facts = {
      operators: [{ name: 'cluster-logging.v5.2.0', namespace: 'openshift-logging', maxOpenShiftVersion: '4.7' }],
      removedApis: [{ resource: 'ingresses.v1beta1.extensions', removedInRelease: '1.22', users: ['ci-robot'] }],
    };
    db.$client.prepare('update clusters set inhibitors = ? where id = ?').run(JSON.stringify(facts), cluster.id);
    const r = await solve();
    expect(r.answer.path).toEqual(['4.6.30', '4.7.60', '4.8.54']);
    // 4.8 ships Kubernetes 1.21: the API removed in 1.22 holds no hop; the operator's 4.7 limit holds the second
    expect(r.hopInhibitors!.reported).toBe(true);
    expect(r.hopInhibitors!.hops.map((h) => [h.from, h.to, h.inhibitors.map((i) => i.reason)])).toEqual([
      ['4.6.30', '4.7.60', []],
      ['4.7.60', '4.8.54', ['OPERATOR_INCOMPATIBLE']],
    ]);
    expect((await caller(viewer).graphs.solve({ from: '4.6.30', channel: 'eus-4.8', allowConditional: false })).hopInhibitors).toBeNull();
  });

  it('says for a chosen cluster whether fleetplan runs the EUS-to-EUS path itself, control-plane-only', async () => {
    const cluster = (await listClusters(db, { filter: {}, sort: 'name', direction: 'asc', offset: 0, limit: 1 })).rows[0]!;
    const policy = { ...(cluster.upgradePolicy ?? {}) } as Record<string, unknown>;
    const solve = () => caller(viewer).graphs.solve({ clusterName: cluster.name, channel: 'eus-4.8', allowConditional: false });
    db.$client
      .prepare('update clusters set version = ?, channel = ?, upgrade_policy = ? where id = ?')
      .run('4.6.30', 'eus-4.6', JSON.stringify({ ...policy, lifecycle: { eusControlPlaneOnly: true } }), cluster.id);
    const opted = await solve();
    expect(opted.answer.path).toEqual(['4.6.30', '4.7.60', '4.8.54']);
    expect(opted.eusRun).toBe('runs');
    // without the option the runbook is the operator's to follow
    db.$client.prepare('update clusters set upgrade_policy = ? where id = ?').run(JSON.stringify(policy), cluster.id);
    expect((await solve()).eusRun).toBeNull();
    // a path that is no EUS-to-EUS run (one minor)
    db.$client
      .prepare('update clusters set upgrade_policy = ? where id = ?')
      .run(JSON.stringify({ ...policy, lifecycle: { eusControlPlaneOnly: true } }), cluster.id);
    const oneMinor = await caller(viewer).graphs.solve({ clusterName: cluster.name, to: '4.7.60', allowConditional: false });
    expect(oneMinor.answer.path).toEqual(['4.6.30', '4.7.60']);
    expect(oneMinor.eusRun).toBeNull();
    // on a provider that cannot pause MachineConfigPools
    db.$client.prepare("update organizations set provider_kind = 'ocm' where id = ?").run(cluster.organizationId);
    expect((await solve()).eusRun).toBe('not-applied');
    db.$client.prepare('update organizations set provider_kind = null where id = ?').run(cluster.organizationId);
  });

  it('builds the merged index once per set of stored graphs, and again after an import', async () => {
    const service = createGraphService(db, () => NOW);
    await service.solve({ from: '4.6.30', channel: 'eus-4.8', allowConditional: false });
    const afterFirst = graphSetLoadCount();
    await service.solve({ from: '4.7.60', channel: 'eus-4.8', allowConditional: false });
    await service.channels();
    // a new service object (one per request) shares the cache
    await createGraphService(db, () => NOW).graphView({ channel: 'eus-4.8', path: ['4.6.30', '4.7.60', '4.8.54'] });
    expect(graphSetLoadCount()).toBe(afterFirst);

    await service.import({ fileName: 'stable-4.13-copy.json', text: fs.readFileSync('server/demo/data/stable-4.13.json', 'utf8') }, 'test');
    await service.solve({ from: '4.6.30', channel: 'eus-4.8', allowConditional: false });
    expect(graphSetLoadCount()).toBe(afterFirst + 1);
    await service.solve({ from: '4.6.30', channel: 'eus-4.8', allowConditional: false });
    expect(graphSetLoadCount()).toBe(afterFirst + 1);
  });

  it('keeps the graph view small: the path, its neighbourhood and a spine, saying what is omitted', async () => {
    const service = createGraphService(db, () => NOW);
    const v = await service.graphView({ channel: 'eus-4.8', path: ['4.6.30', '4.7.60', '4.8.54'], from: '4.6.30', to: '4.8.54' });
    expect(v.minors).toEqual(['4.6', '4.7', '4.8']);
    expect(v.edges.filter((e) => e.onPath).map((e) => `${e.from}>${e.to}`)).toEqual(['4.6.30>4.7.60', '4.7.60>4.8.54']);
    expect(v.edges.length).toBeLessThan(v.nodes.length * 2 + 80);
    expect(v.totals.edges).toBeGreaterThan(1000);
    expect(v.omitted.edges).toBe(v.totals.edges - v.edges.length);
    expect(JSON.stringify(v).length).toBeLessThan(100_000);
  });
});
