// Acknowledging an upgrade failure through the real router: operators only, a comment required,
// once, with an audit row, and the halt it caused is lifted.
import { describe, expect, it } from 'vitest';
import { openDatabase } from '@/db/open-database';
import * as t from '@/db/schema';
import type { Actor } from '@/server/auth/actor';
import { insertAttempt, saveAttemptStep } from '@/server/repositories/lifecycle-repository';
import { loadHalts } from '@/server/repositories/gate-state-repository';
import { haltReason } from '@/server/domain/lifecycle/halts';
import { createCaller } from './root';
import { createContextInner } from './trpc';

const NOW = new Date('2024-07-01T12:00:00Z');

async function setup() {
  const db = openDatabase(':memory:');
  const org = db.insert(t.organizations).values({ name: 'org', updatedAt: NOW }).returning().get();
  db.insert(t.sectors).values({ organizationId: org.id, name: 'stage', dependencies: [] }).run();
  db.insert(t.sectors)
    .values({ organizationId: org.id, name: 'prod', dependencies: ['stage'] })
    .run();
  const c = db
    .insert(t.clusters)
    .values({ organizationId: org.id, name: 'stage-1', externalId: 'x', version: '4.13.1', channel: 'stable-4.13', observedAt: NOW })
    .returning()
    .get();
  const a = (await insertAttempt(db, {
    clusterId: c.id,
    clusterName: 'stage-1',
    sector: 'stage',
    fromVersion: '4.13.1',
    toVersion: '4.13.2',
    slot: NOW.getTime(),
    haltsOnFailure: true,
    at: NOW.getTime(),
    actor: 'scheduler:test',
    tickId: null,
    message: 'upgrade',
  }))!;
  await saveAttemptStep(
    db,
    'scheduled',
    { ...a, state: 'failed', reason: 'PROVIDER_FAILED', message: 'etcd stuck', finishedAt: NOW.getTime() },
    [],
    {
      at: NOW.getTime(),
      actor: 'scheduler:test',
      tickId: null,
    },
  );
  const as = (actor: Actor) => createCaller(createContextInner({ db, fleetNow: () => NOW, actor }));
  return { db, orgId: org.id, attemptId: a.id, as };
}

const operator: Actor = { name: 'olga', role: 'operator', via: 'session', userId: 2 };
const viewer: Actor = { name: 'vic', role: 'viewer', via: 'session', userId: 3 };

describe('lifecycle.acknowledge', () => {
  it('lifts the halt of a failure, once, audited with the comment', async () => {
    const { db, orgId, attemptId, as } = await setup();
    expect(haltReason(await loadHalts(db, orgId), 'prod-1', 'prod', '4.13.2')).toMatch(/failed on stage-1/);
    await expect(as(viewer).lifecycle.acknowledge({ id: attemptId, comment: 'fixed' })).rejects.toThrow();
    await expect(as(operator).lifecycle.acknowledge({ id: attemptId, comment: '  ' })).rejects.toThrow(/Say why/);
    expect(db.select().from(t.auditLog).all()).toEqual([]);
    await as(operator).lifecycle.acknowledge({ id: attemptId, comment: 'etcd member replaced' });
    expect(haltReason(await loadHalts(db, orgId), 'prod-1', 'prod', '4.13.2')).toBeNull();
    await expect(as(operator).lifecycle.acknowledge({ id: attemptId, comment: 'again' })).rejects.toThrow(/Already acknowledged by olga/);
    expect(db.select().from(t.auditLog).all()).toMatchObject([
      { actor: 'olga', action: 'lifecycle.acknowledge-failure', target: 'stage-1@4.13.2', after: { comment: 'etcd member replaced' } },
    ]);
    const [attempt] = await as(viewer).lifecycle.forCluster({ cluster: 'stage-1' });
    expect(attempt).toMatchObject({ state: 'failed', reason: 'PROVIDER_FAILED', acknowledgedBy: 'olga', needsAcknowledgement: false });
    expect(attempt!.transitions.map((x) => x.to)).toEqual(['scheduled', 'failed']);
  });
});
