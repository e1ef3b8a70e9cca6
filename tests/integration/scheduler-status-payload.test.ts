// The Scheduler page polls scheduler.status every 5 s to show the last tick's counts. On 10,000
// clusters the last tick's decisions came along (1.6 MB per poll); the status carries the counts
// only, whatever the size of the fleet (the decisions are paged on the Activity page).
import { afterEach, expect, it } from 'vitest';
import { parseEnv } from '@/server/env';
import { createFakeProvider } from '@/server/integrations/providers/fake-provider';
import { createSchedulerLoop, type SchedulerLoop } from '@/server/scheduler/start';
import { insertTestFleet } from '@/server/scheduler/test-fleet';
import { createSchedulerService } from '@/server/services/scheduler-service';
import { onBothDatabases } from '@/tests/support/both-databases';

const NOW = new Date('2021-08-30T18:00:00Z');
const loops: SchedulerLoop[] = [];
afterEach(async () => {
  for (const l of loops.splice(0)) await l.stop();
});

onBothDatabases('scheduler.status', (open) => {
  it("carries the last tick's counts, not its decisions: a few hundred bytes for 500 clusters", async () => {
    const db = await open();
    const clusters = Array.from({ length: 500 }, (_, i) => ({
      name: `cluster-${String(i).padStart(3, '0')}`,
      version: '4.13.1',
      releases: ['4.13.2'],
      soakDays: 0,
    }));
    const { fakeClusters } = await insertTestFleet(db, { clusters }, NOW);
    const loop = createSchedulerLoop({
      holder: 'test',
      intervalMs: 60_000,
      createProvider: () => Promise.resolve(createFakeProvider({ clusters: fakeClusters })),
      fleetNow: () => NOW,
      log: () => undefined,
    });
    loops.push(loop);
    const outcome = await loop.runTick(db, { dryRun: false });
    expect(outcome).toMatchObject({ status: 'succeeded', summary: { decisionsRecorded: 500 } });
    const status = await createSchedulerService(db, () => NOW, parseEnv({}), loop).status();
    expect(status.runtime.lastResult).toMatchObject({ status: 'succeeded', summary: { decisionsRecorded: 500 } });
    expect(status.lastTick).toMatchObject({ status: 'succeeded' });
    const body = JSON.stringify(status);
    expect(body).not.toContain('cluster-4');
    expect(body.length).toBeLessThan(4_000);
  });
});
