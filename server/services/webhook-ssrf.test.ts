// The webhook SSRF guard over real loopback HTTP: what is refused when a webhook is saved, what
// is refused again at delivery (stored rows, DNS rebinding), that the connection goes to the
// address that was checked, that redirects are not followed, and that the delivery log reads the
// same for a refused target whether a port is open or not (no port-scanning oracle).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '@/db/open-database';
import * as t from '@/db/schema';
import { enqueueDeliveries, insertWebhook } from '@/server/repositories/webhook-repository';
import type { ResolveHost } from '@/server/integrations/webhooks/send-webhook';
import { deliverDueWebhooks, validateWebhookUrl } from './webhook-service';

interface Receiver {
  port: number;
  requests: { host: string | undefined; url: string | undefined }[];
}

const servers: http.Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

async function receiver(answer: (res: http.ServerResponse) => void = (res) => res.writeHead(204).end()): Promise<Receiver> {
  const requests: Receiver['requests'] = [];
  const server = http.createServer((req, res) => {
    requests.push({ host: req.headers.host, url: req.url });
    req.resume();
    req.on('end', () => answer(res));
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { port: (server.address() as AddressInfo).port, requests };
}

/** a port nothing listens on (bound, then closed) */
async function closedPort(): Promise<number> {
  const s = http.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as AddressInfo).port;
  await new Promise((r) => s.close(r));
  return port;
}

const T0 = new Date('2024-01-01T00:00:00Z');

async function dbWithHook(url: string): Promise<Db> {
  const db = openDatabase(':memory:');
  await insertWebhook(db, { name: 'hook', url, secret: 'a-plain-legacy-secret', events: [], enabled: true, createdAt: T0 });
  await enqueueDeliveries(db, 'scheduled', { cluster: 'c1' }, T0);
  return db;
}

const table = (entries: Record<string, string[]>): ResolveHost => {
  return (name) => Promise.resolve(entries[name] ?? []);
};

const lastDelivery = (db: Db) => db.select().from(t.webhookDeliveries).get()!;

describe('saving a webhook refuses every spelling of a non-public target', () => {
  it.each([
    'http://[::ffff:127.0.0.1]:8080/',
    'http://[::ffff:7f00:1]/',
    'http://[::ffff:0:127.0.0.1]/',
    'http://[::127.0.0.1]/',
    'http://[64:ff9b::127.0.0.1]/',
    'http://[64:ff9b::a9fe:a9fe]/latest/meta-data',
    'http://[2002:7f00:1::]/',
    'http://2130706433/',
    'http://0177.0.0.1/',
    'http://0x7f.1/',
    'http://127.1/',
    'http://0/',
    'http://169.254.169.254/latest/meta-data',
    'http://[fd00::1]/',
    'http://100.64.1.1/',
    'http://198.18.0.1/',
    'http://192.0.2.10/',
    'http://224.0.0.1/',
    'http://localhost./',
    'http://LOCALHOST/',
    'http://api.localhost/',
  ])('%s', async (url) => {
    await expect(validateWebhookUrl(url, { webhookAllowPrivate: false }, table({}))).rejects.toMatchObject({ code: 'INVALID_INPUT' });
  });

  it('refuses names that resolve to a non-public address, or to none', async () => {
    const resolve = table({ 'hooks.example.com': ['93.184.216.34'], 'mixed.example.com': ['93.184.216.34', '10.0.0.7'] });
    await expect(validateWebhookUrl('https://mixed.example.com/x', { webhookAllowPrivate: false }, resolve)).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      message: expect.stringContaining('private') as unknown,
    });
    await expect(validateWebhookUrl('https://nowhere.example.com/x', { webhookAllowPrivate: false }, resolve)).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      message: expect.stringContaining('does not resolve') as unknown,
    });
    await expect(
      validateWebhookUrl('https://x.example/', { webhookAllowPrivate: false }, () => Promise.reject(new Error('ENOTFOUND'))),
    ).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    expect((await validateWebhookUrl('https://hooks.example.com/x', { webhookAllowPrivate: false }, resolve)).hostname).toBe(
      'hooks.example.com',
    );
    expect((await validateWebhookUrl('http://[2606:4700:4700::1111]/x', { webhookAllowPrivate: false }, resolve)).hostname).toBe(
      '[2606:4700:4700::1111]',
    );
  });

  it('allows private targets with FLEETPLAN_WEBHOOK_ALLOW_PRIVATE=1', async () => {
    const env = { webhookAllowPrivate: true };
    expect((await validateWebhookUrl('http://[::ffff:127.0.0.1]:9/x', env, table({}))).port).toBe('9');
    expect((await validateWebhookUrl('http://10.0.0.1/x', env, table({}))).hostname).toBe('10.0.0.1');
  });
});

describe('delivering re-checks the target and pins the checked address', () => {
  it('refuses a stored IPv4-mapped loopback URL without connecting, the same for open and closed ports', async () => {
    const open = await receiver();
    const closed = await closedPort();
    const viaOpen = await dbWithHook(`http://[::ffff:127.0.0.1]:${open.port}/hook`);
    const viaClosed = await dbWithHook(`http://[::ffff:127.0.0.1]:${closed}/hook`);
    await deliverDueWebhooks(viaOpen, { realNow: T0, allowPrivate: false });
    await deliverDueWebhooks(viaClosed, { realNow: T0, allowPrivate: false });
    expect(open.requests).toEqual([]);
    const a = lastDelivery(viaOpen);
    const b = lastDelivery(viaClosed);
    expect(a).toMatchObject({
      status: 'pending',
      attempts: 1,
      lastStatusCode: null,
      lastError: 'refused: the target is not a public address',
    });
    expect([b.lastStatusCode, b.lastError]).toEqual([a.lastStatusCode, a.lastError]);
  });

  it('refuses a name that resolved to a public address when saved but to loopback at delivery (DNS rebinding)', async () => {
    const target = await receiver();
    const url = `http://rebind.example.com:${target.port}/hook`;
    await validateWebhookUrl(url, { webhookAllowPrivate: false }, table({ 'rebind.example.com': ['93.184.216.34'] }));
    const db = await dbWithHook(url);
    await deliverDueWebhooks(db, { realNow: T0, allowPrivate: false, resolve: table({ 'rebind.example.com': ['127.0.0.1'] }) });
    expect(target.requests).toEqual([]);
    expect(lastDelivery(db).lastError).toBe('refused: the target is not a public address');
  });

  it('connects to the address its own resolver checked, with the name as Host', async () => {
    const target = await receiver();
    // `.test` never resolves through the system resolver: only our lookup can send this anywhere
    const db = await dbWithHook(`http://hooks.fleetplan.test:${target.port}/in?x=1`);
    const r = await deliverDueWebhooks(db, { realNow: T0, allowPrivate: true, resolve: table({ 'hooks.fleetplan.test': ['127.0.0.1'] }) });
    expect(r.delivered).toBe(1);
    expect(target.requests).toEqual([{ host: `hooks.fleetplan.test:${target.port}`, url: '/in?x=1' }]);
  });

  it('records a name that stops resolving as such, without connecting', async () => {
    const db = await dbWithHook('http://gone.fleetplan.test/hook');
    await deliverDueWebhooks(db, { realNow: T0, allowPrivate: false, resolve: table({}) });
    expect(lastDelivery(db)).toMatchObject({ lastStatusCode: null, lastError: 'refused: the host name does not resolve' });
  });

  it('does not follow redirects', async () => {
    const inside = await receiver();
    const outside = await receiver((res) => res.writeHead(302, { location: `http://127.0.0.1:${inside.port}/admin` }).end());
    const db = await dbWithHook(`http://127.0.0.1:${outside.port}/hook`);
    await deliverDueWebhooks(db, { realNow: T0, allowPrivate: true });
    expect(outside.requests).toHaveLength(1);
    expect(inside.requests).toEqual([]);
    expect(lastDelivery(db)).toMatchObject({ status: 'pending', lastStatusCode: 302, lastError: 'HTTP 302: redirects are not followed' });
  });

  it('records connection failures to allowed targets as one generic kind', async () => {
    const db = await dbWithHook(`http://127.0.0.1:${await closedPort()}/hook`);
    await deliverDueWebhooks(db, { realNow: T0, allowPrivate: true });
    expect(lastDelivery(db)).toMatchObject({ lastStatusCode: null, lastError: 'delivery failed: could not connect' });
  });
});
