// Webhook secrets at rest: encrypted when saved, plain-text rows from older databases encrypted
// once, signatures made with the decrypted secret, and a wrong key named as such (no request).
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openDatabase, type Db } from '@/db/open-database';
import * as t from '@/db/schema';
import { insertEmptyOrganization } from '@/server/repositories/organization-repository';
import { createCaller } from '@/server/api/root';
import { createContextInner } from '@/server/api/trpc';
import type { Actor } from '@/server/auth/actor';
import { secretKeyFromBytes } from '@/server/crypto/secret-box';
import { loadSecretKey, secretKeyFileFor } from '@/server/crypto/server-secret-key';
import { parseEnv } from '@/server/env';
import { enqueueDeliveries, insertWebhook } from '@/server/repositories/webhook-repository';
import { deliverDueWebhooks, encryptPlaintextWebhookSecrets } from './webhook-service';

const admin: Actor = { name: 'ada', role: 'admin', via: 'token' };
const T0 = new Date('2024-01-01T00:00:00Z');

const servers: http.Server[] = [];
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

async function receiver() {
  const received: { body: string; signature: string }[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      received.push({ body, signature: String(req.headers['x-fleetplan-signature']) });
      res.writeHead(204).end();
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, received };
}

const hmac = (secret: string, body: string) => `sha256=${crypto.createHmac('sha256', secret).update(body).digest('hex')}`;
const storedSecrets = (db: Db) =>
  db
    .select({ secret: t.webhooks.secret })
    .from(t.webhooks)
    .all()
    .map((r) => r.secret);

function tempDatabaseFile(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fleetplan-secrets-'));
  dirs.push(dir);
  return path.join(dir, 'fleetplan.db');
}

describe('webhook secrets at rest', () => {
  it('stores the secret encrypted and signs deliveries with the decrypted secret', async () => {
    const target = await receiver();
    const db = openDatabase(':memory:');
    await insertEmptyOrganization(db, 'org', T0); // a webhook belongs to an organization
    const env = parseEnv({ FLEETPLAN_WEBHOOK_ALLOW_PRIVATE: '1' });
    const caller = createCaller(createContextInner({ db, fleetNow: () => T0, actor: admin, env }));
    const secret = 'receiver-shared-secret-0123456789';
    await caller.webhooks.create({ name: 'ops', url: target.url, secret, events: [] });
    const [stored] = storedSecrets(db);
    expect(stored).toMatch(/^fpenc:v1:[0-9a-f]{8}:/);
    expect(stored).not.toContain(secret);
    expect(JSON.stringify(db.$client.prepare('select * from webhooks').all())).not.toContain(secret);

    await enqueueDeliveries(db, 'scheduled', { cluster: 'c1' }, T0);
    expect(await deliverDueWebhooks(db, { realNow: T0, allowPrivate: true })).toMatchObject({ delivered: 1 });
    expect(target.received).toHaveLength(1);
    expect(target.received[0]!.signature).toBe(hmac(secret, target.received[0]!.body));
  });

  it('encrypts plain-text secrets of older databases once (idempotent), keeping signatures valid', async () => {
    const target = await receiver();
    const db = openDatabase(':memory:');
    await insertWebhook(db, { name: 'old', url: target.url, secret: 'legacy-plain-secret', events: [], enabled: true, createdAt: T0 });
    const key = secretKeyFromBytes(crypto.randomBytes(32));
    expect(await encryptPlaintextWebhookSecrets(db, key)).toBe(1);
    const [sealed] = storedSecrets(db);
    expect(sealed).toMatch(/^fpenc:v1:/);
    expect(await encryptPlaintextWebhookSecrets(db, key)).toBe(0);
    expect(storedSecrets(db)).toEqual([sealed]);

    await enqueueDeliveries(db, 'completed', { cluster: 'c2' }, T0);
    await deliverDueWebhooks(db, { realNow: T0, allowPrivate: true, secretKey: key });
    expect(target.received[0]!.signature).toBe(hmac('legacy-plain-secret', target.received[0]!.body));
  });

  it('with the wrong key, records a clear error and sends nothing', async () => {
    const target = await receiver();
    const db = openDatabase(':memory:');
    await insertWebhook(db, { name: 'ops', url: target.url, secret: 'some-secret-value', events: [], enabled: true, createdAt: T0 });
    await encryptPlaintextWebhookSecrets(db, secretKeyFromBytes(crypto.randomBytes(32)));
    await enqueueDeliveries(db, 'failed', { cluster: 'c3' }, T0);
    const errors = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const otherKey = secretKeyFromBytes(crypto.randomBytes(32));
    await deliverDueWebhooks(db, { realNow: T0, allowPrivate: true, secretKey: otherKey });
    errors.mockRestore();
    expect(target.received).toEqual([]);
    const delivery = db.select().from(t.webhookDeliveries).get()!;
    expect(delivery.lastError).toMatch(
      /^cannot decrypt the webhook secret: it was encrypted with key [0-9a-f]{8}, but the server's secret key is/,
    );
    expect(delivery.lastError).toContain('FLEETPLAN_SECRET_KEY');
  });
});

describe('the server secret key', () => {
  it('is created once beside the database as a 0600 file and read back on the next start', () => {
    const file = tempDatabaseFile();
    const log = vi.fn();
    const key = loadSecretKey(file, undefined, log);
    const keyFile = secretKeyFileFor(file);
    expect(keyFile).toBe(`${file}.key`);
    expect(fs.statSync(keyFile).mode & 0o777).toBe(0o600);
    expect(log).toHaveBeenCalledWith(expect.stringContaining(keyFile));
    // a fresh process: the cache is per process, so read the file through a copy at another path
    const copy = tempDatabaseFile();
    fs.copyFileSync(keyFile, `${copy}.key`);
    fs.chmodSync(`${copy}.key`, 0o600);
    const again = vi.fn();
    expect(loadSecretKey(copy, undefined, again).id).toBe(key.id);
    expect(again).not.toHaveBeenCalled();
  });

  it('comes from FLEETPLAN_SECRET_KEY (hex or base64) when set, and a malformed one stops start-up', () => {
    const bytes = crypto.randomBytes(32);
    const file = tempDatabaseFile();
    const fromHex = parseEnv({ FLEETPLAN_SECRET_KEY: bytes.toString('hex') }).secretKey;
    const fromBase64 = parseEnv({ FLEETPLAN_SECRET_KEY: bytes.toString('base64') }).secretKey;
    expect(fromHex?.id).toMatch(/^[0-9a-f]{8}$/);
    expect(fromBase64?.id).toBe(fromHex?.id);
    expect(loadSecretKey(file, fromHex).id).toBe(fromHex!.id);
    expect(fs.existsSync(`${file}.key`)).toBe(false);
    expect(() => parseEnv({ FLEETPLAN_SECRET_KEY: 'too-short' })).toThrow(/FLEETPLAN_SECRET_KEY must be 32 random bytes/);
  });
});

describe('webhook changes and their audit entries', () => {
  it('writes a webhook and its audit entry together: when the audit insert fails, nothing is created or deleted', async () => {
    const db = openDatabase(':memory:');
    await insertEmptyOrganization(db, 'org', T0); // a webhook belongs to an organization
    const env = parseEnv({ FLEETPLAN_WEBHOOK_ALLOW_PRIVATE: '1' });
    const caller = createCaller(createContextInner({ db, fleetNow: () => T0, actor: admin, env }));
    const kept = await caller.webhooks.create({ name: 'ops', url: 'http://127.0.0.1:9/hook', events: [] });
    const count = (table: string) => (db.$client.prepare(`select count(*) as n from ${table}`).get() as { n: number }).n;
    const auditBefore = count('audit_log');
    db.$client.exec("create trigger audit_down before insert on audit_log begin select raise(abort, 'audit log unavailable'); end");

    await expect(caller.webhooks.create({ name: 'second', url: 'http://127.0.0.1:9/other', events: [] })).rejects.toThrow(
      /audit log unavailable/,
    );
    await expect(caller.webhooks.delete({ id: kept.id })).rejects.toThrow(/audit log unavailable/);

    expect((await caller.webhooks.list()).map((w) => w.name)).toEqual(['ops']);
    expect(count('audit_log')).toBe(auditBefore);
  });
});
