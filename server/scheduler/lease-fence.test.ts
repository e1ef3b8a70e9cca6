// The fence (issue 15, point 3): a replica that loses the scheduler lease mid-tick stops before
// acting. Another holder takes the lease at two moments of a tick that is about to start an
// upgrade: while the fleet is read, and while the cluster is read fresh for its start; the check
// inside the step's transaction stops both (the second fails without it). Each
// time the deposed holder writes nothing to the provider and records no step; the new holder then
// starts the upgrade once. The check before each provider write is tested on its own below.
import { expect, it } from 'vitest';
import type { Db } from '@/db/open-database';
import { createFakeProvider } from '@/server/integrations/providers/fake-provider';
import type { FleetProvider } from '@/server/integrations/providers/types';
import { acquireLease, SCHEDULER_LEASE_NAME } from '@/server/repositories/scheduler-repository';
import { createLeaseFence, fenceProviderWrites, LeaseLostError } from './lease-fence';
import { onBothDatabases } from '@/tests/support/both-databases';
import { DEFAULT_LEASE_TTL_MS, runTick } from './run-tick';
import { fleetRows, insertTestFleet } from './test-fleet';

const NOW = new Date('2021-08-30T18:00:00Z'); // decisions at NOW take the slot 18:07
const MIN = 60_000;
/** the first holder's clock in the tick that loses the lease */
const DEPOSED_NOW = NOW.getTime() + 1_000;
/** the standby's clock: after the first holder's lease (renewed at DEPOSED_NOW) expired */
const STANDBY_NOW = DEPOSED_NOW + DEFAULT_LEASE_TTL_MS + 1;

const standbyTakesOver = (db: Db) => acquireLease(db, SCHEDULER_LEASE_NAME, 'standby', STANDBY_NOW, DEFAULT_LEASE_TTL_MS);

/** `provider` with `method` taking the lease for the standby before it answers */
function takeoverDuring(db: Db, provider: FleetProvider, method: 'observe' | 'observeCluster'): FleetProvider {
  return new Proxy(provider, {
    get(target, prop) {
      const value: unknown = Reflect.get(target, prop, target);
      if (typeof value !== 'function') return value;
      const fn = value as (...args: unknown[]) => unknown;
      if (prop !== method) return fn.bind(target);
      return async (...args: unknown[]) => {
        expect((await standbyTakesOver(db)).acquired).toBe(true);
        return await fn.apply(target, args);
      };
    },
  });
}

onBothDatabases('the lease fence', (open) => {
  async function setup() {
    const db = await open();
    const { fakeClusters } = await insertTestFleet(
      db,
      { clusters: [{ name: 'c1', version: '4.13.1', releases: ['4.13.2'], soakDays: 0 }] },
      NOW,
    );
    const fake = createFakeProvider({ clusters: fakeClusters });
    const tick = (holder: string, provider: FleetProvider, realNowMs: number) =>
      runTick({ db, provider, now: new Date(NOW.getTime() + 7 * MIN), holder, realNow: () => new Date(realNowMs) });
    return { db, read: fleetRows(db), fake, tick };
  }

  it.each(['observe', 'observeCluster'] as const)(
    'the lease taken over during %s: the deposed holder starts nothing and records no step; the new one starts once',
    async (moment) => {
      const { db, read, fake, tick } = await setup();
      expect((await runTick({ db, provider: fake, now: NOW, holder: 'first', realNow: () => NOW })).status).toBe('succeeded');
      expect(await read.attempt()).toMatchObject({ state: 'scheduled' });

      const deposed = await tick('first', takeoverDuring(db, fake, moment), DEPOSED_NOW);
      expect(deposed.status).toBe('failed');
      expect(deposed.status === 'failed' && deposed.error).toMatch(/^lost the scheduler lease \(first, fencing token 1\)/);
      expect(fake.records()).toEqual([]);
      expect(await read.attempt()).toMatchObject({ state: 'scheduled' });
      expect(await read.intents()).toEqual([]);

      expect((await tick('standby', fake, STANDBY_NOW + 1_000)).status).toBe('succeeded');
      expect(fake.records().filter((r) => r.op === 'trigger')).toEqual([expect.objectContaining({ cluster: 'c1', version: '4.13.2' })]);
      expect(await read.intents()).toEqual([expect.objectContaining({ kind: 'start-upgrade', status: 'done' })]);
    },
  );

  it('passes reads through and checks every write, renewing a lease with less than half its time left', async () => {
    const db = await open();
    const ttlMs = 10_000;
    let nowMs = 1_000_000;
    const taken = await acquireLease(db, SCHEDULER_LEASE_NAME, 'a', nowMs, ttlMs);
    const fence = createLeaseFence(
      { name: SCHEDULER_LEASE_NAME, holder: 'a', fencingToken: taken.fencingToken },
      { ttlMs, realNow: () => new Date(nowMs) },
    );
    const calls: string[] = [];
    const provider = fenceProviderWrites(
      {
        name: 'probe',
        startLeadMs: 0,
        minStartNoticeMs: 0,
        observe: () => Promise.resolve((calls.push('observe'), { clusters: [] }) as never),
        observeCluster: () => Promise.reject(new Error('unused')),
        startUpgrade: () => Promise.resolve(void calls.push('start')),
        cancelUpgrade: () => Promise.resolve(void calls.push('cancel')),
      },
      fence,
      db,
    );
    expect(provider.name).toBe('probe');
    await provider.startUpgrade(
      { externalId: 'x', name: 'x', version: '1.0.1', at: new Date(nowMs), idempotencyKey: 'k' },
      new Date(nowMs),
    );
    nowMs += 6_000; // 4 s left: the write renews first
    await provider.cancelUpgrade({ externalId: 'x', name: 'x', version: '1.0.1', idempotencyKey: 'k' }, new Date(nowMs));
    const [row] = await db.select().from(fleetRows(db).t.schedulerLeases);
    expect(row!.expiresAt.getTime()).toBe(nowMs + ttlMs);
    nowMs += ttlMs; // lapsed: a standby takes it
    await acquireLease(db, SCHEDULER_LEASE_NAME, 'b', nowMs, ttlMs);
    await expect(
      provider.cancelUpgrade({ externalId: 'x', name: 'x', version: '1.0.1', idempotencyKey: 'k' }, new Date(nowMs)),
    ).rejects.toBeInstanceOf(LeaseLostError);
    await provider.observe(new Date(nowMs)); // reads never need the lease
    expect(calls).toEqual(['start', 'cancel', 'observe']);
  });
});
