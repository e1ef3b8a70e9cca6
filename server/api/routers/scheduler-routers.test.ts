// Scheduler, exclusions, webhooks and activity procedures through the real router and services.
import { describe, expect, it } from 'vitest';
import { openDatabase } from '@/db/open-database';
import { seedDemo } from '@/server/services/demo-seed-service';
import { createCaller } from '@/server/api/root';
import { createContextInner } from '@/server/api/trpc';
import type { Actor } from '@/server/auth/actor';

const NOW = new Date('2024-07-01T12:00:00Z');
const operator: Actor = { name: 'olga', role: 'operator', via: 'token' };
const viewer: Actor = { name: 'vic', role: 'viewer', via: 'token' };
const admin: Actor = { name: 'ada', role: 'admin', via: 'token' };

async function setup() {
  const db = openDatabase(':memory:');
  await seedDemo(db, NOW);
  const as = (actor: Actor) => createCaller(createContextInner({ db, fleetNow: () => NOW, actor }));
  return { db, as };
}

describe('scheduler procedures', () => {
  it('runs a dry-run tick on the simulated demo fleet and lists its decisions on the Activity feed', async () => {
    const { as } = await setup();
    await expect(as(viewer).scheduler.runNow({ dryRun: true })).rejects.toMatchObject({ code: 'FORBIDDEN' });
    const r = await as(operator).scheduler.runNow({ dryRun: true });
    expect(r.status).toBe('succeeded');
    const ticks = await as(viewer).scheduler.recentTicks({ limit: 5 });
    expect(ticks[0]).toMatchObject({ dryRun: true, status: 'succeeded' });
    const page = await as(viewer).activity.decisions({ limit: 10, offset: 0 });
    expect(page.total).toBeGreaterThan(50);
    expect(page.rows[0]!.dryRun).toBe(true);
    const actions = await as(viewer).activity.actions({ limit: 10, offset: 0 });
    expect(actions.total).toBe(0);
    const status = await as(viewer).scheduler.status();
    expect(status.provider).toBe('simulator');
    const changes = await as(viewer).activity.changes({ limit: 10, offset: 0, action: 'scheduler.' });
    expect(changes.rows[0]).toMatchObject({ action: 'scheduler.dry-run', actor: 'olga' });
  });

  it('drives the simulator clock', async () => {
    const { as } = await setup();
    const before = await as(viewer).scheduler.clock();
    expect(before).not.toBeNull();
    const paused = await as(operator).scheduler.pauseClock({ paused: true });
    expect(paused.paused).toBe(true);
    const advanced = await as(operator).scheduler.advanceClock({ seconds: 86_400 });
    expect(Date.parse(advanced.now) - Date.parse(paused.now)).toBeGreaterThanOrEqual(86_400_000);
    const resumed = await as(operator).scheduler.pauseClock({ paused: false });
    expect(resumed.speed).toBeGreaterThan(0);
  });
});

describe('exclusion procedures', () => {
  it('validates end after start and that the subject exists', async () => {
    const { as } = await setup();
    await expect(
      as(operator).exclusions.create({
        scope: 'sector',
        subject: 'nope',
        startsAt: '2024-07-02T00:00:00Z',
        endsAt: '2024-07-01T00:00:00Z',
        reason: 'x',
      }),
    ).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    const e = await as(operator).exclusions.create({
      scope: 'sector',
      subject: 'prod-blue',
      startsAt: '2024-07-01T00:00:00Z',
      endsAt: '2024-07-03T00:00:00Z',
      reason: 'quarter-end freeze',
    });
    const list = await as(viewer).exclusions.list();
    expect(list).toMatchObject([{ id: e.id, active: true, subject: 'prod-blue' }]);
    await as(operator).exclusions.delete({ id: e.id });
    expect(await as(viewer).exclusions.list()).toEqual([]);
  });

  it('writes an exclusion and its audit entry together: when the audit insert fails, nothing is created or deleted', async () => {
    const { db, as } = await setup();
    const window = { scope: 'organization' as const, startsAt: '2024-07-01T00:00:00Z', endsAt: '2024-07-03T00:00:00Z' };
    const kept = await as(operator).exclusions.create({ ...window, reason: 'quarter-end freeze' });
    const auditCount = () => (db.$client.prepare('select count(*) as n from audit_log').get() as { n: number }).n;
    const auditBefore = auditCount();
    db.$client.exec("create trigger audit_down before insert on audit_log begin select raise(abort, 'audit log unavailable'); end");

    await expect(as(operator).exclusions.create({ ...window, reason: 'second window' })).rejects.toThrow(/audit log unavailable/);
    await expect(as(operator).exclusions.delete({ id: kept.id })).rejects.toThrow(/audit log unavailable/);

    expect((await as(viewer).exclusions.list()).map((x) => ({ id: x.id, reason: x.reason }))).toEqual([
      { id: kept.id, reason: 'quarter-end freeze' },
    ]);
    expect(auditCount()).toBe(auditBefore);
  });
});

describe('webhook procedures', () => {
  it('is admin-only, never returns secrets, and refuses private URLs', async () => {
    const { as } = await setup();
    await expect(as(operator).webhooks.list()).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(as(admin).webhooks.create({ name: 'x', url: 'http://10.0.0.1/hook', events: [] })).rejects.toMatchObject({
      code: 'BAD_REQUEST',
    });
    const created = await as(admin).webhooks.create({ name: 'ops', url: 'https://93.184.216.34/hook', events: ['failed'] });
    expect(created.secret.length).toBeGreaterThan(16);
    const list = await as(admin).webhooks.list();
    expect(list).toHaveLength(1);
    expect(JSON.stringify(list)).not.toContain(created.secret);
    expect((await as(admin).webhooks.deliveries({})).total).toBe(0);
  });
});
