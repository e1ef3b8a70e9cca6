// Every tRPC procedure, called with no actor and with each role: the server refuses exactly the
// callers below the procedure's minimum role. A new procedure without an entry in
// PROCEDURE_MIN_ROLE fails this test, so nobody adds an endpoint without deciding who may call it.
import { beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '@/db/open-database';
import { seedDemo } from '@/server/services/demo-seed-service';
import { ROLES, type Actor, type Role } from '@/server/auth/actor';
import { bootstrapAuth } from '@/server/auth/bootstrap';
import { parseEnv } from '@/server/env';
import { findUserByName } from '@/server/repositories/user-repository';
import { insertEmptyOrganization } from '@/server/repositories/organization-repository';
import * as t from '@/db/schema';
import { appRouter, createCaller } from './root';
import { createContextInner } from './trpc';

type MinRole = 'public' | Role;

/**
 * The decision for each procedure: the least role that may call it.
 * viewer = read; operator = edit policies, block versions, freeze, run the scheduler;
 * admin = users, tokens of others, identity providers, webhooks; public = sign-in and health only.
 */
export const PROCEDURE_MIN_ROLE: Record<string, MinRole> = {
  // sign-in
  'auth.me': 'public',
  'auth.loginOptions': 'public',
  'auth.login': 'public',
  'auth.demoLogin': 'public',
  'auth.changePassword': 'viewer',
  'auth.logout': 'public',
  // reading the fleet
  'activity.actions': 'viewer',
  'activity.changes': 'viewer',
  'activity.decisions': 'viewer',
  'activity.upgrades': 'viewer',
  'clusters.acknowledgeVersionGate': 'operator',
  'clusters.byName': 'viewer',
  'clusters.explain': 'viewer',
  'clusters.facets': 'viewer',
  'clusters.list': 'viewer',
  'clusters.previewSelector': 'viewer',
  'clusters.setLabels': 'operator',
  'clusters.versionDistribution': 'viewer',
  'exclusions.list': 'viewer',
  'approvals.list': 'viewer',
  'lifecycle.forCluster': 'viewer',
  'fleet.status': 'viewer',
  'graphs.channels': 'viewer',
  'graphs.clusterOptions': 'viewer',
  'graphs.list': 'viewer',
  'graphs.solve': 'viewer',
  'graphs.view': 'viewer',
  'forecast.run': 'viewer',
  'plans.evaluate': 'viewer',
  'plans.explainCluster': 'viewer',
  'plans.lint': 'viewer',
  'policies.clusterPolicies': 'viewer',
  'policies.clusterPolicy': 'viewer',
  'policies.exportCluster': 'viewer',
  'policies.exportOrganization': 'viewer',
  'policies.history': 'viewer',
  'policies.organization': 'viewer',
  'policies.previewImpact': 'viewer',
  'policies.previewForecastImpact': 'viewer',
  'policies.validateDraft': 'viewer',
  'scheduler.clock': 'viewer',
  'scheduler.recentTicks': 'viewer',
  'scheduler.status': 'viewer',
  'sectors.overview': 'viewer',
  'soak.series': 'viewer',
  'soak.versions': 'viewer',
  'versions.history': 'viewer',
  // own API tokens; other users' tokens are checked again in the service (admin)
  'tokens.list': 'viewer',
  'tokens.create': 'viewer',
  'tokens.revoke': 'viewer',
  // changing policies, blocked versions, freezes, exclusions, the scheduler and the simulator clock
  'exclusions.create': 'operator',
  // operators, and tokens scoped to approvals:write (approvals.approve only: approvals-router.test.ts)
  'approvals.approve': 'operator',
  'approvals.revoke': 'operator',
  'lifecycle.acknowledge': 'operator',
  'exclusions.delete': 'operator',
  'graphs.delete': 'operator',
  'graphs.updateService': 'viewer',
  'graphs.refreshFromUpdateService': 'operator',
  'graphs.import': 'operator',
  'policies.addBlockedVersion': 'operator',
  'policies.importOrganization': 'operator',
  'policies.removeBlockedVersion': 'operator',
  'policies.revert': 'operator',
  'policies.setFreeze': 'operator',
  'policies.updateClusterPolicy': 'operator',
  'policies.updateOrganization': 'operator',
  'scheduler.advanceClock': 'operator',
  'scheduler.pause': 'operator',
  'scheduler.pauseClock': 'operator',
  'scheduler.resume': 'operator',
  'scheduler.runNow': 'operator',
  'scheduler.setClockSpeed': 'operator',
  'scheduler.setHealthGate': 'operator',
  // the organizations: every user switches (and remembers their own choice); admins add one
  'organizations.list': 'viewer',
  'organizations.select': 'viewer',
  'organizations.create': 'admin',
  'organizations.providers': 'admin',
  'organizations.setProvider': 'admin',
  // the instance's blocked versions (every organization's): admins change them
  'instance.blockedVersions': 'viewer',
  'instance.addBlockedVersion': 'admin',
  'instance.removeBlockedVersion': 'admin',
  // users, webhooks
  // bringing a real fleet in
  'setup.status': 'viewer',
  'setup.nameOrganization': 'admin',
  'setup.testConnection': 'admin',
  'users.create': 'admin',
  'users.list': 'admin',
  'users.resetPassword': 'admin',
  'users.setDisabled': 'admin',
  'users.setRole': 'admin',
  'users.organizationRoles': 'admin',
  'users.grantOrganizationRole': 'admin',
  'users.revokeOrganizationRole': 'admin',
  'users.organizationRoleGroups': 'admin',
  'users.setOrganizationRoleGroups': 'admin',
  'hooks.list': 'viewer',
  'hooks.create': 'admin',
  'hooks.setEnabled': 'admin',
  'hooks.delete': 'admin',
  'webhooks.create': 'admin',
  'webhooks.delete': 'admin',
  'webhooks.deliveries': 'admin',
  'webhooks.list': 'admin',
};

const NOW = new Date('2026-11-22T12:00:00Z');
const RANK: Record<MinRole, number> = { public: -1, viewer: 0, operator: 1, admin: 2 };
/** a procedure that takes longer has passed the role gate (which answers at once) */
const CALL_TIMEOUT_MS = 3_000;

type Procedures = Record<string, { _def: { type: 'query' | 'mutation' | 'subscription' } }>;
const procedures = (appRouter._def as unknown as { procedures: Procedures }).procedures;

let db: Db;
const actors = new Map<Role, Actor>();

beforeAll(async () => {
  db = openDatabase(':memory:');
  await seedDemo(db, NOW);
  await bootstrapAuth(db, {
    env: parseEnv({ FLEETPLAN_ADMIN_PASSWORD: 'role-test-admin-password' }),
    demoSeeded: true,
    log: () => {},
    now: NOW,
  });
  const demoUserId = (await findUserByName(db, 'demo'))!.id;
  for (const role of ROLES) actors.set(role, { name: `role-test-${role}`, role, via: 'session', userId: demoUserId });
});

type Outcome = { denied: false } | { denied: true; code: string };

async function call(path: string, actor: Actor | null, organization?: string): Promise<Outcome> {
  const caller = createCaller(
    createContextInner({ db, fleetNow: () => NOW, actor, resHeaders: new Headers(), csrfOk: true, organization }),
  );
  let target: unknown = caller;
  for (const part of path.split('.')) target = (target as Record<string, unknown>)[part];
  const invoke = target as (input: unknown) => Promise<unknown>;
  const timeout = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), CALL_TIMEOUT_MS).unref());
  try {
    await Promise.race([invoke(undefined), timeout]);
    return { denied: false };
  } catch (err) {
    const code = (err as { code?: string }).code ?? 'UNKNOWN';
    // input validation (BAD_REQUEST), NOT_FOUND, … all mean the role gate let the call through
    return code === 'UNAUTHORIZED' || code === 'FORBIDDEN' ? { denied: true, code } : { denied: false };
  }
}

describe('procedure roles', () => {
  it('has a role decision for every procedure of appRouter, and none for procedures that are gone', () => {
    const paths = Object.keys(procedures).sort();
    const missing = paths.filter((p) => !(p in PROCEDURE_MIN_ROLE));
    const stale = Object.keys(PROCEDURE_MIN_ROLE).filter((p) => !(p in procedures));
    expect(missing, `add these procedures to PROCEDURE_MIN_ROLE in server/api/procedure-roles.test.ts`).toEqual([]);
    expect(stale, 'these entries name procedures that no longer exist').toEqual([]);
  });

  it('keeps public procedures to sign-in and health', () => {
    const publicOnes = Object.entries(PROCEDURE_MIN_ROLE)
      .filter(([, r]) => r === 'public')
      .map(([p]) => p);
    for (const p of publicOnes) expect(p).toMatch(/^(auth|health)\./);
  });

  it('lets no viewer change anything, except sign-in, their own API tokens and their remembered organization', () => {
    const weakMutations = Object.entries(procedures)
      .filter(([path, p]) => p._def.type === 'mutation' && RANK[PROCEDURE_MIN_ROLE[path] ?? 'admin'] < RANK.operator)
      .map(([path]) => path)
      .filter((path) => !/^(auth|tokens)\./.test(path) && path !== 'organizations.select');
    expect(weakMutations).toEqual([]);
  });

  const table = Object.keys(procedures)
    .sort()
    .map((path) => [path, PROCEDURE_MIN_ROLE[path] ?? 'admin'] as const);

  it.each(table)('%s needs %s', async (path, minRole) => {
    const anonymous = await call(path, null);
    if (minRole === 'public') expect(anonymous, `${path} should be open to anonymous callers`).toEqual({ denied: false });
    else expect(anonymous, `${path} must refuse anonymous callers`).toEqual({ denied: true, code: 'UNAUTHORIZED' });
    for (const role of ROLES) {
      const outcome = await call(path, actors.get(role)!);
      if (RANK[role] >= RANK[minRole]) expect(outcome, `${path} should let a ${role} through`).toEqual({ denied: false });
      else expect(outcome, `${path} must refuse a ${role}`).toEqual({ denied: true, code: 'FORBIDDEN' });
    }
  });
});

/**
 * Procedures on the whole instance: only the global role counts there, so an organization's
 * admin is no admin of the instance (users, tokens, the scheduler, update graphs, the instance's
 * blocked versions, creating or switching organizations).
 */
const INSTANCE_PROCEDURE = /^(auth|tokens|users|scheduler|graphs|instance|organizations)\.|^setup\.(nameOrganization|testConnection)$/;

describe('roles per organization (a grant replaces the global role on its organization; global admins stay admins)', () => {
  const grantees = new Map<string, Actor>();
  beforeAll(async () => {
    const demoOrg = db.select().from(t.organizations).get()!;
    const other = await insertEmptyOrganization(db, 'other-org', NOW);
    const user = (username: string, role: Role, grants: [number, Role][]) => {
      const row = db.insert(t.users).values({ username, passwordHash: 'x', role, createdAt: NOW }).returning().get();
      for (const [organizationId, granted] of grants)
        db.insert(t.organizationRoles).values({ userId: row.id, organizationId, role: granted, createdBy: 'test', createdAt: NOW }).run();
      grantees.set(username, { name: username, role, via: 'session', userId: row.id });
    };
    user('raised', 'viewer', [[demoOrg.id, 'admin']]);
    user('lowered', 'operator', [[demoOrg.id, 'viewer']]);
    user('admin-granted-viewer', 'admin', [[demoOrg.id, 'viewer']]);
    user('admin-elsewhere', 'viewer', [[other.id, 'admin']]);
  });

  const expectedRole = (path: string, global: Role, granted: Role): Role =>
    INSTANCE_PROCEDURE.test(path) || global === 'admin' ? global : granted;

  const orgTable = Object.keys(procedures)
    .sort()
    .map((path) => [path, PROCEDURE_MIN_ROLE[path] ?? 'admin'] as const);

  it.each(orgTable)('%s (needs %s) follows the grant on the organization', async (path, minRole) => {
    const cases: [string, Role, Role][] = [
      ['raised', 'viewer', 'admin'],
      ['lowered', 'operator', 'viewer'],
      ['admin-granted-viewer', 'admin', 'viewer'],
      // a grant on another organization changes nothing here
      ['admin-elsewhere', 'viewer', 'viewer'],
    ];
    for (const [name, global, granted] of cases) {
      const role = expectedRole(path, global, granted);
      const outcome = await call(path, grantees.get(name)!, 'app-sre');
      if (RANK[role] >= RANK[minRole]) expect(outcome, `${path} should let ${name} (${role} here) through`).toEqual({ denied: false });
      else expect(outcome, `${path} must refuse ${name} (${role} here)`).toEqual({ denied: true, code: 'FORBIDDEN' });
    }
  });

  it("an organization's admin grant applies on that organization only", async () => {
    expect(await call('webhooks.list', grantees.get('admin-elsewhere')!, 'other-org')).toEqual({ denied: false });
    expect(await call('webhooks.list', grantees.get('admin-elsewhere')!, 'app-sre')).toEqual({ denied: true, code: 'FORBIDDEN' });
    expect(await call('users.list', grantees.get('admin-elsewhere')!, 'other-org')).toEqual({ denied: true, code: 'FORBIDDEN' });
  });
});
