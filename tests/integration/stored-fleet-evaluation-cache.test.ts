// The views share one stored-fleet evaluation per data version and fleet minute (it costs about a
// second on 10,000 clusters). A write that changes the engine's input must show in the very next
// view, whichever path or connection wrote it; only time within the minute is allowed to pass
// unseen.
import { expect, it } from 'vitest';
import type { Db } from '@/db/open-database';
import { createFakeProvider } from '@/server/integrations/providers/fake-provider';
import { tablesOf } from '@/server/repositories/dialect';
import { findFirstOrganization } from '@/server/repositories/organization-repository';
import { withTransaction } from '@/server/repositories/transaction';
import { runTick } from '@/server/scheduler/run-tick';
import { insertTestFleet } from '@/server/scheduler/test-fleet';
import type { Actor } from '@/server/auth/actor';
import { createClusterExplainService } from '@/server/services/cluster-explain-service';
import { createExclusionService } from '@/server/services/exclusion-service';
import { createPolicyService } from '@/server/services/policies/policy-service';
import { organizationScope } from '@/server/services/organization-scope';
import { evaluateStoredFleet } from '@/server/services/stored-fleet-evaluation';
import { onBothDatabases } from '@/tests/support/both-databases';

const NOW = new Date('2021-08-30T18:00:00Z');
const ADMIN: Actor = { name: 'admin', role: 'admin', via: 'session', userId: 1 };

function fleetIn(db: Db) {
  return insertTestFleet(
    db,
    {
      clusters: [
        { name: 'a', version: '4.13.1', releases: ['4.13.2'], soakDays: 0 },
        { name: 'b', version: '4.13.1', releases: ['4.13.2'], soakDays: 0 },
      ],
    },
    NOW,
  );
}

async function setup(db: Db) {
  const { fakeClusters } = await fleetIn(db);
  const clock = () => NOW;
  return {
    db,
    fakeClusters,
    explain: createClusterExplainService(db, clock, organizationScope(db)),
    policies: createPolicyService(db, clock, clock, organizationScope(db)),
    exclusions: createExclusionService(db, clock, clock, organizationScope(db)),
    stored: async (at = NOW) => await evaluateStoredFleet(db, (await findFirstOrganization(db))!, at),
  };
}

const decisionOf = async (s: Awaited<ReturnType<typeof setup>>, cluster: string) =>
  (await s.explain.explain(cluster)).explanation?.decision;

onBothDatabases('the stored-fleet evaluation cache', (open, _kind, openTwice) => {
  it('repeated views in one fleet minute share one evaluation, at the start of the minute; the next minute evaluates again', async () => {
    const s = await setup(await open());
    const first = await s.stored();
    expect(await s.stored(new Date(NOW.getTime() + 59_000))).toBe(first);
    expect(first.ok && first.evaluation.now).toBe('2021-08-30T18:00:00Z');
    const later = await s.stored(new Date(NOW.getTime() + 60_000));
    expect(later).not.toBe(first);
    expect(later.ok && later.evaluation.now).toBe('2021-08-30T18:01:00Z');
  });

  it('a new fleet minute with the data unchanged does not load the fleet again: same validated input, new now', async () => {
    const s = await setup(await open());
    const first = await s.stored();
    const later = await s.stored(new Date(NOW.getTime() + 5 * 60_000));
    expect(first.ok && later.ok).toBe(true);
    if (!first.ok || !later.ok) return;
    expect(later.input.clusters).toBe(first.input.clusters);
    expect(later.input.now).toBe('2021-08-30T18:05:00Z');
    expect(later.view.now).toBe('2021-08-30T18:05:00Z');
    expect(later.evaluation.now).toBe('2021-08-30T18:05:00Z');
  });

  it('an exclusion that has ended by a later minute no longer gates it, without any write in between', async () => {
    const s = await setup(await open());
    await s.exclusions.create({
      scope: 'cluster',
      subject: 'a',
      startsAt: new Date(NOW.getTime() - 3_600_000),
      endsAt: new Date(NOW.getTime() + 10 * 60_000),
      reason: 'short window',
      actor: ADMIN,
    });
    const decision = async (at: Date) => {
      const stored = await s.stored(at);
      return stored.ok ? stored.evaluation.decisions.find((d) => d.cluster === 'a') : undefined;
    };
    expect(await decision(NOW)).toMatchObject({ action: 'skip', reason: 'EXCLUDED' });
    expect(await decision(new Date(NOW.getTime() + 10 * 60_000))).toMatchObject({ action: 'upgrade' });
  });

  it('a stored soak check-in ahead of the clock counts from the minute the clock passes it', async () => {
    const s = await setup(await open());
    await s.db.update(tablesOf(s.db).organizations).set({ soakCheckIn: new Date(NOW.getTime() + 60_000) });
    const before = await s.stored(NOW);
    const after = await s.stored(new Date(NOW.getTime() + 2 * 60_000));
    expect(before.ok && before.input.versionData.checkIn).toBeUndefined();
    expect(after.ok && after.input.versionData.checkIn).toBe('2021-08-30T18:01:00Z');
  });

  it('a cluster policy edit shows in the next view', async () => {
    const s = await setup(await open());
    expect(await decisionOf(s, 'a')).toMatchObject({ action: 'upgrade', version: '4.13.2' });
    const current = await s.policies.getClusterPolicy('a');
    const policy = { ...current.policy!, conditions: { ...current.policy!.conditions, soakDays: 30 } };
    await s.policies.updateClusterPolicy('admin', { name: 'a', expectedRevision: current.revision, policy });
    expect(await decisionOf(s, 'a')).not.toMatchObject({ action: 'upgrade' });
    const candidate = (await s.explain.explain('a')).explanation!.candidates.find((c) => c.version === '4.13.2')!;
    expect(candidate.soak).toMatchObject({ requiredDays: 30 });
  });

  it('a blocked version shows in the next view', async () => {
    const s = await setup(await open());
    expect(await decisionOf(s, 'a')).toMatchObject({ action: 'upgrade', version: '4.13.2' });
    await s.policies.addBlockedVersion('admin', { pattern: '^4\\.13\\.2$', reason: 'bad release' });
    expect(await decisionOf(s, 'a')).not.toMatchObject({ action: 'upgrade' });
    expect((await s.explain.explain('a')).explanation!.candidates.find((c) => c.version === '4.13.2')!.blockedBy).not.toBeNull();
  });

  it('a new exclusion shows in the next view', async () => {
    const s = await setup(await open());
    expect(await decisionOf(s, 'a')).toMatchObject({ action: 'upgrade' });
    await s.exclusions.create({
      scope: 'cluster',
      subject: 'a',
      startsAt: new Date(NOW.getTime() - 3_600_000),
      endsAt: new Date(NOW.getTime() + 3_600_000),
      reason: 'customer go-live',
      actor: ADMIN,
    });
    expect(await decisionOf(s, 'a')).toMatchObject({ action: 'skip', reason: 'EXCLUDED' });
    expect(await decisionOf(s, 'b')).toMatchObject({ action: 'upgrade' });
  });

  it('a freeze and its lifting show in the next view', async () => {
    const s = await setup(await open());
    expect(await decisionOf(s, 'a')).toMatchObject({ action: 'upgrade' });
    await s.policies.setFreeze('admin', { frozen: true, reason: 'change freeze' });
    expect(await decisionOf(s, 'a')).toMatchObject({ action: 'skip', reason: 'FROZEN' });
    await s.policies.setFreeze('admin', { frozen: false, reason: 'over' });
    expect(await decisionOf(s, 'a')).toMatchObject({ action: 'upgrade' });
  });

  it("a scheduler tick's writes show in the next view within the same minute", async () => {
    const s = await setup(await open());
    const before = await s.stored();
    expect(before.ok && before.input.clusters.find((c) => c.name === 'a')!.currentUpgrade).toBeUndefined();
    const provider = createFakeProvider({ clusters: s.fakeClusters });
    const tick = await runTick({ db: s.db, provider, now: NOW, holder: 'test', realNow: () => NOW });
    expect(tick.status).toBe('succeeded');
    const after = await s.stored();
    expect(after.ok && after.input.clusters.find((c) => c.name === 'a')!.currentUpgrade).toMatchObject({ version: '4.13.2' });
  });
  it('nothing read inside a transaction is kept: a rolled-back exclusion does not linger', async () => {
    const s = await setup(await open());
    await expect(
      withTransaction(s.db, async () => {
        await s.exclusions.create({
          scope: 'cluster',
          subject: 'a',
          startsAt: new Date(NOW.getTime() - 3_600_000),
          endsAt: new Date(NOW.getTime() + 3_600_000),
          reason: 'tentative',
          actor: ADMIN,
        });
        expect(await decisionOf(s, 'a')).toMatchObject({ action: 'skip', reason: 'EXCLUDED' });
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(await decisionOf(s, 'a')).toMatchObject({ action: 'upgrade' });
  });

  it('a commit by another connection (the CLI, a second process) shows in the next view', async () => {
    const [app, cli] = await openTwice();
    await fleetIn(app);
    const view = async () => (await createClusterExplainService(app, () => NOW, organizationScope(app)).explain('a')).explanation?.decision;
    expect(await view()).toMatchObject({ action: 'upgrade' });
    await createPolicyService(
      cli,
      () => NOW,
      () => NOW,
      organizationScope(cli),
    ).addBlockedVersion('cli', { pattern: '^4\\.13\\.2$', reason: 'from the CLI' });
    expect(await view()).not.toMatchObject({ action: 'upgrade' });
  });
});
