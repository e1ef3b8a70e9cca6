// The scheduler's batch writes (a tick's new attempts, its steps that write nothing to the
// provider), on SQLite and on a throw-away PostgreSQL: a batch writes what the one-by-one calls
// write, row for row, and keeps their guards (a slot is tried once, a step from a stale state
// writes nothing, a gone cluster stays gone).
import { asc } from 'drizzle-orm';
import { expect, it } from 'vitest';
import type { Db } from '@/db/open-database';
import type { LifecycleTransition, UpgradeAttempt } from '@/server/domain/lifecycle/machine';
import {
  insertIntent,
  loadClusterStates,
  markMissedAndGone,
  recordUpgradeTransition,
  recordUpgradeTransitions,
  setClusterUpgrade,
  setClusterUpgrades,
  writeSnapshots,
  type SnapshotInsert,
} from '@/server/repositories/decision-repository';
import { tablesOf } from '@/server/repositories/dialect';
import {
  getAttempt,
  insertAttempt,
  insertAttempts,
  saveAttemptStep,
  saveAttemptSteps,
  type AttemptStep,
  type NewAttempt,
  type StoredAttempt,
} from '@/server/repositories/lifecycle-repository';
import { insertEmptyOrganization } from '@/server/repositories/organization-repository';
import { findIntentId, findIntentIds } from '@/server/repositories/scheduler-repository';
import { enqueueDeliveries, enqueueDeliveriesForEvents, insertWebhook } from '@/server/repositories/webhook-repository';
import { onBothDatabases } from '@/tests/support/both-databases';

const AT = new Date('2026-11-27T06:00:00.000Z');
const MIN = 60_000;
const after = (minutes: number) => AT.getTime() + minutes * MIN;
const NAMES = ['a', 'b', 'c', 'd'];

function cluster(name: string): SnapshotInsert {
  return {
    name,
    externalId: `ext-${name}`,
    provider: 'simulator',
    version: '4.16.3',
    channel: 'stable-4.16',
    availableUpgrades: ['4.16.4'],
    healthy: true,
    healthIssues: [],
    currentUpgrade: null,
    upgradeState: 'idle',
    // c is the one cluster a webhook's selector (env=prod) leaves out
    discovery: { labels: { env: name === 'c' ? 'dev' : 'prod' }, cloud: 'aws', region: 'eu-west-1', nodeCount: 3 },
    pendingVersionGates: [],
    inhibitors: null,
  };
}

/** An organization with clusters a–d, stored as a first snapshot stores them. */
async function fleet(db: Db): Promise<{ organizationId: number; ids: Map<string, number> }> {
  const { id: organizationId } = await insertEmptyOrganization(db, 'batches', new Date(AT));
  await writeSnapshots(db, organizationId, [], NAMES.map(cluster), new Date(AT));
  const states = await loadClusterStates(db, organizationId);
  return { organizationId, ids: new Map(states.map((s) => [s.name, s.id])) };
}

function newAttempt(ids: Map<string, number>, name: string, over: Partial<NewAttempt> = {}): NewAttempt {
  return {
    clusterId: ids.get(name)!,
    clusterName: name,
    sector: 'prod',
    fromVersion: '4.16.3',
    toVersion: '4.16.4',
    slot: after(60),
    haltsOnFailure: true,
    at: AT.getTime(),
    actor: 'scheduler:test',
    tickId: 3,
    message: `scheduled ${name}`,
    ...over,
  };
}

/** The attempts and their transitions as stored, with each row's attempt named by cluster and slot rather than by id. */
async function storedAttempts(db: Db) {
  const { upgradeLifecycles, upgradeLifecycleTransitions } = tablesOf(db);
  const attempts = await db.select().from(upgradeLifecycles).orderBy(asc(upgradeLifecycles.id));
  const nameOf = new Map(attempts.map((a) => [a.id, `${a.clusterName}@${a.slot.getTime()}`]));
  const transitions = await db.select().from(upgradeLifecycleTransitions).orderBy(asc(upgradeLifecycleTransitions.id));
  return {
    attempts: attempts.map(({ id: _id, ...rest }) => rest),
    transitions: transitions.map(({ id: _id, lifecycleId, ...rest }) => ({ attempt: nameOf.get(lifecycleId), ...rest })),
  };
}

onBothDatabases('the scheduler batch writes', (open) => {
  it('inserts a batch of attempts but for a slot tried already (before, or earlier in the batch): as one by one', async () => {
    const [batchDb, singleDb] = [await open(), await open()];
    const batch = await fleet(batchDb);
    const single = await fleet(singleDb);
    const eus = { route: ['4.16.4', '4.18.2'], hops: [], pausedByUs: null } as unknown as NewAttempt['eusProcedure'];
    const wanted = (ids: Map<string, number>) => [
      newAttempt(ids, 'a'),
      newAttempt(ids, 'b', { channel: 'eus-4.16' }),
      newAttempt(ids, 'c', { toVersion: '4.18.2', eusProcedure: eus, haltsOnFailure: false, sector: null }),
      newAttempt(ids, 'b', { channel: 'eus-4.16', message: 'the same slot again' }),
      newAttempt(ids, 'd', { slot: after(120) }),
    ];
    // a's slot was tried already (by an earlier tick)
    for (const db of [batchDb, singleDb]) await insertAttempt(db, newAttempt(db === batchDb ? batch.ids : single.ids, 'a'));

    const created = await insertAttempts(batchDb, wanted(batch.ids));
    const createdOneByOne: (StoredAttempt | null)[] = [];
    for (const v of wanted(single.ids)) createdOneByOne.push(await insertAttempt(singleDb, v));

    expect(created.map((a) => a?.cluster ?? null)).toEqual([null, 'b', 'c', null, 'd']);
    expect(createdOneByOne.map((a) => a?.cluster ?? null)).toEqual([null, 'b', 'c', null, 'd']);
    // what the tick goes on with is the stored attempt, as getAttempt reads it
    for (const attempt of created.filter((a) => a !== null)) expect(attempt).toEqual(await getAttempt(batchDb, attempt.id));
    expect(created[2]).toMatchObject({ toVersion: '4.18.2', eusProcedure: eus, haltsOnFailure: false, sector: null, state: 'scheduled' });
    const withoutIds = (list: (StoredAttempt | null)[]) => list.map((a) => (a ? { ...a, id: 0, clusterId: 0 } : null));
    expect(withoutIds(created)).toEqual(withoutIds(createdOneByOne));
    expect(await storedAttempts(batchDb)).toEqual(await storedAttempts(singleDb));
    expect((await storedAttempts(batchDb)).transitions.map((t) => [t.attempt, t.toState, t.message, t.tickId])).toEqual([
      [`a@${after(60)}`, 'scheduled', 'scheduled a', 3],
      [`b@${after(60)}`, 'scheduled', 'scheduled b', 3],
      [`c@${after(60)}`, 'scheduled', 'scheduled c', 3],
      [`d@${after(120)}`, 'scheduled', 'scheduled d', 3],
    ]);
    expect(await insertAttempts(batchDb, [])).toEqual([]);
  });

  it('saves a batch of steps, each guarded by the state it started from: as one by one', async () => {
    const [batchDb, singleDb] = [await open(), await open()];
    const setUp = async (db: Db) => {
      const { ids } = await fleet(db);
      const attempts = (
        await insertAttempts(
          db,
          NAMES.map((n) => newAttempt(ids, n)),
        )
      ).map((a) => a!);
      // d moved on meanwhile (another process): a step from `scheduled` is stale
      await saveAttemptStep(db, 'scheduled', { ...attempts[3]!, state: 'cancelled', finishedAt: after(1) }, [], {
        at: after(1),
        actor: 'elsewhere',
        tickId: null,
      });
      return attempts;
    };
    const stepsOf = (attempts: StoredAttempt[]): AttemptStep[] => {
      const [a, b, c, d] = attempts as [StoredAttempt, StoredAttempt, StoredAttempt, StoredAttempt];
      const move = (from: UpgradeAttempt['state'], to: UpgradeAttempt['state'], message: string, at: number): LifecycleTransition => ({
        from,
        to,
        reason: null,
        message,
        at,
      });
      return [
        // the first notice: nothing but noticeAt changes, no transition
        { fromState: 'scheduled', attempt: { ...a, noticeAt: after(2) }, transitions: [] },
        {
          fromState: 'scheduled',
          attempt: {
            ...b,
            state: 'skipped',
            reason: 'UNHEALTHY',
            message: 'degraded',
            noticeAt: after(2),
            finishedAt: after(2),
            operatorApprovals: {
              plans: [],
              approved: [],
              startedAt: after(2),
              doneAt: null,
            } as unknown as UpgradeAttempt['operatorApprovals'],
          },
          transitions: [move('scheduled', 'pre-checks', 'start-time gates', after(2)), move('pre-checks', 'skipped', 'degraded', after(2))],
        },
        {
          fromState: 'scheduled',
          attempt: { ...c, state: 'pre-checks', message: 'start-time gates' },
          transitions: [move('scheduled', 'pre-checks', 'start-time gates', after(2))],
        },
        {
          fromState: 'scheduled',
          attempt: { ...d, state: 'pre-checks' },
          transitions: [move('scheduled', 'pre-checks', 'late', after(2))],
        },
      ];
    };
    const meta = { at: after(2), actor: 'scheduler:test', tickId: 4 };
    const batchSteps = stepsOf(await setUp(batchDb));
    const singleSteps = stepsOf(await setUp(singleDb));

    expect(await saveAttemptSteps(batchDb, batchSteps, meta)).toEqual([true, true, true, false]);
    const oneByOne: boolean[] = [];
    for (const s of singleSteps) oneByOne.push(await saveAttemptStep(singleDb, s.fromState, s.attempt, s.transitions, meta));
    expect(oneByOne).toEqual([true, true, true, false]);

    expect(await storedAttempts(batchDb)).toEqual(await storedAttempts(singleDb));
    const stored = await storedAttempts(batchDb);
    expect(stored.attempts.map((a) => [a.clusterName, a.state, a.noticeAt?.getTime() ?? null])).toEqual([
      ['a', 'scheduled', after(2)],
      ['b', 'skipped', after(2)],
      ['c', 'pre-checks', null],
      ['d', 'cancelled', null],
    ]);
    // the stale step wrote no transition
    expect(stored.transitions.filter((t) => t.attempt?.startsWith('d@')).map((t) => t.toState)).toEqual(['scheduled']);
    // the same steps again: none starts from the stored state any more but a's
    expect(await saveAttemptSteps(batchDb, batchSteps, meta)).toEqual([true, false, false, false]);
    expect(await saveAttemptSteps(batchDb, [], meta)).toEqual([]);
  });

  it("sets many clusters' upgrades and records their history rows: as one by one, a gone cluster staying gone", async () => {
    const [batchDb, singleDb] = [await open(), await open()];
    const setUp = async (db: Db) => {
      const { organizationId, ids } = await fleet(db);
      await markMissedAndGone(db, [], [ids.get('d')!]);
      // b has an open (scheduled) history row for 4.16.4: its start moves it forward
      await recordUpgradeTransition(db, {
        clusterId: ids.get('b')!,
        fromVersion: '4.16.3',
        toVersion: '4.16.4',
        state: 'scheduled',
        at: after(0),
        scheduledFor: after(30),
      });
      return { organizationId, ids };
    };
    const upgradesOf = () =>
      NAMES.map((name) => ({
        name,
        upgrade: { version: '4.16.4', nextRun: '2026-11-27T07:00:00Z', state: 'scheduled' as const },
        upgradeState: 'scheduled',
      }));
    const historyOf = (ids: Map<string, number>) => [
      {
        clusterId: ids.get('a')!,
        fromVersion: '4.16.3',
        toVersion: '4.16.4',
        state: 'scheduled' as const,
        at: after(5),
        scheduledFor: after(60),
      },
      { clusterId: ids.get('b')!, fromVersion: '4.16.3', toVersion: '4.16.4', state: 'started' as const, at: after(5), message: 'begun' },
      { clusterId: ids.get('c')!, fromVersion: '4.16.3', toVersion: '4.16.4', state: 'failed' as const, at: after(5), message: 'refused' },
    ];
    const batch = await setUp(batchDb);
    const single = await setUp(singleDb);

    await setClusterUpgrades(batchDb, batch.organizationId, upgradesOf());
    await recordUpgradeTransitions(batchDb, historyOf(batch.ids));
    for (const u of upgradesOf()) await setClusterUpgrade(singleDb, single.organizationId, u.name, u.upgrade, u.upgradeState);
    for (const h of historyOf(single.ids)) await recordUpgradeTransition(singleDb, h);

    const clusterRows = async (db: Db, organizationId: number) =>
      (await loadClusterStates(db, organizationId)).map((s) => [s.name, s.upgradeState, s.currentUpgrade]);
    expect(await clusterRows(batchDb, batch.organizationId)).toEqual(await clusterRows(singleDb, single.organizationId));
    expect((await clusterRows(batchDb, batch.organizationId)).map(([name, state]) => [name, state])).toEqual([
      ['a', 'scheduled'],
      ['b', 'scheduled'],
      ['c', 'scheduled'],
      ['d', 'gone'],
    ]);
    const history = async (db: Db) => {
      const { clusterUpgrades } = tablesOf(db);
      return (await db.select().from(clusterUpgrades).orderBy(asc(clusterUpgrades.id))).map(({ id: _id, clusterId: _c, ...rest }) => rest);
    };
    expect(await history(batchDb)).toEqual(await history(singleDb));
    expect(
      (await history(batchDb)).map((h) => [h.state, h.scheduledFor?.getTime() ?? null, h.startedAt?.getTime() ?? null, h.message]),
    ).toEqual([
      ['started', after(30), after(5), 'begun'],
      ['scheduled', after(60), null, null],
      ['failed', null, after(5), 'refused'],
    ]);
  });

  it('records history rows naming one cluster and version twice one after the other, as one by one', async () => {
    const [batchDb, singleDb] = [await open(), await open()];
    const rowsOf = (ids: Map<string, number>) => [
      {
        clusterId: ids.get('a')!,
        fromVersion: '4.16.3',
        toVersion: '4.16.4',
        state: 'scheduled' as const,
        at: after(1),
        scheduledFor: after(30),
      },
      { clusterId: ids.get('a')!, fromVersion: '4.16.3', toVersion: '4.16.4', state: 'started' as const, at: after(30) },
      { clusterId: ids.get('a')!, fromVersion: '4.16.3', toVersion: '4.16.4', state: 'completed' as const, at: after(90), message: 'done' },
    ];
    await recordUpgradeTransitions(batchDb, rowsOf((await fleet(batchDb)).ids));
    const { ids } = await fleet(singleDb);
    for (const r of rowsOf(ids)) await recordUpgradeTransition(singleDb, r);
    const history = async (db: Db) => {
      const { clusterUpgrades } = tablesOf(db);
      return (await db.select().from(clusterUpgrades).orderBy(asc(clusterUpgrades.id))).map(({ id: _id, clusterId: _c, ...rest }) => rest);
    };
    expect(await history(batchDb)).toEqual(await history(singleDb));
    expect((await history(batchDb)).map((h) => h.state)).toEqual(['completed']);
  });

  it("queues a batch of events' webhook deliveries as one call per event would, selectors and event lists applied", async () => {
    const [batchDb, singleDb] = [await open(), await open()];
    const setUp = async (db: Db) => {
      const { organizationId } = await fleet(db);
      const hook = { secret: 's', enabled: true, createdAt: new Date(AT), organizationId };
      await insertWebhook(db, { ...hook, name: 'all', url: 'https://all.example/hook', events: [] });
      await insertWebhook(db, {
        ...hook,
        name: 'prod starts',
        url: 'https://prod.example/hook',
        events: ['scheduled'],
        selector: 'env=prod',
      });
      await insertWebhook(db, { ...hook, name: 'failures', url: 'https://fail.example/hook', events: ['failed'] });
      await insertWebhook(db, { ...hook, name: 'off', url: 'https://off.example/hook', events: [], enabled: false });
      return organizationId;
    };
    const events = NAMES.map((name, i) => ({
      event: 'scheduled' as const,
      payload: { cluster: name, version: '4.16.4', n: i },
      cluster: name,
    }));
    const at = new Date(after(3));
    const batchOrg = await setUp(batchDb);
    const singleOrg = await setUp(singleDb);

    const queued = await enqueueDeliveriesForEvents(batchDb, events, at, batchOrg);
    let queuedOneByOne = 0;
    for (const e of events) queuedOneByOne += await enqueueDeliveries(singleDb, e.event, e.payload, at, singleOrg, e.cluster);

    // every event to 'all', and to 'prod starts' for a, b and d (c is dev)
    expect(queued).toBe(7);
    expect(queuedOneByOne).toBe(7);
    const deliveries = async (db: Db) => {
      const { webhookDeliveries, webhooks } = tablesOf(db);
      const names = new Map((await db.select().from(webhooks)).map((w) => [w.id, w.name]));
      return (await db.select().from(webhookDeliveries).orderBy(asc(webhookDeliveries.id))).map(({ id: _id, webhookId, ...rest }) => ({
        webhook: names.get(webhookId),
        ...rest,
      }));
    };
    expect(await deliveries(batchDb)).toEqual(await deliveries(singleDb));
    expect((await deliveries(batchDb)).map((d) => [d.webhook, (d.payload as { cluster: string }).cluster])).toEqual([
      ['all', 'a'],
      ['prod starts', 'a'],
      ['all', 'b'],
      ['prod starts', 'b'],
      ['all', 'c'],
      ['all', 'd'],
      ['prod starts', 'd'],
    ]);
    expect(await enqueueDeliveriesForEvents(batchDb, [], at, batchOrg)).toBe(0);
  });

  it('reads many intents by key at once: what findIntentId finds for each, nothing for a key without one', async () => {
    const db = await open();
    const { organizationId } = await fleet(db);
    const keys = ['1:start', '2:start', '2:channel', "3:start'; --"];
    for (const key of keys.slice(1))
      await insertIntent(db, {
        key,
        tickId: 1,
        kind: 'start-upgrade',
        organizationId,
        clusterName: 'a',
        version: '4.16.4',
        nextRun: null,
        createdAt: new Date(AT),
      });
    const found = await findIntentIds(db, [...keys, 'unknown']);
    const oneByOne = new Map<string, number>();
    for (const key of [...keys, 'unknown']) {
      const id = await findIntentId(db, key);
      if (id !== null) oneByOne.set(key, id);
    }
    expect([...found.keys()].sort()).toEqual(keys.slice(1).sort());
    expect(found).toEqual(oneByOne);
    expect(await findIntentIds(db, [])).toEqual(new Map());
  });
});
