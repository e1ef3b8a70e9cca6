// Activity's "Upgrades" tab: every lifecycle transition the scheduler takes, newest first, with
// the attempt's cluster and versions, filtered by cluster, state moved to and reason.
import { organizationScope } from './organization-scope';
import { expect, it } from 'vitest';
import type { Db } from '@/db/open-database';
import { createFakeProvider } from '@/server/integrations/providers/fake-provider';
import { runTick } from '@/server/scheduler/run-tick';
import { insertTestFleet } from '@/server/scheduler/test-fleet';
import { onBothDatabases } from '@/tests/support/both-databases';
import { createActivityService } from './activity-service';

const NOW = new Date('2021-08-30T18:00:00Z');
const MIN = 60_000;

async function upgradedFleet(db: Db) {
  const { fakeClusters } = await insertTestFleet(
    db,
    {
      clusters: [
        { name: 'c1', version: '4.13.1', releases: ['4.13.2'], soakDays: 0 },
        { name: 'c2', version: '4.13.1', releases: ['4.13.2'], soakDays: 0 },
      ],
    },
    NOW,
  );
  const provider = createFakeProvider({ clusters: fakeClusters });
  // c2 turns unhealthy after it was scheduled: its start is skipped
  for (const m of [0, 7, 8, 40, 41]) {
    if (m === 7) fakeClusters[1]!.healthIssues = ['ClusterOperator etcd Degraded'];
    await runTick({ db, provider, now: new Date(NOW.getTime() + m * MIN), holder: 'test', realNow: () => NOW });
  }
  return createActivityService(db, organizationScope(db));
}

onBothDatabases('activity.upgrades', (open) => {
  it('lists each transition once, newest first, with the cluster, versions, reason and its explanation', async () => {
    const activity = await upgradedFleet(await open());
    const all = await activity.upgrades({ offset: 0, limit: 50 });
    const c1 = all.rows.filter((r) => r.clusterName === 'c1').map((r) => r.toState);
    expect(c1).toEqual(['completed', 'post-checks', 'upgrading', 'started', 'pre-checks', 'scheduled']);
    const skipped = all.rows.find((r) => r.clusterName === 'c2' && r.toState === 'skipped')!;
    expect(skipped).toMatchObject({ fromVersion: '4.13.1', toVersion: '4.13.2', reason: 'UNHEALTHY', actor: 'scheduler:test' });
    expect(skipped.reasonText).toMatch(/\S/);
    expect(skipped.message).toContain('etcd');
    expect(all.total).toBe(all.rows.length);
    expect(all.states).toContain('timed-out');
    expect(all.reasons.find((r) => r.code === 'START_LATE')?.text).toMatch(/maxUpgradeStartDelay/);
  });

  it('filters by cluster, by the state moved to and by reason, and pages', async () => {
    const activity = await upgradedFleet(await open());
    expect((await activity.upgrades({ cluster: 'c2', offset: 0, limit: 50 })).rows.every((r) => r.clusterName === 'c2')).toBe(true);
    expect((await activity.upgrades({ action: 'completed', offset: 0, limit: 50 })).rows.map((r) => r.clusterName)).toEqual(['c1']);
    expect((await activity.upgrades({ reason: 'UNHEALTHY', offset: 0, limit: 50 })).rows.map((r) => r.toState)).toEqual(['skipped']);
    expect((await activity.upgrades({ cluster: 'c', offset: 0, limit: 50 })).total).toBe(0);
    const first = await activity.upgrades({ offset: 0, limit: 2 });
    const second = await activity.upgrades({ offset: 2, limit: 2 });
    expect(first.rows).toHaveLength(2);
    expect(second.rows[0]!.id).not.toBe(first.rows[1]!.id);
    expect(first.total).toBe(second.total);
  });
});
