// Readiness on each database: serving, and who leads, as the lease says.
import { expect, it } from 'vitest';
import { acquireLease, releaseLease, SCHEDULER_LEASE_NAME } from '@/server/repositories/scheduler-repository';
import { onBothDatabases } from '@/tests/support/both-databases';
import { checkReadiness } from './readiness-service';

const NOW = Date.parse('2026-11-27T08:00:00Z');
const TTL = 90_000;

onBothDatabases('readiness', (open, kind) => {
  it('is ready and names the leader: this replica, another one, or none once the lease expired or was released', async () => {
    const db = await open();
    const ask = (replica: string, nowMs = NOW) => checkReadiness(db, { replica, schedulerEnabled: true, nowMs });
    expect(await ask('a:1')).toEqual({ ready: true, replica: 'a:1', database: kind, leads: false, leader: null, scheduler: 'on' });
    await acquireLease(db, SCHEDULER_LEASE_NAME, 'a:1', NOW, TTL);
    const until = new Date(NOW + TTL).toISOString();
    expect(await ask('a:1')).toMatchObject({ ready: true, leads: true, leader: { holder: 'a:1', until } });
    expect(await ask('b:2')).toMatchObject({ ready: true, leads: false, leader: { holder: 'a:1', until } });
    // expired: nobody leads until a standby's next tick takes the lease
    expect(await ask('a:1', NOW + TTL)).toMatchObject({ leads: false, leader: null });
    await releaseLease(db, SCHEDULER_LEASE_NAME, 'a:1');
    expect(await ask('a:1')).toMatchObject({ leads: false, leader: null });
  });

  it('is not ready when the database does not answer', async () => {
    const db = await open();
    if (kind === 'sqlite') db.$client.close();
    else await (db.$client as unknown as { end(): Promise<void> }).end();
    const errors: unknown[] = [];
    const original = console.error;
    console.error = (...args: unknown[]) => errors.push(args);
    try {
      expect(await checkReadiness(db, { replica: 'a:1', schedulerEnabled: false, nowMs: NOW })).toEqual({
        ready: false,
        replica: 'a:1',
        database: 'unreachable',
      });
    } finally {
      console.error = original;
    }
    expect(errors).toHaveLength(1);
  });
});
