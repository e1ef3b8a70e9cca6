// Deliveries run beside the tick, claimed once across processes (issue 11, point 11): two
// delivery loops on two connections to one database file send each event exactly once, and a
// receiver that never answers neither stalls the tick nor the other deliveries.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { parseSecretKey } from '@/server/crypto/secret-box';
import { createFakeProvider } from '@/server/integrations/providers/fake-provider';
import { listRecentTicks } from '@/server/repositories/scheduler-repository';
import { enqueueDeliveries, insertWebhook, listDeliveries } from '@/server/repositories/webhook-repository';
import { createOutboundDeliverer } from '@/server/services/outbound-delivery';
import { deliverDueWebhooks } from '@/server/services/webhook-service';
import { onBothDatabases } from '@/tests/support/both-databases';
import { waitFor } from '@/tests/support/wait-for';
import { startDeliveryLoop, type DeliveryLoop } from './delivery-loop';
import { createSchedulerLoop, type SchedulerLoop } from './start';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/**
 * A receiver counting deliveries by id; `hang` paths never answer. With `holdUntil`, the first
 * requests get no answer until that many are waiting at once (or `holdMs` passed): more than one
 * pass's concurrency can only be reached with another pass sending too.
 */
async function receiver(opts: { delayMs?: () => number; holdUntil?: number; holdMs?: number } = {}) {
  const byDelivery = new Map<string, number>();
  const hanging: http.ServerResponse[] = [];
  let held: (() => void)[] | undefined = opts.holdUntil === undefined ? undefined : [];
  let mostHeld = 0;
  const letGo = () => {
    for (const answer of held?.splice(0) ?? []) answer();
    held = undefined;
  };
  const holdTimer = opts.holdUntil === undefined ? undefined : setTimeout(letGo, opts.holdMs ?? 20_000);
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.url === '/hang') {
        hanging.push(res);
        return;
      }
      const id = String(req.headers['x-fleetplan-delivery']);
      byDelivery.set(id, (byDelivery.get(id) ?? 0) + 1);
      const answer = () => setTimeout(() => res.writeHead(204).end(), opts.delayMs?.() ?? 0);
      if (!held) return answer();
      held.push(answer);
      mostHeld = Math.max(mostHeld, held.length);
      if (held.length >= opts.holdUntil!) letGo();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  cleanups.push(
    () =>
      new Promise<void>((r) => {
        clearTimeout(holdTimer);
        letGo();
        for (const res of hanging) res.destroy();
        server.closeAllConnections();
        server.close(() => r());
      }),
  );
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  /** lets the hanging requests go (they fail), so nothing is in flight when the test ends */
  const release = () => {
    for (const res of hanging.splice(0)) res.destroy();
  };
  return { base, byDelivery, release, mostHeld: () => mostHeld };
}

const T0 = new Date();
// as every replica on PostgreSQL is given one (FLEETPLAN_SECRET_KEY); on SQLite it stands for the key file beside the database
const secretKey = parseSecretKey('ab'.repeat(32), 'the test key');

onBothDatabases('deliveries', (open, _kind, openTwice) => {
  describe('delivery claims across processes', () => {
    it('two passes running at once on two connections to one database send each event exactly once', async () => {
      const [a, b] = await openTwice();
      // The first answers wait until five requests are in at once, more than one pass's four: the
      // pass that starts first cannot finish every delivery before the other one starts, however
      // slowly the other one gets going (its first PostgreSQL query on a loaded machine).
      const rx = await receiver({ delayMs: () => Math.random() * 15, holdUntil: 5, holdMs: 20_000 });
      await insertWebhook(a, { name: 'ops', url: `${rx.base}/hook`, secret: 's3cret', events: [], enabled: true, createdAt: T0 });
      for (let i = 0; i < 40; i++) await enqueueDeliveries(a, 'scheduled', { cluster: `c${i}` }, T0);

      const [ra, rb] = await Promise.all([
        deliverDueWebhooks(a, { holder: 'proc-a', allowPrivate: true, concurrency: 4, timeoutMs: 30_000, secretKey }),
        deliverDueWebhooks(b, { holder: 'proc-b', allowPrivate: true, concurrency: 4, timeoutMs: 30_000, secretKey }),
      ]);

      expect(ra.delivered + rb.delivered).toBe(40);
      // both took part (the claim splits the work; it does not serialise it onto one process):
      // five sent at once, and each sent some
      expect(rx.mostHeld()).toBe(5);
      expect(Math.min(ra.delivered, rb.delivered)).toBeGreaterThan(0);
      expect(rx.byDelivery.size).toBe(40);
      expect([...rx.byDelivery.values()].every((n) => n === 1)).toBe(true);
      expect((await listDeliveries(a, { offset: 0, limit: 100 })).rows.every((r) => r.status === 'delivered')).toBe(true);
    });

    it('two delivery loops (as two server processes would run them) deliver each event exactly once', async () => {
      const [a, b] = await openTwice();
      const rx = await receiver({ delayMs: () => Math.random() * 10 });
      await insertWebhook(a, { name: 'ops', url: `${rx.base}/hook`, secret: 's3cret', events: [], enabled: true, createdAt: T0 });
      const loops: DeliveryLoop[] = [];
      for (const [db, holder] of [
        [a, 'proc-a'],
        [b, 'proc-b'],
      ] as const) {
        const deliver = createOutboundDeliverer({ allowPrivate: true, secretKey });
        loops.push(startDeliveryLoop({ deliverNext: () => deliver(db, holder), concurrency: 4, idleMs: 10 }));
      }
      cleanups.push(() => Promise.all(loops.map((l) => l.stop())));
      // events keep arriving while both loops run
      for (let i = 0; i < 60; i++) {
        await enqueueDeliveries(i % 2 ? a : b, 'scheduled', { cluster: `c${i}` }, new Date());
        if (i % 10 === 0) await new Promise((r) => setTimeout(r, 5));
      }
      await waitFor(async () => (await listDeliveries(a, { offset: 0, limit: 100 })).rows.every((r) => r.status === 'delivered'), 20_000);
      expect(rx.byDelivery.size).toBe(60);
      expect([...rx.byDelivery.entries()].filter(([, n]) => n !== 1)).toEqual([]);
    });
  });

  describe('deliveries beside the tick', () => {
    it('a receiver that never answers stalls neither the tick nor the other deliveries', async () => {
      const db = await open();
      const rx = await receiver();
      await insertWebhook(db, {
        name: 'stuck',
        url: `${rx.base}/hang`,
        secret: 's3cret',
        events: ['blocked'],
        enabled: true,
        createdAt: T0,
      });
      await insertWebhook(db, {
        name: 'fine',
        url: `${rx.base}/hook`,
        secret: 's3cret',
        events: ['scheduled'],
        enabled: true,
        createdAt: T0,
      });
      for (let i = 0; i < 3; i++) await enqueueDeliveries(db, 'blocked', { cluster: `stuck${i}` }, T0);
      for (let i = 0; i < 10; i++) await enqueueDeliveries(db, 'scheduled', { cluster: `c${i}` }, T0);

      const loop: SchedulerLoop = createSchedulerLoop({
        holder: 'proc-a',
        intervalMs: 100,
        firstTickDelayMs: 0,
        createProvider: () => Promise.resolve(createFakeProvider({ clusters: [] })),
        fleetNow: () => new Date(),
        deliverNext: createOutboundDeliverer({ allowPrivate: true, timeoutMs: 30_000, secretKey }),
        deliveryConcurrency: 4,
        deliveryIdleMs: 10,
        log: () => undefined,
      });
      cleanups.push(async () => {
        rx.release();
        await loop.stop();
      });
      loop.start(() => db);

      // five ticks 100 ms apart while three deliveries hang for 30 s each: the ticks came while
      // the three still hang (pending and in flight, below), so the hanging did not hold them
      await waitFor(() => rx.byDelivery.size === 10, 15_000);
      await waitFor(async () => (await listRecentTicks(db, 100)).length >= 5, 15_000);
      const stuck = (await listDeliveries(db, { offset: 0, limit: 100 })).rows.filter((r) => r.webhookName === 'stuck');
      expect(stuck.map((r) => r.status)).toEqual(['pending', 'pending', 'pending']);
      expect(loop.runtimeStatus().deliveriesInFlight).toBeGreaterThanOrEqual(3);
    });
  });
});
