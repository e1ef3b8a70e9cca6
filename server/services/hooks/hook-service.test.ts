// Blocking hooks over real loopback HTTP (issue 11, point 5): the signed event is POSTed once per
// (lifecycle, stage, hook); `{"allow": true}` / `{"healthy": true}` allows, anything else refuses
// with the hook's answer as the reason; the SSRF rules are the webhooks'.
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '@/db/open-database';
import * as t from '@/db/schema';
import type { Actor } from '@/server/auth/actor';
import { secretKeyFromBytes } from '@/server/crypto/secret-box';
import { createOutboundDeliverer } from '../outbound-delivery';
import { organizationScope } from '@/server/services/organization-scope';
import { createHookService, hookVerdict, requestHook } from './hook-service';

const servers: http.Server[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    s.close();
  }
});

const T0 = new Date('2024-05-01T10:00:00Z');
const admin: Actor = { name: 'ada', role: 'admin' } as Actor;
const key = secretKeyFromBytes(crypto.randomBytes(32));

interface Received {
  path: string;
  body: string;
  signature: string;
  event: string;
}

async function hookServer(answers: Record<string, (res: http.ServerResponse) => void>) {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      received.push({
        path: req.url ?? '',
        body,
        signature: String(req.headers['x-fleetplan-signature']),
        event: String(req.headers['x-fleetplan-event']),
      });
      answers[req.url ?? '']?.(res);
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received };
}

const json = (status: number, value: unknown) => (res: http.ServerResponse) =>
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));

function fleet(): Db {
  const db = openDatabase(':memory:');
  const org = db.insert(t.organizations).values({ name: 'org', updatedAt: T0 }).returning().get();
  for (const name of ['dev', 'prod']) db.insert(t.sectors).values({ organizationId: org.id, name }).run();
  for (const [name, sector] of [
    ['dev-1', 'dev'],
    ['prod-1', 'prod'],
  ] as const)
    db.insert(t.clusters)
      .values({ organizationId: org.id, name, externalId: name, version: '4.13.1', channel: 'stable-4.13', sector, observedAt: T0 })
      .run();
  return db;
}

const env = { webhookAllowPrivate: true, secretKey: key };
const deliver = createOutboundDeliverer({ allowPrivate: true, secretKey: key });
/** runs the delivery loop's step until nothing is due */
async function drain(db: Db, holder = 'proc-a') {
  while (await deliver(db, holder));
}
const req = (lifecycleId: number, cluster: string, sector: string, stage: 'pre-upgrade' | 'post-upgrade' = 'pre-upgrade') => ({
  // the test database's one organization
  organizationId: 1,
  lifecycleId,
  stage,
  cluster,
  sector,
  version: '4.13.2',
  fromVersion: '4.13.1',
});

describe('blocking hooks', () => {
  it('POSTs the signed event once per lifecycle and stage; {"allow": true} allows', async () => {
    const db = fleet();
    const rx = await hookServer({ '/allow': json(200, { allow: true }) });
    const hooks = createHookService(db, () => T0, env, organizationScope(db));
    const created = await hooks.create({ name: 'etcd-backup', url: `${rx.base}/allow`, stage: 'pre-upgrade', actor: admin });

    expect(await hookVerdict(db, 7, 'pre-upgrade')).toEqual({ state: 'none' });
    await requestHook(db, req(7, 'prod-1', 'prod'), T0);
    await requestHook(db, req(7, 'prod-1', 'prod'), T0); // a second tick in the same stage
    expect(await hookVerdict(db, 7, 'pre-upgrade')).toEqual({ state: 'pending' });
    await drain(db);

    expect(await hookVerdict(db, 7, 'pre-upgrade')).toEqual({ state: 'allowed' });
    expect(rx.received).toHaveLength(1);
    const [r] = rx.received;
    expect(r!.event).toBe('pre-upgrade');
    expect(r!.signature).toBe(`sha256=${crypto.createHmac('sha256', created.secret).update(r!.body).digest('hex')}`);
    expect(JSON.parse(r!.body)).toMatchObject({
      event: 'pre-upgrade',
      data: { lifecycleId: 7, stage: 'pre-upgrade', cluster: 'prod-1', sector: 'prod', version: '4.13.2', fromVersion: '4.13.1' },
    });
    expect((await hooks.list())[0]).toMatchObject({
      name: 'etcd-backup',
      lastAnswer: { status: 'allowed', cluster: 'prod-1' },
      pendingCalls: 0,
    });
    // the post-upgrade stage has no hook
    await requestHook(db, req(7, 'prod-1', 'prod', 'post-upgrade'), T0);
    expect(await hookVerdict(db, 7, 'post-upgrade')).toEqual({ state: 'none' });
  });

  it('anything but the expected answer refuses, with the answer as the reason', async () => {
    const db = fleet();
    const rx = await hookServer({
      '/deny': json(200, { allow: false, reason: 'etcd backup still running' }),
      '/busy': (res) => res.writeHead(503).end('maintenance window'),
      '/wrong-field': json(200, { healthy: true }),
      '/post-ok': json(200, { healthy: true }),
      '/post-bad': json(200, { healthy: false }),
    });
    const hooks = createHookService(db, () => T0, env, organizationScope(db));
    const cases: [string, 'pre-upgrade' | 'post-upgrade', string | null][] = [
      ['/deny', 'pre-upgrade', "hook 'h1' refused: etcd backup still running"],
      ['/busy', 'pre-upgrade', "hook 'h2' HTTP 503: maintenance window"],
      ['/wrong-field', 'pre-upgrade', `hook 'h3' answered HTTP 200 without "allow": true`],
      ['/post-ok', 'post-upgrade', null],
      ['/post-bad', 'post-upgrade', `hook 'h5' answered "healthy": false`],
    ];
    for (const [i, [path, stage]] of cases.entries()) {
      await hooks.create({ name: `h${i + 1}`, url: `${rx.base}${path}`, stage, actor: admin });
      await hooks.setEnabled({ id: i + 1, enabled: false, actor: admin });
    }
    for (const [i, [, stage, reason]] of cases.entries()) {
      await hooks.setEnabled({ id: i + 1, enabled: true, actor: admin });
      await requestHook(db, req(100 + i, 'dev-1', 'dev', stage), T0);
      await hooks.setEnabled({ id: i + 1, enabled: false, actor: admin });
      await drain(db);
      expect(await hookVerdict(db, 100 + i, stage)).toEqual(reason === null ? { state: 'allowed' } : { state: 'refused', reason });
    }
    expect(rx.received).toHaveLength(5);
  });

  it('a hook that does not answer within its timeout refuses; one stage waits for every hook that applies', async () => {
    const db = fleet();
    const rx = await hookServer({ '/allow': json(200, { allow: true }), '/hang': () => undefined });
    const hooks = createHookService(db, () => T0, env, organizationScope(db));
    await hooks.create({ name: 'org-wide', url: `${rx.base}/allow`, stage: 'pre-upgrade', actor: admin });
    await hooks.create({
      name: 'prod-check',
      url: `${rx.base}/hang`,
      stage: 'pre-upgrade',
      sector: 'prod',
      timeoutSeconds: 1,
      actor: admin,
    });

    await requestHook(db, req(1, 'dev-1', 'dev'), T0); // only the organization-wide hook applies to dev
    await requestHook(db, req(2, 'prod-1', 'prod'), T0);
    const started = Date.now();
    await drain(db);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(await hookVerdict(db, 1, 'pre-upgrade')).toEqual({ state: 'allowed' });
    expect(await hookVerdict(db, 2, 'pre-upgrade')).toEqual({
      state: 'refused',
      reason: "hook 'prod-check' delivery failed: no answer within 1 s",
    });
  });

  it('uses the webhooks SSRF rules: a loopback URL is refused at creation and at call time unless private targets are allowed', async () => {
    const db = fleet();
    const rx = await hookServer({ '/allow': json(200, { allow: true }) });
    const strict = createHookService(db, () => T0, { webhookAllowPrivate: false, secretKey: key }, organizationScope(db));
    await expect(strict.create({ name: 'x', url: `${rx.base}/allow`, stage: 'pre-upgrade', actor: admin })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
    expect(await strict.list()).toEqual([]);
    // created while allowed, called by a process that does not allow private targets
    await createHookService(db, () => T0, env, organizationScope(db)).create({
      name: 'x',
      url: `${rx.base}/allow`,
      stage: 'pre-upgrade',
      actor: admin,
    });
    await requestHook(db, req(3, 'dev-1', 'dev'), T0);
    const strictDeliver = createOutboundDeliverer({ allowPrivate: false, secretKey: key });
    while (await strictDeliver(db, 'proc-a'));
    expect(await hookVerdict(db, 3, 'pre-upgrade')).toEqual({
      state: 'refused',
      reason: "hook 'x' refused: the target is not a public address",
    });
    expect(rx.received).toEqual([]);
  });

  it('refuses an unknown sector and writes nothing; create, disable and delete are audited', async () => {
    const db = fleet();
    const hooks = createHookService(db, () => T0, env, organizationScope(db));
    await expect(
      hooks.create({ name: 'x', url: 'http://127.0.0.1:9/h', stage: 'pre-upgrade', sector: 'nope', actor: admin }),
    ).rejects.toMatchObject({ code: 'INVALID_INPUT', message: "sector: sector 'nope' does not exist" });
    expect(db.select().from(t.hooks).all()).toEqual([]);
    const h = await hooks.create({ name: 'x', url: 'http://127.0.0.1:9/h?token=abc', stage: 'post-upgrade', sector: 'prod', actor: admin });
    expect(h.url).toBe('http://127.0.0.1:9/h');
    await hooks.setEnabled({ id: h.id, enabled: false, actor: admin });
    await hooks.delete({ id: h.id, actor: admin });
    expect(
      db
        .select()
        .from(t.auditLog)
        .all()
        .map((a) => a.action),
    ).toEqual(['hook.create', 'hook.disable', 'hook.delete']);
  });
});
