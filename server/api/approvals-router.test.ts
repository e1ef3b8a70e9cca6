// Approvals of sectors' gates through the API: operators approve and revoke (validated, audited,
// idempotent), the engine's input follows, and a token scoped to approvals:write approves and
// does nothing else.
import { eq } from 'drizzle-orm';
import { beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '@/db/open-database';
import { sectors, users } from '@/db/schema';
import type { Actor } from '@/server/auth/actor';
import { bootstrapAuth } from '@/server/auth/bootstrap';
import { resolveRequestActor } from '@/server/auth/resolve-request-actor';
import { validatePlanInput } from '@/server/domain/plan/validate-plan-input';
import { parseEnv } from '@/server/env';
import { listAudit } from '@/server/repositories/audit-repository';
import { loadPlanDocument } from '@/server/repositories/plan-document-repository';
import { findFirstOrganization } from '@/server/repositories/organization-repository';
import { findUserByName } from '@/server/repositories/user-repository';
import { seedDemo } from '@/server/services/demo-seed-service';
import { createCaller } from './root';
import { createContextInner } from './trpc';

const NOW = new Date('2026-11-22T12:00:00Z');
let db: Db;

const callerFor = (actor: Actor | null) =>
  createCaller(createContextInner({ db, fleetNow: () => NOW, realNow: () => NOW, actor, csrfOk: true }));
const callerAs = (role: 'viewer' | 'operator' | 'admin', name = `test-${role}`) => callerFor({ name, role, via: 'system' });

const approvalAudit = async () =>
  (await listAudit(db, { offset: 0, limit: 100 })).rows
    .reverse()
    .filter((a) => a.action.startsWith('approval.'))
    .map((a) => [a.action, a.actor, a.target]);

beforeEach(async () => {
  db = openDatabase(':memory:');
  await seedDemo(db, NOW);
  await bootstrapAuth(db, {
    env: parseEnv({ FLEETPLAN_ADMIN_PASSWORD: 'approvals-test-admin' }),
    demoSeeded: true,
    log: () => {},
    now: NOW,
  });
  db.update(sectors).set({ approvalBefore: true }).where(eq(sectors.name, 'prod-blue')).run();
  db.update(sectors).set({ approvalAfter: true }).where(eq(sectors.name, 'stage')).run();
});

describe('approvals router', () => {
  it('an operator approves a gate once: one row, one audit entry with who and why, and the engine gets it as input', async () => {
    const op = callerAs('operator', 'alice');
    const first = await op.approvals.approve({ sector: 'prod-blue', version: '4.13.99', reason: '  CAB 1234 ' });
    expect(first).toMatchObject({
      changed: true,
      approval: { sector: 'prod-blue', version: '4.13.99', kind: 'before', approvedBy: 'alice', reason: 'CAB 1234' },
    });
    const again = await callerAs('operator', 'bob').approvals.approve({ sector: 'prod-blue', version: '4.13.99' });
    expect(again).toMatchObject({ changed: false, approval: { approvedBy: 'alice' } });
    expect((await op.approvals.list()).map((a) => [a.sector, a.version, a.kind])).toEqual([['prod-blue', '4.13.99', 'before']]);
    expect(await approvalAudit()).toEqual([['approval.approve', 'alice', 'organization:app-sre sector:prod-blue version:4.13.99 before']]);
    const org = (await findFirstOrganization(db))!;
    const parsed = validatePlanInput(await loadPlanDocument(db, org.id, NOW));
    expect(parsed.ok && parsed.input.approvals).toEqual([{ sector: 'prod-blue', version: '4.13.99', kind: 'before' }]);
    expect(parsed.ok && parsed.input.organization.sectors.find((s) => s.name === 'prod-blue')?.approval).toEqual({
      before: true,
      after: false,
    });
  });

  it('revokes (audited, the engine no longer counts it), and approving again reinstates the same gate', async () => {
    const op = callerAs('operator', 'alice');
    await op.approvals.approve({ sector: 'stage', version: '4.13.99', kind: 'after' });
    const revoked = await op.approvals.revoke({ sector: 'stage', version: '4.13.99', kind: 'after', reason: 'bad canary' });
    expect(revoked).toMatchObject({ changed: true, approval: { revokedBy: 'alice' } });
    expect((await op.approvals.revoke({ sector: 'stage', version: '4.13.99', kind: 'after' })).changed).toBe(false);
    expect(await op.approvals.list()).toEqual([]);
    expect((await loadPlanDocument(db, (await findFirstOrganization(db))!.id, NOW)).approvals).toBeUndefined();
    await callerAs('operator', 'bob').approvals.approve({ sector: 'stage', version: '4.13.99', kind: 'after' });
    expect((await op.approvals.list({ includeRevoked: true })).map((a) => [a.approvedBy, a.revokedAt])).toEqual([['bob', null]]);
    expect(await approvalAudit()).toEqual([
      ['approval.approve', 'alice', 'organization:app-sre sector:stage version:4.13.99 after'],
      ['approval.revoke', 'alice', 'organization:app-sre sector:stage version:4.13.99 after'],
      ['approval.approve', 'bob', 'organization:app-sre sector:stage version:4.13.99 after'],
    ]);
    // Activity shows who and why
    const changes = await op.activity.changes({ offset: 0, limit: 10 });
    expect(JSON.stringify(changes)).toContain('bad canary');
  });

  it('refuses, writing nothing, a gate that does not exist: unknown sector, no such gate, not a release', async () => {
    const op = callerAs('operator');
    for (const [input, path] of [
      [{ sector: 'nowhere', version: '4.13.99' }, 'sector'],
      [{ sector: 'dev', version: '4.13.99' }, 'kind'],
      [{ sector: 'prod-blue', version: '4.13.99', kind: 'after' as const }, 'kind'],
      [{ sector: 'prod-blue', version: 'latest' }, 'version'],
    ] as const) {
      await expect(op.approvals.approve(input)).rejects.toMatchObject({ code: 'BAD_REQUEST', cause: { problems: [{ path }] } });
    }
    await expect(op.approvals.revoke({ sector: 'prod-blue', version: '4.13.99' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(await op.approvals.list({ includeRevoked: true })).toEqual([]);
    expect(await approvalAudit()).toEqual([]);
  });

  it('the forecast stops at a pending gate and reports it; approved, the sector upgrades in the forecast', async () => {
    db.update(sectors).set({ approvalBefore: true }).where(eq(sectors.name, 'dev')).run();
    const op = callerAs('operator');
    const gated = await op.forecast.run({ horizonDays: 10, upgradeMinutes: 90, sector: 'dev', limit: 50, offset: 0 });
    const devGate = gated.approvalGates.find((g) => g.sector === 'dev' && g.kind === 'before');
    expect(devGate).toMatchObject({ heldSectors: ['dev'] });
    expect(devGate!.clusters).toBeGreaterThan(0);
    expect(Date.parse(devGate!.earliest)).toBeGreaterThanOrEqual(NOW.getTime());
    const upgradesTo = (r: typeof gated, version: string) =>
      r.rows.flatMap((c) => c.upgrades.filter((u) => u.version === version && !u.inFlight));
    expect(upgradesTo(gated, devGate!.version)).toEqual([]);
    await op.approvals.approve({ sector: 'dev', version: devGate!.version });
    const approved = await op.forecast.run({ horizonDays: 10, upgradeMinutes: 90, sector: 'dev', limit: 50, offset: 0 });
    expect(approved.approvalGates.filter((g) => g.sector === 'dev' && g.version === devGate!.version)).toEqual([]);
    expect(upgradesTo(approved, devGate!.version).length).toBeGreaterThan(0);
  });

  it('a sector with approvals may still be removed (its approvals no longer count)', async () => {
    const op = callerAs('operator');
    const org = await op.policies.organization();
    const settings = (
      sectors: { name: string; maxParallelUpgrades: string | null; dependencies: string[]; approval?: { before: boolean } }[],
    ) => ({
      sectors,
      blockedVersions: org.blockedVersions.map((b) => ({ pattern: b.pattern, reason: b.reason })),
      upgradePolicyAllowedWorkloads: org.upgradePolicyAllowedWorkloads,
      upgradePolicyAllowedMutexes: org.upgradePolicyAllowedMutexes,
    });
    const current = org.sectors.map((s) => ({ name: s.name, maxParallelUpgrades: s.maxParallelUpgrades, dependencies: s.dependencies }));
    const added = await op.policies.updateOrganization({
      expectedRevision: org.revision,
      organization: settings([...current, { name: 'canary', maxParallelUpgrades: null, dependencies: [], approval: { before: true } }]),
    });
    await op.approvals.approve({ sector: 'canary', version: '4.13.99' });
    expect((await loadPlanDocument(db, (await findFirstOrganization(db))!.id, NOW)).approvals).toEqual([
      { sector: 'canary', version: '4.13.99', kind: 'before' },
    ]);
    const removed = await op.policies.updateOrganization({ expectedRevision: added.revision, organization: settings(current) });
    expect(removed.organization.sectors.map((s) => s.name)).not.toContain('canary');
    expect((await loadPlanDocument(db, (await findFirstOrganization(db))!.id, NOW)).approvals).toBeUndefined();
  });

  it('the Sectors overview shows a gate pending with the clusters ready but for it, then approved by whom', async () => {
    db.update(sectors).set({ approvalBefore: true, notBefore: '2020-01-01T00:00:00Z' }).where(eq(sectors.name, 'dev')).run();
    const op = callerAs('operator', 'alice');
    const before = (await op.sectors.overview()).sectors;
    expect(before.find((s) => s.name === 'hive-production')!.gates).toBeNull();
    const gates = before.find((s) => s.name === 'dev')!.gates!;
    expect(gates).toMatchObject({ before: true, after: false, notBefore: '2020-01-01T00:00:00Z' });
    const pending = gates.versions.filter((v) => v.state === 'pending');
    expect(pending.length).toBeGreaterThan(0);
    expect(pending.every((v) => v.kind === 'before' && v.waiting > 0)).toBe(true);
    const newest = pending[0]!.version;
    await op.approvals.approve({ sector: 'dev', version: newest, reason: 'CAB-1' });
    const after = (await op.sectors.overview()).sectors.find((s) => s.name === 'dev')!.gates!;
    expect(after.versions.filter((v) => v.version === newest)).toEqual([
      {
        kind: 'before',
        version: newest,
        state: 'approved',
        waiting: 0,
        approvedBy: 'alice',
        approvedAt: NOW.toISOString(),
        reason: 'CAB-1',
      },
    ]);
  });

  it('a viewer may list but neither approve nor revoke', async () => {
    const viewer = callerAs('viewer');
    expect(await viewer.approvals.list()).toEqual([]);
    await expect(viewer.approvals.approve({ sector: 'prod-blue', version: '4.13.99' })).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(viewer.approvals.revoke({ sector: 'prod-blue', version: '4.13.99' })).rejects.toMatchObject({ code: 'FORBIDDEN' });
  });
});

describe('an API token scoped to approvals:write', () => {
  async function tokenActor(token: string): Promise<Actor | null> {
    const req = new Request('http://fleet.test/api/trpc/approvals.approve', {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
    });
    return (await resolveRequestActor(db, req, NOW)).actor;
  }
  const demoSession = async (): Promise<Actor> => ({
    name: 'demo',
    role: 'operator',
    via: 'session',
    userId: (await findUserByName(db, 'demo'))!.id,
  });

  it('approves a gate, and may do nothing else (not even read)', async () => {
    const { token, summary } = await callerFor(await demoSession()).tokens.create({ name: 'ci', scope: 'approvals:write' });
    expect(summary.scope).toBe('approvals:write');
    const actor = await tokenActor(token);
    expect(actor).toMatchObject({ via: 'token', permission: 'approvals:write', role: 'viewer' });
    const ci = callerFor(actor);
    const done = await ci.approvals.approve({ sector: 'prod-blue', version: '4.13.99', reason: 'pipeline 77 green' });
    expect(done).toMatchObject({ changed: true, approval: { approvedBy: 'token:ci@demo' } });
    for (const call of [
      () => ci.approvals.list(),
      () => ci.approvals.revoke({ sector: 'prod-blue', version: '4.13.99' }),
      () => ci.plans.evaluate({}),
      () => ci.clusters.list({}),
      () => ci.policies.setFreeze({ frozen: true, reason: 'x' }),
      () => ci.tokens.list(),
    ]) {
      await expect(call()).rejects.toMatchObject({ code: 'FORBIDDEN' });
    }
  });

  it('stops working when its owner is no longer an operator, who can then no longer make one', async () => {
    const { token } = await callerFor(await demoSession()).tokens.create({ name: 'ci', scope: 'approvals:write' });
    expect(await tokenActor(token)).not.toBeNull();
    const demoId = (await findUserByName(db, 'demo'))!.id;
    db.update(users).set({ role: 'viewer' }).where(eq(users.id, demoId)).run();
    expect(await tokenActor(token)).toBeNull();
    await expect(
      callerFor({ name: 'demo', role: 'viewer', via: 'session', userId: demoId }).tokens.create({ name: 'ci2', scope: 'approvals:write' }),
    ).rejects.toMatchObject({ code: 'FORBIDDEN' });
  });
});
