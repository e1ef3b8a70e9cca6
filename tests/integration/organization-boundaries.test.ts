// What one organization's grant or id cannot reach in another (from review of the organizations
// merge): an approvals:write token follows its owner's role on the organization it calls, an
// exclusion of one organization cannot be deleted through another, and a grant on one
// organization does not open the instance's audit log's admin-only details.
import { expect, it } from 'vitest';
import type { Db } from '@/db/open-database';
import { createCaller } from '@/server/api/root';
import { createContextInner } from '@/server/api/trpc';
import type { Actor } from '@/server/auth/actor';
import { tablesOf } from '@/server/repositories/dialect';
import { insertTestFleet } from '@/server/scheduler/test-fleet';
import { instanceRoleOf } from '@/server/services/organization-roles';
import { onBothDatabases } from '@/tests/support/both-databases';

const NOW = new Date('2021-08-30T18:00:00Z');

async function setup(db: Db) {
  const t = tablesOf(db);
  const alpha = await insertTestFleet(
    db,
    { organization: 'alpha', clusters: [{ name: 'a1', version: '4.13.1', releases: ['4.13.2'], soakDays: 0 }] },
    NOW,
  );
  const beta = await insertTestFleet(
    db,
    { organization: 'beta', clusters: [{ name: 'b1', version: '4.13.1', releases: ['4.13.2'], soakDays: 0 }] },
    NOW,
  );
  const user = async (username: string, role: 'viewer' | 'operator' | 'admin') =>
    (await db.insert(t.users).values({ username, passwordHash: 'x', role, createdAt: NOW }).returning({ id: t.users.id }))[0]!.id;
  const grant = async (userId: number, organizationId: number, role: 'viewer' | 'operator' | 'admin') => {
    await db.insert(t.organizationRoles).values({ userId, organizationId, role, createdBy: 'test', createdAt: NOW });
  };
  const exclusions = () => db.select().from(t.maintenanceExclusions);
  const caller = (actor: Actor, organization: string) =>
    createCaller(createContextInner({ db, fleetNow: () => NOW, realNow: () => NOW, actor, organization }));
  return { db, alpha, beta, user, grant, caller, exclusions };
}

onBothDatabases('organization boundaries', (open) => {
  it('an approvals:write token may approve only where its owner is an operator (a grant lowering the owner counts)', async () => {
    const { beta, user, grant, caller } = await setup(await open());
    const owner = await user('ci-owner', 'operator');
    await grant(owner, beta.organizationId, 'viewer');
    const token: Actor = { name: 'token:ci@ci-owner', role: 'viewer', via: 'token', userId: owner, permission: 'approvals:write' };
    const gate = { sector: 'nowhere', version: '4.13.2' };
    // beta: the owner is a viewer there, so the token is refused before anything is read
    await expect(caller(token, 'beta').approvals.approve(gate)).rejects.toMatchObject({ code: 'FORBIDDEN' });
    // alpha: the owner is an operator, so the call reaches the service (which refuses the unknown sector)
    await expect(caller(token, 'alpha').approvals.approve(gate)).rejects.not.toMatchObject({ code: 'FORBIDDEN' });
    expect(beta).toBeDefined();
  });

  it('an exclusion of one organization cannot be deleted through another', async () => {
    const { user, caller, exclusions } = await setup(await open());
    const op: Actor = { name: 'olga', role: 'operator', via: 'session', userId: await user('olga', 'operator') };
    const created = await caller(op, 'beta').exclusions.create({
      scope: 'organization',
      startsAt: '2021-09-01T00:00:00Z',
      endsAt: '2021-09-02T00:00:00Z',
      reason: 'beta freeze window',
    });
    await expect(caller(op, 'alpha').exclusions.delete({ id: created.id })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(await exclusions()).toHaveLength(1);
    await caller(op, 'beta').exclusions.delete({ id: created.id });
    expect(await exclusions()).toHaveLength(0);
  });

  it("a grant on one organization does not make its holder an admin of the instance's audit log", async () => {
    const { db, alpha, user, grant } = await setup(await open());
    const vic = await user('vic', 'viewer');
    await grant(vic, alpha.organizationId, 'admin');
    // the request's actor after the grant (role admin on alpha) still has the instance role of its user
    expect(await instanceRoleOf(db, { name: 'vic', role: 'admin', via: 'session', userId: vic })).toBe('viewer');
    expect(await instanceRoleOf(db, { name: 'ada', role: 'admin', via: 'session', userId: await user('ada', 'admin') })).toBe('admin');
  });
});
