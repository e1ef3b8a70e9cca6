import { describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import type { Db } from '@/db/open-database';
import { createFakeProvider } from '@/server/integrations/providers/fake-provider';
import { readSnapshotObservedAt } from '@/server/repositories/decision-repository';
import { onBothDatabases } from '@/tests/support/both-databases';
import { GONE_AFTER_MISSED_SNAPSHOTS } from '@/server/domain/scheduling/snapshot-transitions';
import { runTick } from './run-tick';
import { fleetRows, insertTestFleet, type TestFleet } from './test-fleet';

const NOW = new Date('2021-08-30T18:00:00Z'); // a Monday
const MIN = 60_000;

const twoStage: TestFleet = {
  sectors: [{ name: 'stage' }, { name: 'prod', dependencies: ['stage'] }],
  clusters: [
    { name: 'stage-1', version: '4.13.1', releases: ['4.13.2', '4.13.3'], soakDays: 0, sector: 'stage' },
    { name: 'prod-1', version: '4.13.1', releases: ['4.13.2', '4.13.3'], soakDays: 3, sector: 'prod', mutexes: ['prod'] },
    { name: 'prod-2', version: '4.13.1', releases: ['4.13.2', '4.13.3'], soakDays: 3, sector: 'prod', mutexes: ['prod'] },
  ],
};

function tick(db: Db, provider: ReturnType<typeof createFakeProvider>, now: Date, dryRun = false) {
  return runTick({ db, provider, now, dryRun, holder: 'test', realNow: () => now });
}

onBothDatabases('runTick', (open) => {
  async function setup(fleet: TestFleet) {
    const db = await open();
    const { fakeClusters, organizationId } = await insertTestFleet(db, fleet, NOW);
    const provider = createFakeProvider({ clusters: fakeClusters });
    return { db, provider, organizationId, read: fleetRows(db) };
  }

  describe('runTick', () => {
    it('leaves out a cluster whose provider-reported name the identifier rule refuses, and decides for the rest', async () => {
      const db = await open();
      const read = fleetRows(db);
      const { fakeClusters } = await insertTestFleet(db, twoStage, NOW);
      const evil = { ...fakeClusters[0]!, externalId: 'evil-id', name: 'prod\u202E-1' };
      const provider = createFakeProvider({ clusters: [...fakeClusters, evil] });
      const logged: string[] = [];
      const r = await runTick({ db, provider, now: NOW, holder: 'test', realNow: () => NOW, log: (m) => logged.push(m) });
      expect(r.status).toBe('succeeded');
      expect((await read.clusters()).map((c) => c.name).sort()).toEqual(['prod-1', 'prod-2', 'stage-1']);
      expect(logged).toContain('cluster left out: the provider reports a name fleetplan refuses');
    });

    it('records decisions, persists soak and executes each intent once', async () => {
      const { db, provider, read } = await setup(twoStage);
      const { t } = read;
      const r = await tick(db, provider, NOW);
      expect(r.status).toBe('succeeded');
      if (r.status !== 'succeeded') return;
      expect(r.decisions.find((d) => d.cluster === 'stage-1')).toMatchObject({
        action: 'upgrade',
        version: '4.13.3',
        nextRun: '2021-08-30T18:07:00Z',
      });
      expect(r.decisions.find((d) => d.cluster === 'prod-1')).toMatchObject({ action: 'skip', reason: 'SECTOR_BEHIND' });
      const rows = await read.decisions();
      expect(rows).toHaveLength(3);
      expect(rows.every((d) => d.tickId === r.tickId)).toBe(true);
      // the decision creates an attempt for its slot; nothing is sent before the slot
      expect(await read.attempts()).toMatchObject([
        { clusterName: 'stage-1', toVersion: '4.13.3', state: 'scheduled', slot: new Date('2021-08-30T18:07:00Z') },
      ]);
      expect(await read.intents()).toEqual([]);
      expect(provider.records()).toEqual([]);
      const stage = await read.cluster('stage-1');
      expect(stage.currentUpgrade).toMatchObject({ version: '4.13.3', state: 'scheduled' });
      expect(stage.lastDecisionAction).toBe('upgrade');
      const soak = await read.soak();
      expect(soak.map((s) => s.version).sort()).toEqual(['4.13.1']);
      expect(soak[0]!.reporting.sort()).toEqual(['prod-1', 'prod-2', 'stage-1']);
      expect((await read.soakSamples()).length).toBe(1);

      // the next tick sees the pending upgrade; nothing is triggered, soak grows
      const r2 = await tick(db, provider, new Date(NOW.getTime() + 5 * MIN));
      expect(r2.status).toBe('succeeded');
      expect(provider.records()).toEqual([]);
      const [soak2] = await db.select().from(t.versionSoak).where(eq(t.versionSoak.version, '4.13.1'));
      expect(soak2!.soakDays).toBeCloseTo((3 * 5) / (24 * 60), 9);
      // unchanged decisions are not recorded again
      expect(
        (await read.decisions()).filter((d) => d.tickId === (r2.status === 'succeeded' ? r2.tickId : -1)).map((d) => d.clusterName),
      ).toEqual(['stage-1']);

      // at the slot: gates pass, exactly one start through its intent; later ticks send nothing
      await tick(db, provider, new Date(NOW.getTime() + 7 * MIN));
      await tick(db, provider, new Date(NOW.getTime() + 8 * MIN));
      expect(provider.records().filter((x) => x.op === 'trigger')).toMatchObject([{ cluster: 'stage-1', version: '4.13.3' }]);
      const attemptId = (await read.attempt())!.id;
      expect(await read.intents()).toMatchObject([
        { kind: 'start-upgrade', clusterName: 'stage-1', version: '4.13.3', status: 'done', idempotencyKey: `${attemptId}:start` },
      ]);

      // after the upgrade completes: post-checks, completed; the cluster moves on
      const later = new Date(NOW.getTime() + 60 * MIN);
      await tick(db, provider, later);
      const done = await read.cluster('stage-1');
      expect(done.version).toBe('4.13.3');
      expect(done.currentUpgrade).toBeNull();
      expect(await read.attempt()).toMatchObject({ state: 'completed' });
      expect((await read.transitions()).map((x) => x.toState)).toEqual([
        'scheduled',
        'pre-checks',
        'started',
        'upgrading',
        'post-checks',
        'completed',
      ]);
      const history = await read.history();
      expect(history).toMatchObject([{ toVersion: '4.13.3', state: 'completed' }]);
    });

    it('dry run writes decisions but no intents and triggers nothing', async () => {
      const { db, provider, read } = await setup(twoStage);
      const r = await tick(db, provider, NOW, true);
      expect(r.status).toBe('succeeded');
      expect(await read.decisions()).toHaveLength(3);
      expect(await read.intents()).toHaveLength(0);
      expect(provider.records()).toHaveLength(0);
      const tickRow = (await read.ticks())[0]!;
      expect(tickRow.dryRun).toBe(true);
      expect((await read.cluster('stage-1')).currentUpgrade).toBeNull();
      expect(await read.soak()).toHaveLength(0);
      expect(await read.attempts()).toHaveLength(0);
    });

    it('cancels a scheduled upgrade to a version blocked since, at the next tick', async () => {
      const fleet: TestFleet = { clusters: [{ name: 'c1', version: '4.13.1', releases: ['4.13.2'], soakDays: 0, schedule: '0 20 * * *' }] };
      const { db, provider, organizationId, read } = await setup(fleet);
      const at = new Date('2021-08-30T18:30:00Z'); // next run 20:00 is within 2 h
      const r1 = await tick(db, provider, at);
      expect(r1.status === 'succeeded' && r1.decisions[0]).toMatchObject({ action: 'upgrade', version: '4.13.2' });
      await db.insert(read.t.blockedVersions).values({ organizationId, pattern: '^4\\.13\\.2$', createdAt: at });
      const r2 = await tick(db, provider, new Date(at.getTime() + MIN));
      expect(r2.status === 'succeeded' && r2.decisions[0]).toMatchObject({
        action: 'cancel',
        version: '4.13.2',
        reason: 'VERSION_BLOCKED',
      });
      // the attempt was fleetplan-side only: cancelled with the reason, nothing sent to the provider
      expect(await read.attempt()).toMatchObject({ state: 'cancelled', reason: 'VERSION_BLOCKED' });
      expect(provider.records()).toEqual([]);
      const c = (await read.clusters())[0]!;
      expect(c.currentUpgrade).toBeNull();
      const r3 = await tick(db, provider, new Date(at.getTime() + 2 * MIN));
      expect(r3.status === 'succeeded' && r3.decisions[0]).toMatchObject({ action: 'skip', reason: 'VERSION_BLOCKED' });
      await tick(db, provider, new Date('2021-08-30T20:00:00Z'));
      expect(provider.records()).toEqual([]);
    });

    it('a freeze stops every new upgrade', async () => {
      const { db, provider, read } = await setup({ ...twoStage, frozen: true });
      const r = await tick(db, provider, NOW);
      expect(r.status === 'succeeded' && r.decisions.find((d) => d.cluster === 'stage-1')).toMatchObject({
        action: 'skip',
        reason: 'FROZEN',
      });
      expect(provider.records()).toHaveLength(0);
      expect(await read.intents()).toHaveLength(0);
    });

    it('an exclusion window gives EXCLUDED and frees the mutex for the next cluster', async () => {
      const fleet: TestFleet = {
        clusters: [
          { name: 'a', version: '4.13.1', releases: ['4.13.2'], soakDays: 0, mutexes: ['m'] },
          { name: 'b', version: '4.13.1', releases: ['4.13.2'], soakDays: 0, mutexes: ['m'] },
        ],
      };
      const { db, provider, organizationId, read } = await setup(fleet);
      await db.insert(read.t.maintenanceExclusions).values({
        organizationId,
        scope: 'cluster',
        subject: 'a',
        startsAt: new Date(NOW.getTime() - 3600_000),
        endsAt: new Date(NOW.getTime() + 86_400_000),
        reason: 'customer go-live',
        createdBy: 'test',
        createdAt: NOW,
      });
      const r = await tick(db, provider, NOW);
      expect(r.status).toBe('succeeded');
      if (r.status !== 'succeeded') return;
      expect(r.decisions.find((d) => d.cluster === 'a')).toMatchObject({ action: 'skip', reason: 'EXCLUDED' });
      expect(r.decisions.find((d) => d.cluster === 'b')).toMatchObject({ action: 'upgrade', version: '4.13.2' });
      await tick(db, provider, new Date(NOW.getTime() + 7 * MIN));
      expect(provider.records().map((x) => x.op === 'trigger' && x.cluster)).toEqual(['b']);
    });

    it('the health gate skips clusters with issues, with the reason', async () => {
      const { db, provider } = await setup({
        clusters: [{ name: 'sick', version: '4.13.1', releases: ['4.13.2'], soakDays: 0, healthIssues: ['ClusterOperator dns Degraded'] }],
      });
      const r = await tick(db, provider, NOW);
      expect(r.status === 'succeeded' && r.decisions[0]).toMatchObject({ action: 'skip', reason: 'UNHEALTHY' });
      expect(r.status === 'succeeded' && r.decisions[0]!.message).toContain('dns Degraded');
    });

    it('a second holder is refused while the lease is held', async () => {
      const { db, provider } = await setup(twoStage);
      await tick(db, provider, NOW);
      const other = await runTick({ db, provider, now: NOW, holder: 'other', realNow: () => NOW });
      expect(other).toMatchObject({ status: 'skipped' });
      const later = await runTick({ db, provider, now: NOW, holder: 'other', realNow: () => new Date(NOW.getTime() + 10 * MIN) });
      expect(later.status).toBe('succeeded');
    });

    it('a provider failure fails the tick without throwing; pending intents are retried next tick', async () => {
      const db = await open();
      const read = fleetRows(db);
      const { fakeClusters } = await insertTestFleet(
        db,
        { clusters: [{ name: 'c1', version: '4.13.1', releases: ['4.13.2'], soakDays: 0 }] },
        NOW,
      );
      let failing = true;
      const provider = createFakeProvider({
        clusters: fakeClusters,
        failWith: (op) => (failing && op === 'schedule' ? new Error('503 from provider') : undefined),
      });
      await tick(db, provider, NOW);
      const r1 = await tick(db, provider, new Date(NOW.getTime() + 7 * MIN)); // the slot
      expect(r1.status).toBe('succeeded');
      expect((await read.intents())[0]).toMatchObject({
        kind: 'start-upgrade',
        status: 'pending',
        attempts: 1,
        error: '503 from provider',
      });
      failing = false;
      await tick(db, provider, new Date(NOW.getTime() + 8 * MIN));
      expect(await read.intents()).toMatchObject([{ status: 'done' }]);
      expect(provider.records().filter((x) => x.op === 'trigger')).toHaveLength(1);

      const broken = createFakeProvider({
        clusters: fakeClusters,
        failWith: (op) => (op === 'list' ? new Error('connection refused') : undefined),
      });
      const r3 = await tick(db, broken, new Date(NOW.getTime() + 9 * MIN));
      expect(r3).toMatchObject({ status: 'failed', error: 'connection refused' });
    });

    it('a cluster the provider cannot read is left as stored; the tick goes on for the others', async () => {
      const db = await open();
      const fleet: TestFleet = {
        clusters: [
          { name: 'c1', version: '4.13.1', releases: ['4.13.2'], soakDays: 0 },
          { name: 'c2', version: '4.13.1', releases: ['4.13.2'], soakDays: 0 },
        ],
      };
      const { fakeClusters } = await insertTestFleet(db, fleet, NOW);
      let unreachable: string | null = 'c1';
      const provider = createFakeProvider({
        clusters: fakeClusters,
        failWith: (op, cluster) => (op === 'read' && cluster === unreachable ? new Error('dial tcp: connection refused') : undefined),
      });
      const logged: string[] = [];
      const r = await runTick({ db, provider, now: NOW, holder: 'test', realNow: () => NOW, log: (m) => logged.push(m) });
      expect(r.status).toBe('succeeded');
      expect(logged).toContain('cluster not read: provider error');
      expect(r.status === 'succeeded' && r.decisions.find((d) => d.cluster === 'c1')).toMatchObject({
        action: 'skip',
        reason: 'PROVIDER_ERROR',
      });
      await tick(db, provider, new Date(NOW.getTime() + 7 * MIN));
      expect(provider.records().map((x) => x.op === 'trigger' && x.cluster)).toEqual(['c2']);
      unreachable = null;
      await tick(db, provider, new Date(NOW.getTime() + 8 * MIN));
      await tick(db, provider, new Date(NOW.getTime() + 15 * MIN));
      expect(
        provider
          .records()
          .map((x) => x.op === 'trigger' && x.cluster)
          .sort(),
      ).toEqual(['c1', 'c2']);
    });
  });

  describe('runTick: discovery', () => {
    it('marks a cluster the provider stops reporting as gone (kept, not planned), not one it could not read, and takes it back when it reappears', async () => {
      const db = await open();
      const read = fleetRows(db);
      const { fakeClusters } = await insertTestFleet(db, twoStage, NOW);
      const reported = [...fakeClusters];
      let unreadable: string | null = null;
      const provider = createFakeProvider({
        clusters: reported,
        failWith: (op, name) => (op === 'read' && name === unreadable ? new Error('503 from the API server') : undefined),
      });
      const stateOf = async (name: string) => (await read.cluster(name)).upgradeState;

      // prod-2 cannot be read: still there, no decision for it this tick
      unreadable = 'prod-2';
      expect((await tick(db, provider, NOW)).status).toBe('succeeded');
      expect(await stateOf('prod-2')).not.toBe('gone');

      // prod-2 is no longer listed: one or two lists without it change nothing (a list can skip a
      // cluster while it shifts); the third in a row makes it gone, kept with its row, left out of the decisions
      unreadable = null;
      reported.splice(
        reported.findIndex((c) => c.name === 'prod-2'),
        1,
      );
      for (const minutes of [10, 20]) {
        expect((await tick(db, provider, new Date(NOW.getTime() + minutes * MIN))).status).toBe('succeeded');
        expect(await stateOf('prod-2')).not.toBe('gone');
      }
      expect(GONE_AFTER_MISSED_SNAPSHOTS).toBe(3);
      const logged: string[] = [];
      const later = new Date(NOW.getTime() + 30 * MIN);
      const r = await runTick({ db, provider, now: later, holder: 'test', realNow: () => later, log: (m) => logged.push(m) });
      expect(r.status).toBe('succeeded');
      if (r.status !== 'succeeded') return;
      expect(await stateOf('prod-2')).toBe('gone');
      expect(r.decisions.map((d) => d.cluster)).not.toContain('prod-2');
      expect(r.decisions.map((d) => d.cluster).sort()).toEqual(['prod-1', 'stage-1']);
      expect(logged).toContain('cluster gone: the provider no longer reports it (kept, left out of planning)');

      // reported again: back, planned again, its count of missed lists reset
      reported.push(fakeClusters.find((c) => c.name === 'prod-2')!);
      const again = new Date(NOW.getTime() + 40 * MIN);
      const back = await tick(db, provider, again);
      expect(back.status).toBe('succeeded');
      if (back.status !== 'succeeded') return;
      expect(await stateOf('prod-2')).not.toBe('gone');
      expect(back.decisions.map((d) => d.cluster)).toContain('prod-2');
      expect((await read.cluster('prod-2')).missedSnapshots).toBe(0);
    });
  });

  describe('runTick: discovery safety', () => {
    it('a snapshot with none of the known clusters (an empty list) marks nothing gone', async () => {
      const db = await open();
      const read = fleetRows(db);
      const { fakeClusters } = await insertTestFleet(db, twoStage, NOW);
      const reported = [...fakeClusters];
      const provider = createFakeProvider({ clusters: reported });
      expect((await tick(db, provider, NOW)).status).toBe('succeeded');
      reported.length = 0;
      const logged: string[] = [];
      const later = new Date(NOW.getTime() + 10 * MIN);
      const r = await runTick({ db, provider, now: later, holder: 'test', realNow: () => later, log: (m) => logged.push(m) });
      expect(r.status).toBe('succeeded');
      expect((await read.clusters()).filter((c) => c.upgradeState === 'gone')).toEqual([]);
      expect(logged).toContain('the provider reported none of the known clusters: none is marked gone for it');
    });
  });

  describe('runTick: short writes', () => {
    it('a tick rewrites only the cluster rows whose observation changed; the snapshot instant is kept once', async () => {
      const { db, provider, read } = await setup(twoStage);
      expect((await tick(db, provider, NOW)).status).toBe('succeeded');
      const observed = async () => Object.fromEntries((await read.clusters()).map((c) => [c.name, c.observedAt.getTime()]));
      const first = await observed();
      // a quiet tick an hour later (the fake provider reports the same state): no row is written
      const later = new Date(NOW.getTime() + 60 * MIN);
      expect((await tick(db, provider, later)).status).toBe('succeeded');
      const second = await observed();
      const changed = Object.keys(second).filter((name) => second[name] !== first[name]);
      // stage-1's upgrade (scheduled at the first tick) may have moved on; prod-2, held by soak, has not
      expect(changed).not.toContain('prod-2');
      expect(second['prod-2']).toBe(NOW.getTime());
      expect((await readSnapshotObservedAt(db))?.getTime()).toBe(later.getTime());
    });
  });

  describe('runTick: discovery and version gates', () => {
    async function discoveryFleet() {
      const db = await open();
      const read = fleetRows(db);
      const { fakeClusters } = await insertTestFleet(db, twoStage, NOW);
      const provider = createFakeProvider({ clusters: fakeClusters });
      const fake = (name: string) => fakeClusters.find((c) => c.name === name)!;
      return { db, provider, fake, row: read.cluster };
    }

    it('stores what the provider discovered, writes a row again only when it changed, and keeps it when not reported', async () => {
      const { db, provider, fake, row } = await discoveryFleet();
      fake('prod-2').discovery = { labels: { team: 'payments', env: 'prod' }, cloud: 'aws', region: 'eu-west-1', nodeCount: 9 };
      expect((await tick(db, provider, NOW)).status).toBe('succeeded');
      expect(await row('prod-2')).toMatchObject({
        labels: { env: 'prod', team: 'payments' },
        cloud: 'aws',
        region: 'eu-west-1',
        nodeCount: 9,
        observedAt: NOW,
      });
      // the same labels in another order, an hour later: no write
      const later = new Date(NOW.getTime() + 60 * MIN);
      fake('prod-2').discovery = { labels: { env: 'prod', team: 'payments' }, cloud: 'aws', region: 'eu-west-1', nodeCount: 9 };
      expect((await tick(db, provider, later)).status).toBe('succeeded');
      expect((await row('prod-2')).observedAt).toEqual(NOW);
      // a node more: written
      const evenLater = new Date(NOW.getTime() + 120 * MIN);
      fake('prod-2').discovery = { labels: { env: 'prod', team: 'payments' }, cloud: 'aws', region: 'eu-west-1', nodeCount: 10 };
      expect((await tick(db, provider, evenLater)).status).toBe('succeeded');
      expect(await row('prod-2')).toMatchObject({ nodeCount: 10, observedAt: evenLater });
      // not reported (the provider could not read the labels this time): everything stays
      delete fake('prod-2').discovery;
      expect((await tick(db, provider, new Date(NOW.getTime() + 180 * MIN))).status).toBe('succeeded');
      expect(await row('prod-2')).toMatchObject({
        labels: { env: 'prod', team: 'payments' },
        cloud: 'aws',
        nodeCount: 10,
        observedAt: evenLater,
      });
    });

    it('holds an upgrade to a minor whose version gate the cluster has not agreed to (VERSION_GATE), and plans it once agreed', async () => {
      const db = await open();
      const read = fleetRows(db);
      const fleet: TestFleet = {
        sectors: [{ name: 'stage' }],
        // only the gated minor is offered: nothing else to take meanwhile (a z-stream would be)
        clusters: [{ name: 'stage-1', version: '4.13.1', releases: ['4.14.1'], soakDays: 0, sector: 'stage' }],
      };
      const { fakeClusters } = await insertTestFleet(db, fleet, NOW);
      const gate = { id: 'gate-414', minor: '4.14', description: 'Kubernetes 1.27 removes APIs', documentationUrl: null };
      fakeClusters[0]!.pendingVersionGates = [gate];
      const provider = createFakeProvider({ clusters: fakeClusters });
      const r = await tick(db, provider, NOW);
      expect(r.status).toBe('succeeded');
      if (r.status !== 'succeeded') return;
      expect(r.decisions[0]).toMatchObject({
        cluster: 'stage-1',
        action: 'skip',
        reason: 'VERSION_GATE',
        message: '4.14.1 needs the version gate for 4.14, not acknowledged for this cluster: Kubernetes 1.27 removes APIs',
      });
      expect((await read.clusters())[0]!.pendingVersionGates).toEqual([gate]);
      expect(await read.attempts()).toEqual([]);

      fakeClusters[0]!.pendingVersionGates = [];
      const later = await tick(db, provider, new Date(NOW.getTime() + 60 * MIN));
      expect(later.status === 'succeeded' && later.decisions[0]).toMatchObject({ action: 'upgrade', version: '4.14.1' });
    });

    it('holds a minor an installed operator does not support, then a removed API in use, and plans it once both are gone', async () => {
      const db = await open();
      const read = fleetRows(db);
      const fleet: TestFleet = {
        sectors: [{ name: 'stage' }],
        clusters: [{ name: 'stage-1', version: '4.15.1', releases: ['4.16.1'], soakDays: 0, sector: 'stage' }],
      };
      const { fakeClusters } = await insertTestFleet(db, fleet, NOW);
      const logging = { name: 'cluster-logging.v5.8.1', namespace: 'openshift-logging', maxOpenShiftVersion: '4.15' };
      const flowschemas = { resource: 'flowschemas.v1beta2.flowcontrol.apiserver.k8s.io', removedInRelease: '1.29', users: ['ci-robot'] };
      fakeClusters[0]!.inhibitors = { operators: [logging], removedApis: [flowschemas] };
      const provider = createFakeProvider({ clusters: fakeClusters });
      const decisionAt = async (minutes: number) => {
        const r = await tick(db, provider, new Date(NOW.getTime() + minutes * MIN));
        expect(r.status).toBe('succeeded');
        return r.status === 'succeeded' ? r.decisions[0] : undefined;
      };
      expect(await decisionAt(0)).toMatchObject({
        action: 'skip',
        reason: 'OPERATOR_INCOMPATIBLE',
        message: '4.16.1 is newer than installed operators support: cluster-logging.v5.8.1 (openshift-logging) supports up to 4.15',
      });
      expect(await read.attempts()).toEqual([]);
      fakeClusters[0]!.inhibitors = { operators: [{ ...logging, maxOpenShiftVersion: '4.16' }], removedApis: [flowschemas] };
      expect(await decisionAt(10)).toMatchObject({ action: 'skip', reason: 'REMOVED_API_IN_USE' });
      fakeClusters[0]!.inhibitors = { operators: [{ ...logging, maxOpenShiftVersion: '4.16' }], removedApis: [] };
      expect(await decisionAt(20)).toMatchObject({ action: 'upgrade', version: '4.16.1' });
    });
  });
});
