// The scheduler's repositories (ticks, intents, decisions, snapshots, lifecycles, hooks, metrics,
// graphs, webhooks) and the policy, audit, token, approval and exclusion ones, run on SQLite and on
// a throw-away PostgreSQL: the same calls give the same answers, and what must happen once (an
// intent per key, a claim per delivery, a policy edit per revision) happens once on either.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { asc, eq } from 'drizzle-orm';
import type { Pool } from 'pg';
import { expect, it } from 'vitest';
import { openDatabase, type Db } from '@/db/open-database';
import { openPostgres } from '@/db/open-postgres';
import { asFleetplanDb } from '@/db/postgres-handle';
import type { DecisionRecord } from '@/server/domain/scheduling/tick-decisions';
import { findApproval, listApprovals, revokeApproval, saveApproval } from '@/server/repositories/approval-repository';
import { appendAudit, countAudit, listAudit } from '@/server/repositories/audit-repository';
import { listAudit as listActivityAudit } from '@/server/repositories/activity-repository';
import { listRecentActions, listRecentDecisions } from '@/server/repositories/cluster-event-repository';
import {
  countDecisionsByReason,
  insertDecisions,
  insertIntent,
  listDecisions,
  listIntents,
  loadClusterStates,
  markMissedAndGone,
  readSnapshotObservedAt,
  recordUpgradeTransition,
  setClusterUpgrade,
  updateLastDecisions,
  writeSnapshots,
  type SnapshotInsert,
} from '@/server/repositories/decision-repository';
import { tablesOf } from '@/server/repositories/dialect';
import { withTransaction } from '@/server/repositories/transaction';
import { deleteExclusion, findExclusionById, insertExclusion, listExclusions } from '@/server/repositories/exclusion-repository';
import {
  claimNextHookCall,
  countPendingHookCalls,
  finishClaimedHookCall,
  hasDueHookCall,
  hasHookCalls,
  insertHook,
  insertHookCalls,
  lastAnsweredCalls,
  listApplicableHooks,
  listHookCallsFor,
} from '@/server/repositories/hook-repository';
import {
  acknowledgeAttemptFailure,
  insertAttempt,
  listActiveAttempts,
  listAttemptTransitions,
  listTransitionsPage,
  listUnacknowledgedFailures,
  listUpgradeResults,
  saveAttemptStep,
  type NewAttempt,
} from '@/server/repositories/lifecycle-repository';
import {
  addToCounters,
  countFailedAttempts,
  lastTickStartByStatus,
  listClusterMetricRows,
  listCounters,
  listLatestAttempts,
} from '@/server/repositories/metrics-repository';
import { insertEmptyOrganization } from '@/server/repositories/organization-repository';
import {
  findClusterPolicy,
  insertPolicyRevision,
  listClusterPolicies,
  listPolicyRevisions,
  setClusterPolicy,
  updateOrganizationRow,
} from '@/server/repositories/policy-repository';
import {
  countTicks,
  failInterruptedTicks,
  finishTick,
  findIntentId,
  findPendingIntentId,
  findSimulatedCluster,
  getIntents,
  insertTick,
  latestFinishedTick,
  listPendingIntents,
  listRecentTicks,
  listSimulatedClusters,
  markIntentAttemptFailed,
  markIntentDone,
  pruneOldTicks,
  setSimulatedChannel,
  setSimulatedUpgrade,
} from '@/server/repositories/scheduler-repository';
import { findActiveTokenByHash, findTokenById, insertToken, listTokens, revokeTokensOfUser } from '@/server/repositories/token-repository';
import { deleteGraph, findGraphById, getGraphDocuments, listGraphs, upsertGraph } from '@/server/repositories/update-graph-repository';
import {
  deleteInstanceBlockedVersion,
  findInstanceBlockedVersion,
  insertInstanceBlockedVersion,
  listInstanceBlockedPatterns,
} from '@/server/repositories/instance-blocked-version-repository';
import { createOcmRefusalRepository } from '@/server/repositories/ocm-refusal-repository';
import { countClustersByVersion } from '@/server/repositories/version-repository';
import { insertUser } from '@/server/repositories/user-repository';
import {
  claimNextDelivery,
  enqueueDeliveries,
  finishClaimedDelivery,
  hasDueDelivery,
  insertWebhook,
  listDeliveries,
} from '@/server/repositories/webhook-repository';
import { onBothDatabases, type DatabaseKind } from '@/tests/support/both-databases';

const AT = new Date('2026-11-27T06:00:00.000Z');
const MIN = 60_000;
const after = (minutes: number) => new Date(AT.getTime() + minutes * MIN);

function cluster(name: string, over: Partial<SnapshotInsert> = {}): SnapshotInsert {
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
    discovery: { labels: { zone: 'b', env: 'prod' }, cloud: 'aws', region: 'eu-west-1', nodeCount: 6 },
    pendingVersionGates: [],
    inhibitors: null,
    ...over,
  };
}

/** An organization with clusters `names`, stored as a first snapshot stores them. */
async function fleet(db: Db, names: string[]): Promise<{ organizationId: number; ids: Map<string, number> }> {
  const { id: organizationId } = await insertEmptyOrganization(db, `org-${names.length}`, AT);
  await writeSnapshots(
    db,
    organizationId,
    [],
    names.map((n) => cluster(n)),
    AT,
  );
  const states = await loadClusterStates(db, organizationId);
  return { organizationId, ids: new Map(states.map((s) => [s.name, s.id])) };
}

/**
 * A second handle on the same database as `db` (another process's pool, or connection): what two
 * replicas racing each other would hold.
 */
async function twoHandles(kind: DatabaseKind, open: () => Promise<Db>): Promise<[Db, Db, () => Promise<void>]> {
  if (kind === 'postgres') {
    const db = await open();
    const url = (db.$client as unknown as Pool).options.connectionString!;
    const other = openPostgres(url);
    return [db, asFleetplanDb(other), () => other.$client.end()];
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fleetplan-two-handles-'));
  const file = path.join(dir, 'fleetplan.db');
  const a = openDatabase(file);
  const b = openDatabase(file);
  return [
    a,
    b,
    () => {
      a.$client.close();
      b.$client.close();
      fs.rmSync(dir, { recursive: true, force: true });
      return Promise.resolve();
    },
  ];
}

onBothDatabases('the scheduler repositories', (open, kind) => {
  it('records ticks: started, finished, interrupted ones failed, the latest finished, old unreferenced ones pruned', async () => {
    const db = await open();
    const first = await insertTick(db, { startedAt: AT, dryRun: false, holder: 'a' });
    await finishTick(db, first, { finishedAt: after(1), status: 'succeeded', summary: { decisions: 3 } });
    const second = await insertTick(db, { startedAt: after(2), dryRun: true, holder: 'a' });
    const third = await insertTick(db, { startedAt: after(3), dryRun: false, holder: 'a' });
    expect(second).toBeGreaterThan(first);
    expect(await latestFinishedTick(db)).toEqual({ id: first, finishedAt: after(1) });
    expect(await failInterruptedTicks(db, after(4))).toBe(2);
    expect(await latestFinishedTick(db)).toEqual({ id: third, finishedAt: after(4) });
    const recent = await listRecentTicks(db, 2);
    expect(recent.map((t) => [t.id, t.status, t.dryRun])).toEqual([
      [third, 'failed', false],
      [second, 'failed', true],
    ]);
    expect((await listRecentTicks(db, 3))[2]).toMatchObject({ summary: { decisions: 3 }, startedAt: AT, error: null });
    expect(await countTicks(db)).toBe(3);
    // a decision keeps the first tick; the second is before the cut and unreferenced; the third after it
    await insertDecisions(db, first, AT, [{ clusterName: 'c', action: 'skip', version: null, reason: 'x', message: null, nextRun: null }]);
    expect(await pruneOldTicks(db, after(3))).toBe(1);
    expect((await listRecentTicks(db, 10)).map((t) => t.id)).toEqual([third, first]);
    expect(await countTicks(db)).toBe(2);
  });

  it('inserts an intent once per key, lists it pending, marks it done or failed after its attempts', async () => {
    const db = await open();
    const { organizationId } = await fleet(db, ['a', 'b']);
    const tickId = await insertTick(db, { startedAt: AT, dryRun: false, holder: 'x' });
    const intent = (key: string, clusterName: string) => ({
      key,
      tickId,
      kind: 'schedule-upgrade' as const,
      organizationId,
      clusterName,
      version: '4.16.4',
      nextRun: after(30).getTime(),
      createdAt: AT,
    });
    const a = await insertIntent(db, intent('k-a', 'a'));
    expect(a).not.toBeNull();
    expect(await insertIntent(db, intent('k-a', 'a'))).toBeNull();
    const b = (await insertIntent(db, intent('k-b', 'b')))!;
    expect(await findIntentId(db, 'k-a')).toBe(a);
    expect(await findIntentId(db, 'nope')).toBeNull();
    expect((await listPendingIntents(db)).map((i) => i.id)).toEqual([a, b]);
    expect((await getIntents(db, [b]))[0]).toMatchObject({ nextRun: after(30), createdAt: AT, attempts: 0, status: 'pending' });

    await markIntentDone(db, a!, after(1), 'ok');
    expect(await findPendingIntentId(db, 'k-a')).toBeNull();
    expect((await getIntents(db, [a!]))[0]).toMatchObject({ status: 'done', doneAt: after(1), error: 'ok', attempts: 1 });

    expect(await markIntentAttemptFailed(db, b, after(2), 'refused')).toBe('pending');
    expect(await markIntentAttemptFailed(db, b, after(3), 'refused')).toBe('pending');
    expect((await getIntents(db, [b]))[0]).toMatchObject({ status: 'pending', attempts: 2, doneAt: null });
    expect(await markIntentAttemptFailed(db, b, after(4), 'refused again')).toBe('failed');
    expect((await getIntents(db, [b]))[0]).toMatchObject({ status: 'failed', attempts: 3, doneAt: after(4), error: 'refused again' });
    expect(await listPendingIntents(db)).toEqual([]);

    const listed = await listIntents(db, { organizationId, status: 'failed' }, 0, 10);
    expect(listed).toMatchObject({ total: 1, rows: [{ id: b, clusterName: 'b' }] });
    expect((await listIntents(db, { from: AT, to: AT }, 0, 10)).total).toBe(2);
    expect((await listIntents(db, { kind: 'no-such-kind' }, 0, 10)).total).toBe(0);
    expect((await listRecentActions(db, organizationId, 'a')).map((r) => r.id)).toEqual([a]);
  });

  it('inserts one intent per key when two replicas insert the same keys at once', async () => {
    const [one, two, close] = await twoHandles(kind, open);
    try {
      const tickId = await insertTick(one, { startedAt: AT, dryRun: false, holder: 'x' });
      const keys = Array.from({ length: 20 }, (_, i) => `key-${i}`);
      const insertAll = (db: Db) =>
        Promise.all(
          keys.map((key) =>
            insertIntent(db, { key, tickId, kind: 'start-upgrade', clusterName: key, version: '4.16.4', nextRun: null, createdAt: AT }),
          ),
        );
      const [fromOne, fromTwo] = await Promise.all([insertAll(one), insertAll(two)]);
      const inserted = [...fromOne, ...fromTwo].filter((id) => id !== null);
      expect(inserted).toHaveLength(keys.length);
      expect(new Set(inserted).size).toBe(keys.length);
      expect((await listPendingIntents(one)).map((i) => i.idempotencyKey).sort()).toEqual([...keys].sort());
    } finally {
      await close();
    }
  });

  it('writes several hundred decisions in one call and reads them back as the pages ask', async () => {
    const db = await open();
    const names = Array.from({ length: 300 }, (_, i) => `c-${String(i).padStart(3, '0')}`);
    const { organizationId } = await fleet(db, names);
    const tickId = await insertTick(db, { startedAt: AT, dryRun: true, holder: 'x' });
    const rows: DecisionRecord[] = names.map((clusterName, i) => ({
      clusterName,
      action: i % 3 === 0 ? 'upgrade' : 'skip',
      version: i % 3 === 0 ? '4.16.4' : null,
      reason: i % 3 === 0 ? null : i % 3 === 1 ? 'frozen' : 'not-in-window',
      message: i % 2 === 0 ? `message ${i}` : null,
      nextRun: i % 3 === 0 ? after(60 + i).getTime() : null,
    }));
    await insertDecisions(db, tickId, AT, rows, organizationId);
    await updateLastDecisions(db, organizationId, rows);

    const all = await listDecisions(db, { organizationId }, 0, 1000);
    expect(all.total).toBe(300);
    // newest (highest id) first: inserted in the order given
    expect(all.rows.map((r) => r.clusterName)).toEqual([...names].reverse());
    expect(all.rows.at(-1)).toEqual({
      id: expect.any(Number) as number,
      tickId,
      at: AT,
      clusterName: 'c-000',
      action: 'upgrade',
      version: '4.16.4',
      reason: null,
      message: 'message 0',
      dryRun: true,
    });
    const page = await listDecisions(db, { organizationId, action: 'skip', reason: 'frozen' }, 10, 5);
    expect(page.total).toBe(100);
    expect(page.rows.map((r) => r.clusterName)).toEqual(['c-268', 'c-265', 'c-262', 'c-259', 'c-256']);
    expect((await listDecisions(db, { cluster: 'c-007', tickId }, 0, 10)).rows).toHaveLength(1);
    expect((await listDecisions(db, { from: after(1) }, 0, 10)).total).toBe(0);
    expect((await listDecisions(db, { to: AT, action: 'no-such-action' }, 0, 10)).total).toBe(0);

    const byReason = (await countDecisionsByReason(db, AT.getTime())).sort((x, y) => (x.reason ?? '').localeCompare(y.reason ?? ''));
    expect(byReason).toEqual([
      { action: 'upgrade', reason: null, n: 100 },
      { action: 'skip', reason: 'frozen', n: 100 },
      { action: 'skip', reason: 'not-in-window', n: 100 },
    ]);
    expect(await countDecisionsByReason(db, after(1).getTime())).toEqual([]);
    expect((await listRecentDecisions(db, organizationId, 'c-003')).map((d) => d.action)).toEqual(['upgrade']);

    const states = await loadClusterStates(db, organizationId);
    expect(states.map((s) => s.name)).toEqual(names);
    expect(states[3]).toMatchObject({ lastDecisionAction: 'upgrade', lastDecisionVersion: '4.16.4', nextRun: after(63).getTime() });
    expect(states[4]).toMatchObject({ lastDecisionAction: 'skip', lastDecisionReason: 'frozen', nextRun: null });
  });

  it("puts a tick's batch writes inside its unit of work: rolled back with it", async () => {
    const db = await open();
    const { organizationId, ids } = await fleet(db, ['a', 'b']);
    const tickId = await insertTick(db, { startedAt: AT, dryRun: false, holder: 'x' });
    const rows: DecisionRecord[] = [{ clusterName: 'a', action: 'upgrade', version: '4.16.4', reason: null, message: null, nextRun: null }];
    await expect(
      withTransaction(db, async (tx) => {
        await insertDecisions(tx, tickId, AT, rows, organizationId);
        await updateLastDecisions(tx, organizationId, rows);
        await markMissedAndGone(tx, [], [ids.get('b')!]);
        await writeSnapshots(tx, organizationId, [], [cluster('c')], after(1));
        expect((await listDecisions(tx, { organizationId }, 0, 10)).total).toBe(1);
        throw new Error('the tick failed');
      }),
    ).rejects.toThrow('the tick failed');
    expect((await listDecisions(db, { organizationId }, 0, 10)).total).toBe(0);
    const states = await loadClusterStates(db, organizationId);
    expect(states.map((s) => [s.name, s.upgradeState, s.lastDecisionAction])).toEqual([
      ['a', 'idle', null],
      ['b', 'idle', null],
    ]);
    expect(await readSnapshotObservedAt(db)).toEqual(AT);
  });

  it('stores snapshots: new clusters in order, only changed rows written, discovery kept when not reported, missed and gone', async () => {
    const db = await open();
    const { organizationId, ids } = await fleet(db, ['a', 'b', 'c']);
    expect(await readSnapshotObservedAt(db)).toEqual(AT);
    const [a] = await loadClusterStates(db, organizationId);
    expect(a).toEqual({
      id: ids.get('a'),
      name: 'a',
      externalId: 'ext-a',
      version: '4.16.3',
      sector: null,
      managed: false,
      currentUpgrade: null,
      upgradeState: 'idle',
      healthy: true,
      healthIssues: [],
      lastDecisionAction: null,
      lastDecisionReason: null,
      lastDecisionVersion: null,
      nextRun: null,
      missedSnapshots: 0,
    });
    const upgrade = { version: '4.16.4', nextRun: '2026-11-27T07:00:00Z', state: 'scheduled' as const };
    const update = (id: number, over: Partial<SnapshotInsert>) => {
      const { name: _name, externalId: _externalId, provider: _provider, ...rest } = cluster('x', over);
      return { id, ...rest };
    };
    await writeSnapshots(
      db,
      organizationId,
      [
        update(ids.get('a')!, { healthy: false, healthIssues: ['etcd'], currentUpgrade: upgrade, upgradeState: 'scheduled' }),
        // same values, labels in another order: nothing changes
        update(ids.get('b')!, { discovery: { labels: { env: 'prod', zone: 'b' }, cloud: 'aws', region: 'eu-west-1', nodeCount: 6 } }),
        // discovery not reported: labels, cloud, region and nodes stay
        update(ids.get('c')!, { version: '4.16.4', discovery: null }),
      ],
      [cluster('d', { discovery: null })],
      after(5),
    );
    expect(await readSnapshotObservedAt(db)).toEqual(after(5));
    const { clusters } = tablesOf(db);
    const rows = await db
      .select({
        name: clusters.name,
        position: clusters.position,
        version: clusters.version,
        healthy: clusters.healthy,
        labels: clusters.labels,
        cloud: clusters.cloud,
        region: clusters.region,
        nodeCount: clusters.nodeCount,
        observedAt: clusters.observedAt,
        currentUpgrade: clusters.currentUpgrade,
      })
      .from(clusters)
      .where(eq(clusters.organizationId, organizationId))
      .orderBy(asc(clusters.position));
    expect(rows).toEqual([
      {
        name: 'a',
        position: 1,
        version: '4.16.3',
        healthy: false,
        labels: { env: 'prod', zone: 'b' },
        cloud: 'aws',
        region: 'eu-west-1',
        nodeCount: 6,
        observedAt: after(5),
        currentUpgrade: upgrade,
      },
      {
        name: 'b',
        position: 2,
        version: '4.16.3',
        healthy: true,
        labels: { env: 'prod', zone: 'b' },
        cloud: 'aws',
        region: 'eu-west-1',
        nodeCount: 6,
        observedAt: AT,
        currentUpgrade: null,
      },
      {
        name: 'c',
        position: 3,
        version: '4.16.4',
        healthy: true,
        labels: { env: 'prod', zone: 'b' },
        cloud: 'aws',
        region: 'eu-west-1',
        nodeCount: 6,
        observedAt: after(5),
        currentUpgrade: null,
      },
      {
        name: 'd',
        position: 4,
        version: '4.16.3',
        healthy: true,
        labels: {},
        cloud: null,
        region: '',
        nodeCount: 3,
        observedAt: after(5),
        currentUpgrade: null,
      },
    ]);

    await markMissedAndGone(db, [{ id: ids.get('b')!, count: 2 }], [ids.get('c')!]);
    await setClusterUpgrade(db, organizationId, 'c', upgrade, 'scheduled');
    await setClusterUpgrade(db, organizationId, 'a', null, 'idle');
    const states = new Map((await loadClusterStates(db, organizationId)).map((s) => [s.name, s]));
    expect(states.get('b')).toMatchObject({ missedSnapshots: 2, upgradeState: 'idle' });
    // a gone cluster stays gone
    expect(states.get('c')).toMatchObject({ upgradeState: 'gone', currentUpgrade: upgrade });
    expect(states.get('a')).toMatchObject({ upgradeState: 'idle', currentUpgrade: null, healthy: false, healthIssues: ['etcd'] });
  });

  it('moves an upgrade history row forward, or opens one', async () => {
    const db = await open();
    const { ids } = await fleet(db, ['a']);
    const clusterId = ids.get('a')!;
    const base = { clusterId, fromVersion: '4.16.3', toVersion: '4.16.4' };
    await recordUpgradeTransition(db, {
      ...base,
      state: 'scheduled',
      at: AT.getTime(),
      scheduledFor: after(30).getTime(),
      message: 'planned',
    });
    await recordUpgradeTransition(db, { ...base, state: 'started', at: after(30).getTime() });
    await recordUpgradeTransition(db, { ...base, state: 'completed', at: after(90).getTime(), message: 'done' });
    await recordUpgradeTransition(db, { ...base, state: 'failed', at: after(100).getTime() });
    const { clusterUpgrades } = tablesOf(db);
    const rows = await db.select().from(clusterUpgrades).orderBy(asc(clusterUpgrades.id));
    expect(rows).toEqual([
      {
        id: expect.any(Number) as number,
        ...base,
        state: 'completed',
        scheduledFor: after(30),
        startedAt: after(30),
        completedAt: after(90),
        message: 'done',
      },
      {
        id: expect.any(Number) as number,
        ...base,
        state: 'failed',
        scheduledFor: null,
        startedAt: after(100),
        completedAt: after(100),
        message: null,
      },
    ]);
  });

  it('keeps simulated clusters: listed, found, channel and upgrade set once', async () => {
    const db = await open();
    const { organizationId } = await fleet(db, ['a', 'b']);
    expect((await listSimulatedClusters(db, organizationId)).map((c) => c.name)).toEqual(['a', 'b']);
    expect(await findSimulatedCluster(db, 'ext-b', organizationId)).toEqual({
      externalId: 'ext-b',
      name: 'b',
      version: '4.16.3',
      channel: 'stable-4.16',
      availableUpgrades: ['4.16.4'],
      healthIssues: [],
      currentUpgrade: null,
      region: 'eu-west-1',
      nodeCount: 6,
      sector: null,
    });
    expect(await findSimulatedCluster(db, 'ext-b', organizationId + 1)).toBeUndefined();
    expect(await setSimulatedChannel(db, 'ext-a', 'fast-4.16')).toBe(true);
    expect(await setSimulatedChannel(db, 'ext-a', 'fast-4.16')).toBe(false);
    const upgrade = { version: '4.16.4', nextRun: '2026-11-27T07:00:00Z', state: 'scheduled' as const };
    await setSimulatedUpgrade(db, 'ext-a', upgrade, null);
    await expect(setSimulatedUpgrade(db, 'ext-a', { ...upgrade, version: '4.17.0' }, null)).rejects.toThrow('already has an upgrade');
    expect((await findSimulatedCluster(db, 'ext-a'))?.currentUpgrade).toEqual(upgrade);
    await setSimulatedUpgrade(db, 'ext-a', null, '4.16.4');
    expect((await findSimulatedCluster(db, 'ext-a'))?.currentUpgrade).toBeNull();
  });

  it('keeps upgrade attempts and their transitions; a step from a stale state writes nothing', async () => {
    const db = await open();
    const { organizationId, ids } = await fleet(db, ['a', 'b']);
    const attempt = (name: string, over: Partial<NewAttempt> = {}): NewAttempt => ({
      clusterId: ids.get(name)!,
      clusterName: name,
      sector: 'canary',
      fromVersion: '4.16.3',
      toVersion: '4.16.4',
      slot: after(60).getTime(),
      haltsOnFailure: true,
      at: AT.getTime(),
      actor: 'scheduler',
      tickId: null,
      message: 'scheduled',
      ...over,
    });
    const a = (await insertAttempt(db, attempt('a')))!;
    expect(await insertAttempt(db, attempt('a'))).toBeNull();
    const b = (await insertAttempt(db, attempt('b', { channel: 'eus-4.16' })))!;
    expect(b).toMatchObject({ cluster: 'b', channel: 'eus-4.16', state: 'scheduled', slot: after(60).getTime(), noticeAt: null });
    expect((await listActiveAttempts(db, organizationId)).map((x) => x.id)).toEqual([a.id, b.id]);
    expect(await listActiveAttempts(db, organizationId + 1)).toEqual([]);

    const failedAt = after(70).getTime();
    const step = {
      ...b,
      state: 'failed' as const,
      reason: null,
      message: 'provider failed',
      finishedAt: failedAt,
      runningAt: after(65).getTime(),
    };
    const transitions = [
      { from: 'scheduled' as const, to: 'pre-checks' as const, reason: null, message: 'checks', at: after(61).getTime() },
      { from: 'pre-checks' as const, to: 'failed' as const, reason: null, message: 'provider failed', at: failedAt },
    ];
    expect(await saveAttemptStep(db, 'scheduled', step, transitions, { at: failedAt, actor: 'scheduler', tickId: 7 })).toBe(true);
    // the same step again: the attempt is no longer `scheduled`
    expect(await saveAttemptStep(db, 'scheduled', step, transitions, { at: failedAt, actor: 'scheduler', tickId: 7 })).toBe(false);
    expect((await listActiveAttempts(db)).map((x) => x.id)).toEqual([a.id]);
    expect((await listUnacknowledgedFailures(db, organizationId)).map((x) => [x.id, x.runningAt, x.finishedAt])).toEqual([
      [b.id, after(65).getTime(), failedAt],
    ]);
    expect(await listUpgradeResults(db, organizationId, ['canary'])).toEqual([
      { cluster: 'b', version: '4.16.4', outcome: 'failed', at: failedAt, attempt: b.id },
    ]);
    expect(await acknowledgeAttemptFailure(db, b.id, { by: 'anna', comment: 'known', at: after(80).getTime() })).toBe(true);
    expect(await acknowledgeAttemptFailure(db, b.id, { by: 'anna', comment: 'again', at: after(81).getTime() })).toBe(false);
    expect(await listUnacknowledgedFailures(db)).toEqual([]);
    expect(await listUpgradeResults(db, organizationId, ['canary'])).toEqual([]);

    const history = await listAttemptTransitions(db, [b.id]);
    expect(history.map((t) => [t.fromState, t.toState, t.actor, t.tickId, t.at])).toEqual([
      [null, 'scheduled', 'scheduler', null, AT],
      ['scheduled', 'pre-checks', 'scheduler', 7, after(61)],
      ['pre-checks', 'failed', 'scheduler', 7, after(70)],
      ['failed', 'failed', 'anna', null, after(80)],
    ]);
    const page = await listTransitionsPage(db, { organizationId, toState: 'failed' }, 0, 10);
    expect(page.total).toBe(2);
    expect(page.rows.map((r) => [r.cluster, r.message])).toEqual([
      ['b', 'failure acknowledged: known'],
      ['b', 'provider failed'],
    ]);
    expect((await listTransitionsPage(db, { cluster: 'a', from: AT, to: AT }, 0, 10)).total).toBe(1);

    // the metrics endpoint's reads of the same rows
    expect(await listLatestAttempts(db, organizationId)).toEqual([
      {
        cluster: 'a',
        externalId: 'ext-a',
        fromVersion: '4.16.3',
        toVersion: '4.16.4',
        state: 'scheduled',
        reason: null,
        updatedAt: AT.getTime(),
      },
      {
        cluster: 'b',
        externalId: 'ext-b',
        fromVersion: '4.16.3',
        toVersion: '4.16.4',
        state: 'failed',
        reason: null,
        updatedAt: after(80).getTime(),
      },
    ]);
    expect(await countFailedAttempts(db, organizationId)).toEqual([
      { cluster: 'b', externalId: 'ext-b', state: 'failed', attempts: 1, unacknowledged: 0 },
    ]);
  });

  it('keeps hooks and their calls: queued once, claimed once by two claimers at once, answered', async () => {
    const [db, other, close] = await twoHandles(kind, open);
    try {
      const { id: organizationId } = await insertEmptyOrganization(db, 'hooks', AT);
      const hook = (name: string, sector: string | null, timeoutSeconds: number) =>
        insertHook(db, {
          organizationId,
          sector,
          stage: 'pre-upgrade',
          name,
          url: `https://hooks.example/${name}`,
          secret: 's',
          timeoutSeconds,
          enabled: true,
          createdBy: 'anna',
          createdAt: AT,
        });
      const everywhere = await hook('everywhere', null, 60);
      const canary = await hook('canary-only', 'canary', 30);
      expect((await listApplicableHooks(db, organizationId, 'canary', 'pre-upgrade')).map((h) => h.name)).toEqual([
        'everywhere',
        'canary-only',
      ]);
      expect((await listApplicableHooks(db, organizationId, null, 'pre-upgrade')).map((h) => h.name)).toEqual(['everywhere']);

      const calls = [everywhere, canary].map((h) => ({
        hookId: h.id,
        lifecycleId: '17',
        stage: 'pre-upgrade' as const,
        payload: { n: h.id },
        requestedAt: AT,
      }));
      await insertHookCalls(db, calls);
      await insertHookCalls(db, calls);
      expect(await hasHookCalls(db, '17', 'pre-upgrade')).toBe(true);
      expect(await hasHookCalls(db, '17', 'post-upgrade')).toBe(false);
      expect((await listHookCallsFor(db, '17', 'pre-upgrade')).map((c) => [c.hookName, c.timeoutSeconds, c.payload])).toEqual([
        ['everywhere', 60, { n: everywhere.id }],
        ['canary-only', 30, { n: canary.id }],
      ]);
      expect(await hasDueHookCall(db, AT.getTime())).toBe(true);

      const now = AT.getTime();
      const claims = await Promise.all([
        claimNextHookCall(db, 'one', now, 1_000),
        claimNextHookCall(other, 'two', now, 1_000),
        claimNextHookCall(db, 'three', now, 1_000),
      ]);
      const claimed = claims.filter((c) => c !== undefined);
      expect(claimed.map((c) => c.hookName).sort()).toEqual(['canary-only', 'everywhere']);
      // claimed until now + the hook's timeout + the margin
      const first = claimed.find((c) => c.hookName === 'everywhere')!;
      expect(first.claimedUntil).toEqual(new Date(now + 60_000 + 1_000));
      expect(await hasDueHookCall(db, now)).toBe(false);
      expect(await countPendingHookCalls(db, [everywhere.id, canary.id])).toEqual(
        new Map([
          [everywhere.id, 1],
          [canary.id, 1],
        ]),
      );
      const answer = { status: 'allowed' as const, reason: 'ok', answerStatusCode: 200, answer: '{}', answeredAt: after(1) };
      expect(await finishClaimedHookCall(db, first.id, 'somebody-else', answer)).toBe(false);
      expect(await finishClaimedHookCall(db, first.id, first.claimedBy!, answer)).toBe(true);
      const last = await lastAnsweredCalls(db, [everywhere.id, canary.id]);
      expect([...last.keys()]).toEqual([everywhere.id]);
      expect(last.get(everywhere.id)).toMatchObject({ status: 'allowed', answeredAt: after(1), claimedBy: null, claimedUntil: null });
      // the other claim lapses: due again after its timeout
      expect(await hasDueHookCall(db, now + 30_000 + 1_001)).toBe(true);
    } finally {
      await close();
    }
  });

  it('claims each due webhook delivery once when two handles claim at once', async () => {
    const [db, other, close] = await twoHandles(kind, open);
    try {
      const { id: organizationId } = await insertEmptyOrganization(db, 'webhooks', AT);
      const hook = await insertWebhook(db, {
        name: 'chat',
        url: 'https://chat.example/hook',
        secret: 's',
        events: ['started', 'failed'],
        enabled: true,
        createdAt: AT,
        organizationId,
      });
      for (let i = 0; i < 6; i++) expect(await enqueueDeliveries(db, 'started', { i }, AT, organizationId)).toBe(1);
      expect(await enqueueDeliveries(db, 'completed', {}, AT, organizationId)).toBe(0);
      expect(await hasDueDelivery(db, AT.getTime() - 1)).toBe(false);
      expect(await hasDueDelivery(db, AT.getTime())).toBe(true);

      const now = AT.getTime();
      const claimAll = async (handle: Db, holder: string) => {
        const got: number[] = [];
        for (;;) {
          const d = await claimNextDelivery(handle, holder, now, now + MIN);
          if (!d) return got;
          expect(d).toMatchObject({ url: 'https://chat.example/hook', claimedBy: holder, claimedUntil: new Date(now + MIN) });
          got.push(d.id);
        }
      };
      const [byOne, byTwo] = await Promise.all([claimAll(db, 'one'), claimAll(other, 'two')]);
      const claimed = [...byOne, ...byTwo];
      expect(claimed).toHaveLength(6);
      expect(new Set(claimed).size).toBe(6);
      expect(await hasDueDelivery(db, now)).toBe(false);

      const mine = byOne[0] ?? byTwo[0]!;
      const holder = byOne.includes(mine) ? 'one' : 'two';
      expect(await finishClaimedDelivery(db, mine, 'nobody', { status: 'delivered' })).toBe(false);
      expect(await finishClaimedDelivery(db, mine, holder, { status: 'delivered', attempts: 1, lastStatusCode: 200 })).toBe(true);
      // lapsed claims are taken over
      expect(await claimNextDelivery(db, 'three', now + MIN + 1, now + 2 * MIN)).toMatchObject({ claimedBy: 'three' });
      const listed = await listDeliveries(db, { organizationId, webhookId: hook.id, offset: 0, limit: 3 });
      expect(listed.total).toBe(6);
      expect(listed.rows).toHaveLength(3);
      expect(listed.rows[0]).toMatchObject({ webhookName: 'chat', event: 'started', payload: { i: 5 }, createdAt: AT });
    } finally {
      await close();
    }
  });

  it('adds to counters by label set and reads the last tick of each outcome', async () => {
    const db = await open();
    await addToCounters(db, [
      { name: 'fleetplan_decisions_total', labels: { reason: 'frozen', action: 'skip' }, by: 2 },
      { name: 'fleetplan_decisions_total', labels: { action: 'upgrade' }, by: 1 },
      { name: 'fleetplan_ticks_total', labels: {}, by: 0 },
    ]);
    await addToCounters(db, [{ name: 'fleetplan_decisions_total', labels: { action: 'skip', reason: 'frozen' }, by: 3.5 }]);
    expect(await listCounters(db)).toEqual([
      { name: 'fleetplan_decisions_total', labels: { action: 'skip', reason: 'frozen' }, value: 5.5 },
      { name: 'fleetplan_decisions_total', labels: { action: 'upgrade' }, value: 1 },
    ]);

    for (const [minute, status] of [
      [0, 'succeeded'],
      [5, 'failed'],
      [10, 'succeeded'],
    ] as const) {
      const id = await insertTick(db, { startedAt: after(minute), dryRun: false, holder: 'x' });
      await finishTick(db, id, { finishedAt: after(minute + 1), status });
    }
    await insertTick(db, { startedAt: after(20), dryRun: false, holder: 'x' });
    expect((await lastTickStartByStatus(db)).sort((x, y) => x.status.localeCompare(y.status))).toEqual([
      { status: 'failed', startedAt: after(5) },
      { status: 'succeeded', startedAt: after(10) },
    ]);

    const { organizationId } = await fleet(db, ['a', 'b']);
    await setClusterUpgrade(
      db,
      organizationId,
      'b',
      { version: '4.16.4', nextRun: 'x', state: 'started', startedAt: '2026-11-27T06:30:00Z' },
      'upgrading',
    );
    expect(await listClusterMetricRows(db, organizationId)).toEqual([
      { name: 'a', externalId: 'ext-a', provider: 'simulator', upgradeState: 'idle', upgradeStartedAt: null },
      { name: 'b', externalId: 'ext-b', provider: 'simulator', upgradeState: 'upgrading', upgradeStartedAt: '2026-11-27T06:30:00Z' },
    ]);
  });

  it('keeps update graphs: replaced by name, listed newest first, deleted', async () => {
    const db = await open();
    const graph = (name: string, importedAt: Date, document: string) => ({
      name,
      channel: 'stable-4.16',
      architecture: 'amd64',
      capturedAt: null,
      source: 'file',
      nodeCount: 2,
      edgeCount: 1,
      importedAt,
      document,
    });
    const first = await upsertGraph(db, graph('stable', AT, '{"v":1}'));
    const other = await upsertGraph(db, graph('fast', after(1), '{"f":1}'));
    const replaced = await upsertGraph(db, graph('stable', after(2), '{"v":2}'));
    expect(replaced).not.toBe(first);
    expect((await listGraphs(db)).map((g) => [g.name, g.importedAt])).toEqual([
      ['stable', after(2)],
      ['fast', after(1)],
    ]);
    expect(await findGraphById(db, first)).toBeUndefined();
    expect(await findGraphById(db, replaced)).toMatchObject({ name: 'stable', capturedAt: null, nodeCount: 2 });
    expect((await getGraphDocuments(db, [replaced])).map((d) => d.document)).toEqual(['{"v":2}']);
    expect(await getGraphDocuments(db, [])).toEqual([]);
    expect(await deleteGraph(db, other)).toBe(true);
    expect(await deleteGraph(db, other)).toBe(false);
    expect((await getGraphDocuments(db)).map((d) => d.name)).toEqual(['stable']);
  });

  it('filters the audit log by dates, action prefix and target substring, leaving out policy revisions on the Activity page', async () => {
    const db = await open();
    const { id: organizationId } = await insertEmptyOrganization(db, 'audited', AT);
    const entry = (minute: number, action: string, target: string) =>
      appendAudit(db, { at: after(minute), actor: 'anna', action, target, before: null, after: { minute }, organizationId });
    await entry(0, 'policy.freeze', 'organization:audited');
    await entry(10, 'exclusion.create', 'exclusion:Hive-Prod-01');
    await entry(20, 'policy.cluster.update', 'cluster:hive-prod-01');
    await entry(30, 'webhook.create', 'webhook:chat');
    await appendAudit(db, { at: after(40), actor: 'root', action: 'token.create', target: 'token:1', organizationId: null });
    await insertPolicyRevision(db, {
      organizationId,
      scope: 'cluster',
      subject: 'hive-prod-01',
      revision: 2,
      actor: 'anna',
      at: after(20),
      summary: 'policy',
      before: null,
      after: {},
    });
    expect(await countAudit(db, { from: after(10), to: after(30) })).toBe(2);
    expect(await countAudit(db, { from: after(10), through: after(30) })).toBe(3);
    expect(await countAudit(db, { action: 'policy.' })).toBe(2);
    expect(await countAudit(db, { action: 'policy*' })).toBe(2);
    expect(await countAudit(db, { action: 'policy' })).toBe(0);
    // a cluster's name finds its rows whatever the case, as SQLite's LIKE does
    expect((await listAudit(db, { filter: { targetContains: 'hive-prod-01' } })).rows.map((r) => r.after)).toEqual([
      { minute: 20 },
      { minute: 10 },
    ]);
    expect(await countAudit(db, { targetContains: '%' })).toBe(0);
    expect(await countAudit(db, { organizationOrInstance: organizationId + 1 })).toBe(1);
    const activity = await listActivityAudit(db, { organizationId, from: after(10), to: after(40) }, 0, 10);
    expect(activity.rows.map((r) => r.action)).toEqual(['token.create', 'webhook.create', 'exclusion.create']);
    expect(activity.total).toBe(3);
  });

  it('keeps tokens, approvals and exclusions', async () => {
    const db = await open();
    const user = await insertUser(db, { username: 'anna', passwordHash: 'x', role: 'admin', organizationsOnly: false, createdAt: AT });
    const token = await insertToken(db, {
      name: 'ci',
      userId: user.id,
      tokenHash: 'h1',
      prefix: 'fp_1',
      scope: 'viewer',
      createdAt: AT,
      expiresAt: after(60),
    });
    await insertToken(db, {
      name: 'old',
      userId: user.id,
      tokenHash: 'h2',
      prefix: 'fp_2',
      scope: 'approvals:write',
      createdAt: after(1),
      expiresAt: after(2),
    });
    expect((await listTokens(db, { userId: user.id })).map((t) => [t.name, t.owner])).toEqual([
      ['old', 'anna'],
      ['ci', 'anna'],
    ]);
    expect(await findTokenById(db, token)).toEqual({
      id: token,
      name: 'ci',
      prefix: 'fp_1',
      scope: 'viewer',
      createdAt: AT,
      lastUsedAt: null,
      expiresAt: after(60),
      revokedAt: null,
      userId: user.id,
      owner: 'anna',
    });
    expect((await findActiveTokenByHash(db, 'h1', after(3)))?.user.username).toBe('anna');
    expect(await findActiveTokenByHash(db, 'h2', after(3))).toBeUndefined();
    expect(await revokeTokensOfUser(db, user.id, after(4))).toBe(2);
    expect(await findActiveTokenByHash(db, 'h1', after(5))).toBeUndefined();

    const { id: organizationId } = await insertEmptyOrganization(db, 'gated', AT);
    const gate = { organizationId, sector: 'prod', version: '4.16.4', kind: 'before' as const };
    const approved = await saveApproval(db, gate, { approvedBy: 'anna', approvedAt: AT, reason: 'ok' });
    await revokeApproval(db, approved.id, { revokedBy: 'bob', revokedAt: after(1) });
    expect(await listApprovals(db, organizationId)).toEqual([]);
    const again = await saveApproval(db, gate, { approvedBy: 'carl', approvedAt: after(2), reason: 'ok now' });
    expect(again).toMatchObject({ id: approved.id, approvedBy: 'carl', approvedAt: after(2), revokedAt: null, revokedBy: null });
    expect((await findApproval(db, gate))?.reason).toBe('ok now');

    const window = { organizationId, scope: 'sector' as const, subject: 'prod', reason: 'freeze', createdBy: 'anna', createdAt: AT };
    const past = await insertExclusion(db, { ...window, startsAt: AT, endsAt: after(10) });
    const coming = await insertExclusion(db, { ...window, startsAt: after(60), endsAt: after(120) });
    expect((await listExclusions(db, organizationId)).map((e) => e.id)).toEqual([past.id, coming.id]);
    expect((await listExclusions(db, organizationId, { endingAfter: after(10) })).map((e) => e.id)).toEqual([coming.id]);
    await deleteExclusion(db, past.id);
    expect(await findExclusionById(db, past.id)).toBeUndefined();
    expect(await findExclusionById(db, coming.id)).toMatchObject({ startsAt: after(60), endsAt: after(120) });
  });

  it('lets one of two policy edits from the same revision win; the stale one writes nothing', async () => {
    const db = await open();
    const { organizationId, ids } = await fleet(db, ['a']);
    const before = (await findClusterPolicy(db, organizationId, 'a'))!;
    expect(before).toMatchObject({ upgradePolicy: null, policyRevision: 1, sector: null });
    const edit = (sector: string) =>
      setClusterPolicy(db, ids.get('a')!, before.policyRevision, { conditions: { sector }, workloads: ['db'] });
    const results = await Promise.all([edit('canary'), edit('prod')]);
    expect(results.filter(Boolean)).toHaveLength(1);
    const [after1] = await listClusterPolicies(db, organizationId);
    expect(after1!.policyRevision).toBe(2);
    expect(after1!.sector).toBe(results[0] ? 'canary' : 'prod');
    expect(after1!.upgradePolicy).toEqual({ conditions: { sector: after1!.sector }, workloads: ['db'] });
    expect(await setClusterPolicy(db, ids.get('a')!, before.policyRevision, null)).toBe(false);

    expect(await updateOrganizationRow(db, organizationId, 1, { frozen: true }, after(1))).toBe(true);
    expect(await updateOrganizationRow(db, organizationId, 1, { frozen: false }, after(2))).toBe(false);
    const revision = await insertPolicyRevision(db, {
      organizationId,
      scope: 'organization',
      subject: 'org',
      revision: 2,
      actor: 'anna',
      at: after(1),
      summary: 'frozen',
      before: { frozen: false },
      after: { frozen: true },
    });
    expect(await listPolicyRevisions(db, { organizationId, scope: 'organization', offset: 0, limit: 5 })).toEqual({
      rows: [expect.objectContaining({ id: revision, at: after(1), after: { frozen: true } })],
      total: 1,
    });
  });

  it('keeps the instance blocked versions, OCM refusals, and counts clusters by version', async () => {
    const db = await open();
    await insertInstanceBlockedVersion(db, { pattern: '4\\.16\\.0', reason: 'bug', createdBy: 'anna', createdAt: AT });
    await insertInstanceBlockedVersion(db, { pattern: '4\\.15\\..*', reason: 'old', createdBy: 'anna', createdAt: after(1) });
    expect(await listInstanceBlockedPatterns(db)).toEqual(['4\\.16\\.0', '4\\.15\\..*']);
    expect(await findInstanceBlockedVersion(db, '4\\.15\\..*')).toMatchObject({ reason: 'old', createdAt: after(1) });
    expect(await deleteInstanceBlockedVersion(db, '4\\.16\\.0')).toBe(true);
    expect(await deleteInstanceBlockedVersion(db, '4\\.16\\.0')).toBe(false);

    const refusals = createOcmRefusalRepository(db, () => AT);
    await refusals.set('ext-a', { refusals: 1, notBefore: after(5).getTime(), reason: 'busy', version: '4.16.4' });
    await refusals.set('ext-b', { refusals: 2, notBefore: after(9).getTime(), reason: 'busy', version: '4.16.4' });
    await refusals.clear('ext-a');
    expect(await refusals.get('ext-a')).toBeUndefined();
    expect(await refusals.get('ext-b')).toEqual({ refusals: 2, notBefore: after(9).getTime(), reason: 'busy', version: '4.16.4' });

    const { organizationId } = await fleet(db, ['a', 'b', 'c']);
    await writeSnapshots(db, organizationId, [], [cluster('d', { version: '4.17.1' })], after(1));
    expect((await countClustersByVersion(db, organizationId)).sort((x, y) => x.version.localeCompare(y.version))).toEqual([
      { version: '4.16.3', count: 3 },
      { version: '4.17.1', count: 1 },
    ]);
  });
});
