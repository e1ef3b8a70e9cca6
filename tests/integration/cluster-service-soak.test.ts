// The Fleet table's soak column reads the engine's verdicts (evaluateFleet). It used to list every
// newer offered version below its threshold from the stored soak, blocked ones included (a version
// the engine will never pick), and without the soak gained since the last tick.
import { organizationScope } from '@/server/services/organization-scope';
import { expect, it } from 'vitest';
import { saveVersionData } from '@/server/repositories/soak-repository';
import { insertTestFleet } from '@/server/scheduler/test-fleet';
import { createClusterService } from '@/server/services/cluster-service';
import { onBothDatabases } from '@/tests/support/both-databases';

const NOW = new Date('2021-08-30T18:00:00Z');
const DAY = 86_400_000;

onBothDatabases("the Fleet table's soak column", (open) => {
  it('lists unblocked candidates short of the threshold with the soak accumulated up to now', async () => {
    const db = await open();
    const { organizationId } = await insertTestFleet(
      db,
      {
        blocked: ['^4\\.13\\.4$'],
        clusters: [
          { name: 'runner', version: '4.13.3', releases: [], soakDays: 0 },
          { name: 'waiter', version: '4.13.1', releases: ['4.13.2', '4.13.3', '4.13.4'], soakDays: 3 },
        ],
      },
      NOW,
    );
    // the last tick, a day ago, stored 1 day of soak for 4.13.3 (runner reporting): 2 days now
    await saveVersionData(
      db,
      organizationId,
      { versions: { '4.13.3': { workloads: { wl: { soakDays: 1, reporting: ['runner'] } } } } },
      new Date(NOW.getTime() - DAY),
    );
    const service = createClusterService(db, () => NOW, organizationScope(db));
    const waiter = (await service.list({ filter: {}, sort: 'name', direction: 'asc', offset: 0, limit: 10 })).items.find(
      (c) => c.name === 'waiter',
    )!;
    expect(waiter.soakingUpgrades).toEqual([
      { version: '4.13.3', soakDays: 2, requiredDays: 3 },
      { version: '4.13.2', soakDays: 0, requiredDays: 3 },
    ]);
    expect((await service.byName('waiter')).soakingUpgrades).toEqual(waiter.soakingUpgrades);
  });
});
