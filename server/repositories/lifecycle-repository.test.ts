import { describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '@/db/open-database';
import { clusters, organizations } from '@/db/schema';
import { stepAttempt } from '@/server/domain/lifecycle/machine';
import { NO_FLEET_OBSTACLES } from '@/server/domain/lifecycle/gates';
import { DEFAULT_LIFECYCLE_OPTIONS } from '@/server/domain/lifecycle/options';
import {
  acknowledgeAttemptFailure,
  getAttempt,
  insertAttempt,
  listActiveAttempts,
  listAttemptTransitions,
  listUnacknowledgedFailures,
  saveAttemptStep,
} from './lifecycle-repository';

const SLOT = Date.parse('2026-01-06T22:00:00Z');

function fleet(): { db: Db; clusterId: number } {
  const db = openDatabase(':memory:');
  const org = db
    .insert(organizations)
    .values({ name: 'org', updatedAt: new Date(SLOT) })
    .returning()
    .get();
  const c = db
    .insert(clusters)
    .values({
      organizationId: org.id,
      name: 'prod-1',
      externalId: 'x1',
      version: '4.13.10',
      channel: 'stable-4.13',
      observedAt: new Date(SLOT),
    })
    .returning()
    .get();
  return { db, clusterId: c.id };
}

const attempt = (clusterId: number) => ({
  clusterId,
  clusterName: 'prod-1',
  sector: 'prod',
  fromVersion: '4.13.10',
  toVersion: '4.13.12',
  slot: SLOT,
  haltsOnFailure: true,
  at: SLOT - 3_600_000,
  actor: 'scheduler:test',
  tickId: 1,
  message: 'upgrade to 4.13.12 at the slot',
});

describe('lifecycle repository', () => {
  it('creates an attempt once per (cluster, version, slot), with its first transition', async () => {
    const { db, clusterId } = fleet();
    const a = await insertAttempt(db, attempt(clusterId));
    expect(a).toMatchObject({ state: 'scheduled', cluster: 'prod-1', slot: SLOT, sector: 'prod' });
    expect(await insertAttempt(db, attempt(clusterId))).toBeNull();
    expect((await listActiveAttempts(db)).map((x) => x.id)).toEqual([a!.id]);
    expect((await listAttemptTransitions(db, [a!.id])).map((t) => [t.fromState, t.toState, t.actor])).toEqual([
      [null, 'scheduled', 'scheduler:test'],
    ]);
  });

  it('saves a step with one row per transition, guarded by the state it started from', async () => {
    const { db, clusterId } = fleet();
    const a = (await insertAttempt(db, attempt(clusterId)))!;
    const r = stepAttempt(a, {
      now: SLOT,
      options: DEFAULT_LIFECYCLE_OPTIONS,
      startLeadMs: 0,
      minStartNoticeMs: 0,
      reading: { ok: false, message: 'unreachable' },
      fleet: NO_FLEET_OBSTACLES,
      decisionWithdrawn: null,
      hooks: { pre: { state: 'none' }, post: { state: 'none' } },
    });
    expect(await saveAttemptStep(db, 'scheduled', r.attempt, r.transitions, { at: SLOT, actor: 'scheduler:test', tickId: 2 })).toBe(true);
    // a second writer that read the old state loses and writes nothing
    expect(await saveAttemptStep(db, 'scheduled', r.attempt, r.transitions, { at: SLOT, actor: 'scheduler:other', tickId: 3 })).toBe(false);
    expect(await getAttempt(db, a.id)).toMatchObject({ state: 'skipped', reason: 'PROVIDER_ERROR', finishedAt: SLOT });
    expect((await listAttemptTransitions(db, [a.id])).map((t) => `${t.fromState}→${t.toState}:${t.reason}`)).toEqual([
      'null→scheduled:null',
      'scheduled→pre-checks:null',
      'pre-checks→skipped:PROVIDER_ERROR',
    ]);
    expect(await listActiveAttempts(db)).toEqual([]);
  });

  it('acknowledges only an unacknowledged failure, once, naming who and why', async () => {
    const { db, clusterId } = fleet();
    const a = (await insertAttempt(db, attempt(clusterId)))!;
    expect(await acknowledgeAttemptFailure(db, a.id, { by: 'alice', comment: 'not a failure', at: SLOT })).toBe(false);
    const failed = { ...a, state: 'failed' as const, reason: 'PROVIDER_FAILED' as const, message: 'boom', finishedAt: SLOT };
    await saveAttemptStep(db, 'scheduled', failed, [], { at: SLOT, actor: 't', tickId: null });
    expect((await listUnacknowledgedFailures(db)).map((f) => f.id)).toEqual([a.id]);
    expect(await acknowledgeAttemptFailure(db, a.id, { by: 'alice', comment: 'node replaced', at: SLOT + 1 })).toBe(true);
    expect(await acknowledgeAttemptFailure(db, a.id, { by: 'bob', comment: 'again', at: SLOT + 2 })).toBe(false);
    expect(await listUnacknowledgedFailures(db)).toEqual([]);
    expect(await getAttempt(db, a.id)).toMatchObject({
      acknowledgedBy: 'alice',
      acknowledgeComment: 'node replaced',
      acknowledgedAt: SLOT + 1,
    });
    expect((await listAttemptTransitions(db, [a.id])).at(-1)).toMatchObject({
      actor: 'alice',
      message: 'failure acknowledged: node replaced',
    });
  });
});
