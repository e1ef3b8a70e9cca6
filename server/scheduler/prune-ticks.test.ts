// The ticks table used to grow forever (one row a minute): the scheduler now deletes old tick
// rows that no decision or action intent refers to.
import { expect, it } from 'vitest';
import { seedDemo } from '@/server/services/demo-seed-service';
import { pauseSimulator } from '@/server/integrations/providers/simulator';
import { insertDecisions } from '@/server/repositories/decision-repository';
import { tablesOf } from '@/server/repositories/dialect';
import { insertTick, listRecentTicks } from '@/server/repositories/scheduler-repository';
import { onBothDatabases } from '@/tests/support/both-databases';
import { fleetNow, runTickExclusive, TICK_RETENTION_MS } from './start';

const DAY_MS = 86_400_000;

onBothDatabases('tick pruning', (open) => {
  it('a tick deletes tick rows older than the retention that nothing refers to, at most once an hour', async () => {
    const db = await open();
    await seedDemo(db, new Date('2024-07-01T12:00:00Z'));
    await pauseSimulator(db, new Date()); // the simulated fleet clock stands still during the test
    const now = (await fleetNow(db)).getTime();
    const tick = async (ageMs: number) => await insertTick(db, { startedAt: new Date(now - ageMs), dryRun: true, holder: 'test' });
    const oldBare = await tick(TICK_RETENTION_MS + DAY_MS);
    const oldWithDecision = await tick(TICK_RETENTION_MS + DAY_MS);
    await insertDecisions(db, oldWithDecision, new Date(now - TICK_RETENTION_MS - DAY_MS), [
      { clusterName: 'x', action: 'skip', version: null, reason: null, message: 'kept', nextRun: null },
    ]);
    const oldWithIntent = await tick(TICK_RETENTION_MS + DAY_MS);
    await db.insert(tablesOf(db).actionIntents).values({
      idempotencyKey: 'k',
      tickId: oldWithIntent,
      kind: 'schedule-upgrade',
      clusterName: 'x',
      version: '4.12.1',
      status: 'done',
      createdAt: new Date(now),
    });
    const recentBare = await tick(TICK_RETENTION_MS - DAY_MS);

    const result = await runTickExclusive(db, { dryRun: true });
    expect(result.status).toBe('succeeded');
    const ids = async () => new Set((await listRecentTicks(db, 1000)).map((t) => t.id));
    expect((await ids()).has(oldBare)).toBe(false);
    const kept = await ids();
    expect([oldWithDecision, oldWithIntent, recentBare].every((id) => kept.has(id))).toBe(true);

    // Within the hour the next tick leaves a new old row alone; pruning reads every decision.
    const anotherOld = await tick(TICK_RETENTION_MS + DAY_MS);
    await runTickExclusive(db, { dryRun: true });
    expect((await ids()).has(anotherOld)).toBe(true);
  });
});
