// The scheduler lease (issue 11, point 11): its TTL follows the tick interval, the holder renews
// it every tick, a standby takes over within two intervals of the holder's death and at its next
// tick after the holder shut down (stop() releases it). A provider that cannot be built fails the
// tick visibly (point 10).
import { afterEach, describe, expect, it } from 'vitest';
import type { Db } from '@/db/open-database';
import { createFakeProvider } from '@/server/integrations/providers/fake-provider';
import { acquireLease, getLease, listRecentTicks, SCHEDULER_LEASE_NAME } from '@/server/repositories/scheduler-repository';
import { insertEmptyOrganization } from '@/server/repositories/organization-repository';
import { onBothDatabases } from '@/tests/support/both-databases';
import { waitFor } from '@/tests/support/wait-for';
import { createSchedulerLoop, leaseTtlMs, type SchedulerLoop, type SchedulerLoopOptions } from './start';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const INTERVAL_MS = 300;

function loop(db: Db, holder: string, extra: Partial<SchedulerLoopOptions> = {}): SchedulerLoop {
  const l = createSchedulerLoop({
    holder,
    intervalMs: INTERVAL_MS,
    firstTickDelayMs: 0,
    createProvider: () => Promise.resolve(createFakeProvider({ clusters: [] })),
    fleetNow: () => new Date(),
    log: () => undefined,
    ...extra,
  });
  l.start(() => db);
  cleanups.push(() => l.stop());
  return l;
}

const ticksBy = async (db: Db, holder: string) =>
  (await listRecentTicks(db, 1000)).filter((t) => t.holder === holder && t.status !== 'running');

/** A fleet clock that notes when each tick attempt began (a tick's row starts at its attempt's time). */
function attempts() {
  const at: number[] = [];
  return {
    at,
    fleetNow: () => {
      const now = new Date();
      at.push(now.getTime());
      return now;
    },
  };
}

describe('scheduler lease', () => {
  it('lives one and a half tick intervals', () => {
    expect(leaseTtlMs(2_000)).toBe(3_000);
    expect(leaseTtlMs(60_000)).toBe(90_000);
  });
});

onBothDatabases('scheduler lease', (_open, _kind, twoConnections) => {
  it('the holder renews it every tick: a standby never gets it while the holder runs', async () => {
    const [a, b] = await twoConnections();
    // a longer interval here: the lease outlives it by half of one, and a holder whose tick comes
    // later than that on a loaded machine has lost it, rightly (150 ms at 300 ms was too tight)
    const interval = { intervalMs: 1_000 };
    loop(a, 'proc-a', interval);
    await waitFor(async () => ((await ticksBy(a, 'proc-a')).length > 0 ? true : undefined), 10_000);
    const tries = attempts();
    loop(b, 'proc-b', { ...interval, fleetNow: tries.fleetNow });
    // the holder ticks on (renewing) while the standby keeps looking, over several lease lifetimes
    const since = (await ticksBy(a, 'proc-a')).length;
    await waitFor(async () => ((await ticksBy(a, 'proc-a')).length >= since + 3 ? true : undefined), 15_000);
    await waitFor(
      () => Promise.resolve(tries.at.length > 0 && Date.now() - tries.at[0]! > 2 * leaseTtlMs(interval.intervalMs) ? true : undefined),
      15_000,
    );
    expect(tries.at.length).toBeGreaterThan(1);
    expect(await ticksBy(b, 'proc-b')).toEqual([]);
    expect((await getLease(b, SCHEDULER_LEASE_NAME))?.holder).toBe('proc-a');
  });

  it('a standby takes over within two intervals of the holder dying right after a renewal', async () => {
    const [a, b] = await twoConnections();
    // a second-long interval: the standby's first look comes well before the lease expires, even on
    // a loaded machine, so what it does with a lease it finds taken is seen
    const intervalMs = 1_000;
    // the dead holder's last renewal, as its tick wrote it
    const diedAt = Date.now();
    const expiresAt = diedAt + leaseTtlMs(intervalMs);
    await acquireLease(a, SCHEDULER_LEASE_NAME, 'dead-proc', diedAt, leaseTtlMs(intervalMs));
    const tries = attempts();
    const standby = loop(b, 'proc-b', { intervalMs, fleetNow: tries.fleetNow });
    // when the standby, told the lease is taken, plans to look again, and when this saw that plan
    // (no earlier than the plan was made)
    const retries: { planned: number; seenAt: number }[] = [];
    const watching = setInterval(() => {
      const next = standby.runtimeStatus().nextTickAt;
      if (next && !retries.some((r) => r.planned === Date.parse(next))) retries.push({ planned: Date.parse(next), seenAt: Date.now() });
    }, 5);
    cleanups.push(() => clearInterval(watching));
    const first = await waitFor(async () => (await ticksBy(b, 'proc-b'))[0], 10_000);
    // taken by the first look after the lease expired: no look begun after it failed (on a loaded
    // machine a look may come late, so this is checked by what the standby did, not by the clock)
    expect(tries.at.filter((t) => t >= expiresAt && t < first.startedAt.getTime())).toEqual([]);
    // and a look that found the lease taken was followed by one planned for just after it expires
    // (25 ms), not a whole interval later: within two intervals of the death. A look that ended
    // after the expiry (late, on a loaded machine) plans the next 25 ms after itself instead.
    const last = retries.filter((r) => r.planned <= first.startedAt.getTime()).at(-1)!;
    expect(last.planned).toBeLessThanOrEqual(Math.max(expiresAt, last.seenAt) + 25 + 100);
    // which, for a look on time, is within two intervals of the death
    expect(leaseTtlMs(intervalMs) + 25 + 100).toBeLessThanOrEqual(2 * intervalMs);
  });

  it('stop() (SIGTERM/SIGINT in npm start) releases the lease: the standby takes over at its next tick', async () => {
    const [a, b] = await twoConnections();
    const holder = loop(a, 'proc-a');
    await waitFor(async () => ((await ticksBy(a, 'proc-a')).length > 0 ? true : undefined), 10_000);
    const tries = attempts();
    loop(b, 'proc-b', { fleetNow: tries.fleetNow });
    // the standby has begun looking while the lease is held (not a fixed wait: on a loaded machine
    // its first look, after reading the pause setting, can come later than any short sleep)
    await waitFor(() => Promise.resolve(tries.at.length > 0 ? true : undefined), 10_000);
    await holder.stop();
    const releasedAt = Date.now();
    // released: the row stays (its fencing token must keep rising), expired, unless the standby
    // has taken it already; proc-a holds no live lease either way
    const released = (await getLease(a, SCHEDULER_LEASE_NAME))!;
    expect(released.holder === 'proc-a' && released.expiresAt.getTime() > Date.now()).toBe(false);
    const first = await waitFor(async () => (await ticksBy(b, 'proc-b'))[0], 10_000);
    // the standby's first look begun after the release took the lease (its tick starts at that
    // look's time), long before the lease would have run out on its own: no later look failed
    expect(tries.at.filter((t) => t >= releasedAt && t < first.startedAt.getTime())).toEqual([]);
    expect(tries.at.filter((t) => t < releasedAt).length).toBeGreaterThan(0); // it was looking, and kept off while held
    expect((await getLease(b, SCHEDULER_LEASE_NAME))?.holder).toBe('proc-b');
  });

  it('a stop() that comes while the loop is about to tick is not followed by a tick: the lease stays released', async () => {
    const [a] = await twoConnections();
    let stopping: Promise<void> | undefined;
    let looks = 0;
    const holder = loop(a, 'proc-a', {
      // the second look: SIGTERM arrives while the loop reads whether ticks are paused
      pausedNow: () => {
        looks++;
        if (looks === 2) stopping = holder.stop();
        return Promise.resolve(false);
      },
    });
    await waitFor(() => Promise.resolve(stopping ? true : undefined), 5_000);
    await stopping;
    await new Promise((r) => setTimeout(r, 3 * INTERVAL_MS)); // a tick begun anyway would have ended by now
    expect((await ticksBy(a, 'proc-a')).length).toBe(1);
    expect(looks).toBe(2);
    const lease = (await getLease(a, SCHEDULER_LEASE_NAME))!;
    expect(lease.expiresAt.getTime()).toBeLessThanOrEqual(Date.now());
  });

  it('a provider that cannot be built makes a failed tick row with the reason, and a log line', async () => {
    const [a] = await twoConnections();
    // providers are built per organization: the instance's one serves the first
    await insertEmptyOrganization(a, 'unnamed', new Date());
    const errors: string[] = [];
    const l = loop(a, 'proc-a', {
      createProvider: () => Promise.reject(new Error('FLEETPLAN_OCM_TOKEN was refused by OCM (401)')),
      logError: (m) => errors.push(m),
    });
    const tick = await waitFor(async () => (await ticksBy(a, 'proc-a')).at(-1), 10_000);
    expect(tick).toMatchObject({
      status: 'failed',
      error: 'the provider could not be built: FLEETPLAN_OCM_TOKEN was refused by OCM (401)',
    });
    expect(errors).toContain('the provider could not be built: FLEETPLAN_OCM_TOKEN was refused by OCM (401)');
    expect(l.runtimeStatus().lastResult).toMatchObject({ status: 'failed' });
  });
});
