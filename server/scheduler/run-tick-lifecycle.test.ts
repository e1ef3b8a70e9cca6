// The tick around the lifecycle, against the fake provider: start-time gates on fresh data,
// lateness, events once per transition, dry runs that write nothing.
import { expect, it } from 'vitest';
import type { Db } from '@/db/open-database';
import { createFakeProvider } from '@/server/integrations/providers/fake-provider';
import type { FleetProvider } from '@/server/integrations/providers/types';
import { onBothDatabases } from '@/tests/support/both-databases';
import { runTick } from './run-tick';
import { fleetRows, insertTestFleet, type TestFleet } from './test-fleet';

const NOW = new Date('2021-08-30T18:00:00Z'); // decisions at NOW take the slot 18:07
const MIN = 60_000;
const fleet: TestFleet = { clusters: [{ name: 'c1', version: '4.13.1', releases: ['4.13.2'], soakDays: 0 }] };

onBothDatabases('runTick lifecycle', (open) => {
  async function setup(providerOptions: { startLeadMs?: number; minStartNoticeMs?: number } = {}) {
    const db = await open();
    const read = fleetRows(db);
    const { fakeClusters, organizationId } = await insertTestFleet(db, fleet, NOW);
    const provider = createFakeProvider({ clusters: fakeClusters, ...providerOptions });
    // a webhook belongs to an organization and receives its events
    await db
      .insert(read.t.webhooks)
      .values({ name: 'all', url: 'http://127.0.0.1:9/hook', secret: 's', events: [], createdAt: NOW, organizationId });
    const tick = (minutes: number, dryRun = false) =>
      runTick({ db, provider, now: new Date(NOW.getTime() + minutes * MIN), dryRun, holder: 'test', realNow: () => NOW });
    const events = async () => (await read.webhookDeliveries()).map((d) => d.event);
    return { db, read, provider, fakeClusters, tick, events };
  }

  it('a cluster that turned unhealthy after its upgrade was scheduled is skipped at the start, on fresh data', async () => {
    const { read, provider, fakeClusters, tick } = await setup();
    await tick(0);
    fakeClusters[0]!.healthIssues = ['ClusterOperator machine-config Degraded'];
    await tick(7);
    expect(provider.records()).toEqual([]);
    expect(await read.attempt()).toMatchObject({ state: 'skipped', reason: 'UNHEALTHY' });
    expect((await read.clusters())[0]!.currentUpgrade).toBeNull();
  });

  it('a cap set after the upgrade was planned cancels it before the start, as a blocked version does', async () => {
    const { db, read, provider, tick } = await setup();
    await tick(0);
    await db.update(read.t.organizations).set({ maxVersion: '4.13.1' });
    await tick(7);
    expect(provider.records()).toEqual([]);
    expect(await read.attempt()).toMatchObject({ state: 'cancelled', reason: 'VERSION_BLOCKED' });
  });

  it('an approval revoked after the upgrade was planned stops it before the start (AWAITING_APPROVAL); approved, it is scheduled', async () => {
    const db = await open();
    const read = fleetRows(db);
    const gated: TestFleet = { sectors: [{ name: 'prod' }], clusters: [{ ...fleet.clusters[0]!, sector: 'prod' }] };
    const { fakeClusters, organizationId } = await insertTestFleet(db, gated, NOW);
    const provider = createFakeProvider({ clusters: fakeClusters });
    const tick = (minutes: number) =>
      runTick({ db, provider, now: new Date(NOW.getTime() + minutes * MIN), holder: 'test', realNow: () => NOW });
    await db.update(read.t.sectors).set({ approvalBefore: true });
    await tick(0);
    expect((await read.clusters())[0]).toMatchObject({ lastDecisionReason: 'AWAITING_APPROVAL', currentUpgrade: null });
    await db
      .insert(read.t.approvals)
      .values({ organizationId, sector: 'prod', version: '4.13.2', kind: 'before', approvedBy: 'alice', approvedAt: NOW });
    await tick(1);
    expect(await read.attempt()).toMatchObject({ state: 'scheduled', toVersion: '4.13.2' });
    await db.update(read.t.approvals).set({ revokedAt: NOW, revokedBy: 'bob' });
    await tick(8);
    expect(provider.records()).toEqual([]);
    expect(await read.attempt()).toMatchObject({ state: 'cancelled', reason: 'AWAITING_APPROVAL' });
  });

  it('a notBefore set after the upgrade was planned stops it before the start (NOT_BEFORE)', async () => {
    const db = await open();
    const read = fleetRows(db);
    const gated: TestFleet = { sectors: [{ name: 'prod' }], clusters: [{ ...fleet.clusters[0]!, sector: 'prod' }] };
    const { fakeClusters } = await insertTestFleet(db, gated, NOW);
    const provider = createFakeProvider({ clusters: fakeClusters });
    const tick = (minutes: number) =>
      runTick({ db, provider, now: new Date(NOW.getTime() + minutes * MIN), holder: 'test', realNow: () => NOW });
    await tick(0);
    await db.update(read.t.sectors).set({ notBefore: '2021-08-31T00:00:00Z' });
    await tick(7);
    expect(provider.records()).toEqual([]);
    expect(await read.attempt()).toMatchObject({ state: 'cancelled', reason: 'NOT_BEFORE' });
  });

  it('after the scheduler was down past slot + maxUpgradeStartDelay, nothing starts (START_LATE)', async () => {
    const { read, provider, tick } = await setup();
    await tick(0);
    await tick(7 + 61); // the slot plus 1 h 1 min
    expect(provider.records()).toEqual([]);
    expect(await read.attempt()).toMatchObject({ state: 'skipped', reason: 'START_LATE' });
  });

  it('each transition is announced once, however many ticks observe the same state', async () => {
    const { tick, events } = await setup();
    for (const m of [0, 1, 2, 7, 8, 9, 40, 41, 42]) await tick(m);
    expect(await events()).toEqual(['scheduled', 'started', 'upgrading', 'completed']);
  });

  it('an upgrade the provider finished before any tick saw it running completes (the scheduler was down meanwhile)', async () => {
    // Found by e2e/crash-restart.spec.ts against the fake OCM: a policy completed and removed
    // between two ticks. The tick put its own view of the attempt ("scheduled" at the provider)
    // into the snapshot the lifecycle reads as the provider's, so the attempt waited for a start
    // the provider had long finished, until its timeout: a failure that halts the version.
    const { db, read, provider, events } = await setup();
    // OCM removes a completed manual policy: no current and no last upgrade, only the new version
    const ocmLike: FleetProvider = {
      ...provider,
      observe: async (now) => {
        const fleet = await provider.observe(now);
        return { ...fleet, clusters: fleet.clusters.map((c) => ({ ...c, lastUpgrade: null })) };
      },
      observeCluster: async (ref, now) => ({ ...(await provider.observeCluster(ref, now)), lastUpgrade: null }),
    };
    const tick = (minutes: number) =>
      runTick({ db, provider: ocmLike, now: new Date(NOW.getTime() + minutes * MIN), holder: 'test', realNow: () => NOW });
    await tick(0);
    await tick(7); // started at the slot
    await tick(7 + 31); // the fake's upgrade takes 30 min: done, and never seen running
    expect(await read.attempt()).toMatchObject({ state: 'completed', toVersion: '4.13.2' });
    expect((await read.clusters())[0]).toMatchObject({ version: '4.13.2', currentUpgrade: null });
    expect(await events()).toEqual(['scheduled', 'started', 'completed']);
  });

  it('a dry run writes nothing: no attempt, no provider call, no snapshot, no event', async () => {
    const { read, provider, tick, events } = await setup();
    await tick(0, true);
    await tick(7, true);
    expect(provider.records()).toEqual([]);
    expect(await read.attempts()).toEqual([]);
    expect(await events()).toEqual([]);
  });

  it('un-managing a cluster with a scheduled upgrade cancels it (UNMANAGED) and nothing starts', async () => {
    const { db, read, provider, tick } = await setup();
    await tick(0);
    await db.update(read.t.clusters).set({ upgradePolicy: null });
    await tick(1);
    await tick(7);
    expect(provider.records()).toEqual([]);
    expect(await read.attempt()).toMatchObject({ state: 'cancelled', reason: 'UNMANAGED' });
  });

  it('a configured pre-upgrade hook is asked once when the start is due, and the start waits for its verdict', async () => {
    const { db, read, provider } = await setup();
    const calls = new Map<string, 'pending' | 'allowed'>();
    const requested: string[] = [];
    const hooks = {
      requestHook: (_db: unknown, req: { lifecycleId: number; stage: string }) => {
        requested.push(req.stage);
        if (req.stage === 'pre-upgrade' && !calls.has(`${req.lifecycleId}:pre-upgrade`))
          calls.set(`${req.lifecycleId}:pre-upgrade`, 'pending');
      },
      hookVerdict: (_db: unknown, id: number, stage: string) => {
        const v = calls.get(`${id}:${stage}`);
        return Promise.resolve(v ? { state: v } : { state: 'none' as const });
      },
    };
    const tickAt = (m: number) =>
      runTick({ db, provider, now: new Date(NOW.getTime() + m * MIN), holder: 'test', realNow: () => NOW, ...hooks });
    await tickAt(0);
    await tickAt(7);
    await tickAt(8);
    expect(provider.records()).toEqual([]);
    expect(await read.attempt()).toMatchObject({ state: 'pre-hook' });
    calls.set(`${(await read.attempt())!.id}:pre-upgrade`, 'allowed');
    await tickAt(9);
    expect(provider.records().map((r) => r.op)).toEqual(['trigger']);
    expect(requested).toEqual(['pre-upgrade']);
  });

  /** ticks with a pre-upgrade hook whose verdict the test gives (a hook that answers late) */
  function withHook(db: Db, provider: ReturnType<typeof createFakeProvider>) {
    let verdict: 'pending' | 'allowed' = 'pending';
    const hooks = {
      requestHook: () => undefined,
      hookVerdict: () => Promise.resolve({ state: verdict }),
    };
    return {
      allow: () => (verdict = 'allowed'),
      tickAt: (m: number) =>
        runTick({ db, provider, now: new Date(NOW.getTime() + m * MIN), holder: 'test', realNow: () => NOW, ...hooks }),
    };
  }

  it('a start with less notice left than the provider takes is moved to now + that notice, not sent to be refused', async () => {
    // like OCM: told 10 min before the 18:07 slot, refuses a start less than 5 min ahead; the
    // pre-upgrade hook answers only at 18:05
    const { db, read, provider } = await setup({ startLeadMs: 10 * MIN, minStartNoticeMs: 5 * MIN });
    const hook = withHook(db, provider);
    await hook.tickAt(0);
    expect(await read.attempt()).toMatchObject({ state: 'pre-hook' });
    hook.allow();
    await hook.tickAt(5);
    expect(provider.records()).toEqual([
      expect.objectContaining({ op: 'trigger', version: '4.13.2', nextRun: '2021-08-30T18:10:00.000Z' }),
    ]);
    expect(provider.calls.filter((c) => c.op === 'schedule')).toHaveLength(1);
    const attempt = (await read.attempt())!;
    expect(attempt.state).toBe('started');
    expect(attempt.message).toContain('at 2021-08-30T18:10:00.000Z, 3m after the slot: the provider needs 5m notice');
  });

  it('a start that could only be moved past slot + maxUpgradeStartDelay is skipped START_LATE, never sent', async () => {
    const { db, read, provider } = await setup({ startLeadMs: 10 * MIN, minStartNoticeMs: 5 * MIN });
    const hook = withHook(db, provider);
    await hook.tickAt(0);
    hook.allow();
    await hook.tickAt(7 + 57); // 57 min after the slot: with 5 min notice, past the hour
    expect(provider.calls.filter((c) => c.op === 'schedule')).toEqual([]);
    expect(await read.attempt()).toMatchObject({ state: 'skipped', reason: 'START_LATE' });
  });

  it('excluding a cluster whose start the provider already holds cancels it there (EXCLUDED)', async () => {
    const { db, read, provider, tick } = await setup({ startLeadMs: 10 * MIN });
    await tick(0); // scheduled for 18:07 and told at once (the slot minus the lead has passed)
    expect(provider.records().map((r) => r.op)).toEqual(['trigger']);
    const org = (await read.organizations())[0]!;
    await db.insert(read.t.maintenanceExclusions).values({
      organizationId: org.id,
      scope: 'cluster',
      subject: 'c1',
      startsAt: new Date(NOW.getTime() - 60 * MIN),
      endsAt: new Date(NOW.getTime() + 600 * MIN),
      reason: 'payments freeze',
      createdBy: 'alice',
      createdAt: NOW,
    });
    await tick(1);
    expect(provider.records().map((r) => r.op)).toEqual(['trigger', 'cancel']);
    expect(await read.attempt()).toMatchObject({ state: 'cancelled', reason: 'EXCLUDED' });
    expect((await read.attempt())!.message).toContain('payments freeze');
    await tick(7);
    await tick(40);
    expect((await read.clusters())[0]).toMatchObject({ version: '4.13.1' });
  });

  it('a tick that lost the lease mid-way starts nothing more: each attempt is fenced by the lease', async () => {
    const db = await open();
    const read = fleetRows(db);
    const two: TestFleet = {
      clusters: [
        { name: 'c1', version: '4.13.1', releases: ['4.13.2'], soakDays: 0 },
        { name: 'c2', version: '4.13.1', releases: ['4.13.2'], soakDays: 0 },
      ],
    };
    const { fakeClusters } = await insertTestFleet(db, two, NOW);
    const fake = createFakeProvider({ clusters: fakeClusters });
    // another process takes the lease over right after the first start (this one stalled past its TTL)
    const provider: FleetProvider = {
      ...fake,
      startUpgrade: async (req, now) => {
        await fake.startUpgrade(req, now);
        await db.update(read.t.schedulerLeases).set({ holder: 'other-process', expiresAt: new Date(NOW.getTime() + 3_600_000) });
      },
    };
    const tick = (m: number) => runTick({ db, provider, now: new Date(NOW.getTime() + m * MIN), holder: 'test', realNow: () => NOW });
    await tick(0);
    const result = await tick(7);
    expect(result).toMatchObject({ status: 'failed' });
    expect(JSON.stringify(result)).toContain('lost the scheduler lease');
    expect(fake.calls.filter((c) => c.op === 'schedule')).toHaveLength(1);
  });
});
