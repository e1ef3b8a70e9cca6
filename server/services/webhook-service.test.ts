import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '@/db/open-database';
import * as t from '@/db/schema';
import { enqueueDeliveries, insertWebhook } from '@/server/repositories/webhook-repository';
import { backoffMs, deliverDueWebhooks, signBody, validateWebhookUrl } from './webhook-service';

const servers: http.Server[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.close();
});

describe('webhook delivery', () => {
  it('signs the JSON body with HMAC-SHA256 and retries with backoff until delivered', async () => {
    const received: { body: string; signature: string | undefined; event: string | undefined }[] = [];
    let failuresLeft = 2;
    const server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        received.push({
          body,
          signature: req.headers['x-fleetplan-signature'] as string | undefined,
          event: req.headers['x-fleetplan-event'] as string | undefined,
        });
        res.writeHead(failuresLeft-- > 0 ? 503 : 204).end();
      });
    });
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    const db = openDatabase(':memory:');
    const t0 = new Date('2024-01-01T00:00:00Z');
    await insertWebhook(db, { name: 'ops', url, secret: 's3cret', events: ['scheduled'], enabled: true, createdAt: t0 });
    expect(await enqueueDeliveries(db, 'scheduled', { cluster: 'c1', version: '4.13.2' }, t0)).toBe(1);
    expect(await enqueueDeliveries(db, 'started', { cluster: 'c1' }, t0)).toBe(0); // not subscribed

    expect(await deliverDueWebhooks(db, { realNow: t0, backoffBaseMs: 1000, allowPrivate: true })).toEqual({
      delivered: 0,
      failed: 0,
      retrying: 1,
    });
    expect(await deliverDueWebhooks(db, { realNow: new Date(t0.getTime() + 500), backoffBaseMs: 1000, allowPrivate: true })).toEqual({
      delivered: 0,
      failed: 0,
      retrying: 0,
    }); // not due yet
    expect(await deliverDueWebhooks(db, { realNow: new Date(t0.getTime() + 1000), backoffBaseMs: 1000, allowPrivate: true })).toMatchObject(
      { retrying: 1 },
    );
    expect(await deliverDueWebhooks(db, { realNow: new Date(t0.getTime() + 3000), backoffBaseMs: 1000, allowPrivate: true })).toMatchObject(
      { delivered: 1 },
    );

    expect(received).toHaveLength(3);
    // every send of the event carries the same id (receivers de-duplicate by it) and its attempt
    const bodies = received.map((r) => JSON.parse(r.body) as { id: number; attempt: number });
    expect(new Set(bodies.map((b) => b.id)).size).toBe(1);
    expect(bodies.map((b) => b.attempt)).toEqual([1, 2, 3]);
    for (const r of received) {
      expect(r.event).toBe('scheduled');
      expect(r.signature).toBe(`sha256=${crypto.createHmac('sha256', 's3cret').update(r.body).digest('hex')}`);
      expect(JSON.parse(r.body)).toMatchObject({ event: 'scheduled', data: { cluster: 'c1', version: '4.13.2' } });
    }
    expect(db.select().from(t.webhookDeliveries).get()).toMatchObject({ status: 'delivered', attempts: 3, lastStatusCode: 204 });
  });

  it('backs off exponentially', () => {
    expect([1, 2, 3, 4].map((n) => backoffMs(n, 1000))).toEqual([1000, 2000, 4000, 8000]);
    expect(signBody('k', '{}')).toMatch(/^sha256=[0-9a-f]{64}$/);
  });

  it('refuses non-http and private targets unless allowed', async () => {
    await expect(validateWebhookUrl('ftp://example.com/x', { webhookAllowPrivate: false })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
    await expect(validateWebhookUrl('http://127.0.0.1:9/x', { webhookAllowPrivate: false })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
    await expect(validateWebhookUrl('http://[::1]/x', { webhookAllowPrivate: false })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(validateWebhookUrl('http://169.254.169.254/latest', { webhookAllowPrivate: false })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
    await expect(validateWebhookUrl('http://localhost/x', { webhookAllowPrivate: false })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    expect((await validateWebhookUrl('http://127.0.0.1:9/x', { webhookAllowPrivate: true })).host).toBe('127.0.0.1:9');
    expect((await validateWebhookUrl('https://93.184.216.34/hook', { webhookAllowPrivate: false })).protocol).toBe('https:');
  });
});
