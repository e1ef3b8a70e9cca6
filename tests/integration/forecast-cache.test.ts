// The forecast is kept by what it depends on (the stored data and the request's options), not by
// the fleet clock: paging through it a minute later must not simulate 10,000 clusters again,
// while any write, or the clock moving an hour past its start, must.
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import type { Db } from '@/db/open-database';
import { affectedRows, tablesOf } from '@/server/repositories/dialect';
import { seedDemo } from '@/server/services/demo-seed-service';
import { createForecastService, type ForecastRunOptions } from '@/server/services/forecast-service';
import { createPolicyService } from '@/server/services/policies/policy-service';
import { createExclusionService } from '@/server/services/exclusion-service';
import { organizationScope } from '@/server/services/organization-scope';
import { acquireLease, finishTick, insertTick, writeSetting, HEALTH_GATE_SETTING } from '@/server/repositories/scheduler-repository';
import { closeConnection, onBothDatabases, type OpenTwice } from '@/tests/support/both-databases';

const NOW = new Date('2024-07-10T08:00:00Z');
const MINUTE = 60_000;

const seedDemoFleet = (db: Db) => seedDemo(db, NOW);

/** the demo fleet (seeded once per file: each test has a copy) and the services a forecast page uses */
async function setupOn(openTwice: OpenTwice) {
  const [db, spare] = await openTwice(seedDemoFleet);
  await closeConnection(spare);
  let clock = NOW;
  let wallClock = NOW.getTime();
  const forecast = createForecastService(db, () => new Date(clock), organizationScope(db), { realNowMs: () => wallClock });
  const policies = createPolicyService(
    db,
    () => clock,
    () => clock,
    organizationScope(db),
  );
  const page = (more: { offset?: number; sector?: string; search?: string } = {}, runOptions: ForecastRunOptions = {}) =>
    forecast.run({ horizonDays: 30, upgradeMinutes: 90, offset: 0, limit: 5, ...more }, runOptions);
  const exclusions = createExclusionService(
    db,
    () => clock,
    () => clock,
    organizationScope(db),
  );
  return {
    db,
    page,
    policies,
    exclusions,
    setClock: (at: Date) => (clock = at),
    /** the wall clock moves on by `ms` */
    wait: (ms: number) => (wallClock += ms),
  };
}

onBothDatabases('the forecast cache', (_open, _kind, openTwice) => {
  const setup = () => setupOn(openTwice);

  it('a later fleet minute with the data unchanged pages and filters the kept forecast', async () => {
    const s = await setup();
    const first = await s.page();
    expect(first.cached).toBe(false);
    // where computing it went, as the bench prints it: the simulation is the time the page shows
    expect(first.elapsedMs).toBe(first.phasesMs.simulate);
    expect(Object.values(first.phasesMs).every((ms) => Number.isInteger(ms) && ms >= 0)).toBe(true);
    s.setClock(new Date(NOW.getTime() + 5 * MINUTE));
    const next = await s.page({ offset: 5 });
    expect(next.cached).toBe(true);
    expect(next.phasesMs).toEqual(first.phasesMs); // the kept forecast's, not this request's
    expect(next.from).toBe(first.from);
    expect(next.rows[0]!.cluster).not.toBe(first.rows[0]!.cluster);
    const sector = first.rows[0]!.sector!;
    const filtered = await s.page({ sector, search: first.rows[0]!.cluster.slice(0, 4) });
    expect(filtered.cached).toBe(true);
    expect(filtered.total).toBeGreaterThan(0);
    expect(filtered.total).toBeLessThan(first.total);
    expect(filtered.rows.every((r) => r.sector === sector)).toBe(true);
  });

  it('a write to the policies forecasts again', async () => {
    const s = await setup();
    expect((await s.page()).stats.upgrades).toBeGreaterThan(0);
    await s.policies.addBlockedVersion('admin', { pattern: '.*', reason: 'stop everything' });
    const after = await s.page();
    expect(after.cached).toBe(false);
    expect(after.stats.upgrades).toBe(0);
  });

  it('the clock an hour past the kept forecast, or before it, forecasts again from the new minute', async () => {
    const s = await setup();
    const first = await s.page();
    s.setClock(new Date(NOW.getTime() + 60 * MINUTE));
    // the simulator's clock runs an hour a minute: paging within a few minutes keeps the forecast
    s.wait(2 * MINUTE);
    expect((await s.page({ offset: 5 })).cached).toBe(true);
    s.wait(MINUTE);
    const later = await s.page();
    expect(later.cached).toBe(false);
    expect(later.from).not.toBe(first.from);
    s.setClock(NOW);
    expect((await s.page()).cached).toBe(false);
  });

  it("the scheduler's own bookkeeping (its lease, a tick row) keeps the kept forecast", async () => {
    const s = await setup();
    expect((await s.page()).cached).toBe(false);
    await acquireLease(s.db, 'scheduler', 'replica-a', NOW.getTime(), 30_000);
    const tick = await insertTick(s.db, { startedAt: NOW, dryRun: true, holder: 'replica-a' });
    await finishTick(s.db, tick, { finishedAt: NOW, status: 'succeeded', summary: { decisions: 0 } });
    expect((await s.page({ offset: 5 })).cached).toBe(true);
  });

  it('an exclusion or the health gate switched off forecasts again', async () => {
    const s = await setup();
    await s.page();
    await s.exclusions.create({
      scope: 'organization',
      startsAt: new Date(NOW.getTime() + 60 * MINUTE),
      endsAt: new Date(NOW.getTime() + 3 * 24 * 60 * MINUTE),
      reason: 'quarter end',
      actor: { name: 'admin', role: 'admin', via: 'session' },
    });
    expect((await s.page()).cached).toBe(false);
    expect((await s.page()).cached).toBe(true);
    await writeSetting(s.db, HEALTH_GATE_SETTING, false, NOW);
    expect((await s.page()).cached).toBe(false);
  });

  describe("served stale while the new one is computed (the server's forecast thread)", () => {
    /** the fleet reports something new: a cluster's version moves (what a tick's snapshot writes) */
    const clusterMoves = async (db: Db, name: string, version: string) => {
      const { clusters } = tablesOf(db);
      return affectedRows(await db.update(clusters).set({ version }).where(eq(clusters.name, name)));
    };

    it('a change the fleet reports is answered at once with the last forecast, then with the new one', async () => {
      const s = await setup();
      const background: Promise<unknown>[] = [];
      const serveStale: ForecastRunOptions = { serveStale: true, onBackgroundWork: (work) => void background.push(work) };
      const first = await s.page({}, serveStale);
      expect(first.stale).toBe(false);
      const moved = first.rows[0]!;
      expect(await clusterMoves(s.db, moved.cluster, '4.99.0')).toBe(1);
      s.setClock(new Date(NOW.getTime() + 5 * MINUTE));

      const meanwhile = await s.page({}, serveStale);
      expect(meanwhile.stale).toBe(true);
      expect(meanwhile.from).toBe(first.from);
      expect(meanwhile.rows.find((r) => r.cluster === moved.cluster)!.startVersion).toBe(moved.startVersion);
      expect(background).toHaveLength(1);
      // asked again while it is computed: still the last one, no second computation
      expect((await s.page({ offset: 5 }, serveStale)).stale).toBe(true);
      expect(background).toHaveLength(1);

      await Promise.all(background);
      const after = await s.page({ search: moved.cluster }, serveStale);
      expect(after.stale).toBe(false);
      expect(after.from).not.toBe(first.from);
      expect(after.rows.find((r) => r.cluster === moved.cluster)!.startVersion).toBe('4.99.0');
    });

    it('a change of configuration is never answered with a forecast from before it', async () => {
      const s = await setup();
      const serveStale: ForecastRunOptions = { serveStale: true };
      expect((await s.page({}, serveStale)).stats.upgrades).toBeGreaterThan(0);
      await s.policies.addBlockedVersion('admin', { pattern: '.*', reason: 'stop everything' });
      const after = await s.page({}, serveStale);
      expect(after.stale).toBe(false);
      expect(after.cached).toBe(false);
      expect(after.stats.upgrades).toBe(0);
    });

    it('a caller that does not allow it waits for the new forecast', async () => {
      const s = await setup();
      const first = await s.page();
      await clusterMoves(s.db, first.rows[0]!.cluster, '4.99.0');
      const after = await s.page();
      expect(after.stale).toBe(false);
      expect(after.cached).toBe(false);
    });

    it('a forecast older than ten minutes of wall time is not shown stale', async () => {
      const s = await setup();
      const serveStale: ForecastRunOptions = { serveStale: true };
      const first = await s.page({}, serveStale);
      await clusterMoves(s.db, first.rows[0]!.cluster, '4.99.0');
      s.wait(11 * MINUTE);
      const after = await s.page({}, serveStale);
      expect(after.stale).toBe(false);
      expect(after.cached).toBe(false);
    });
  });
});
