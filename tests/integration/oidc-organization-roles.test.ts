// Group → role mapping per organization through the real OIDC sign-in (the test IdP,
// tests/fakes/test-oidc-idp.ts): an organization's mapping grants roles there at each sign-in,
// a group left removes the grant at the next one, grants made by hand stay, and a user that only
// an organization's mapping lets in reaches that organization and no other — checked through
// the tRPC procedures with the session the sign-in started.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '@/db/open-database';
import { auditLog, organizationRoles, sessions, users } from '@/db/schema';
import { createCaller } from '@/server/api/root';
import { createContextInner } from '@/server/api/trpc';
import { SESSION_COOKIE } from '@/server/auth/cookies';
import { resolveRequestActor } from '@/server/auth/resolve-request-actor';
import { parseEnv, type FleetplanEnv } from '@/server/env';
import { appendAudit } from '@/server/repositories/audit-repository';
import { findOrganizationByName, insertEmptyOrganization } from '@/server/repositories/organization-repository';
import { AppError } from '@/server/services/app-error';
import { createAuthService } from '@/server/services/auth-service';
import {
  applyOrganizationRoleGroupsSetting,
  createOrganizationRoleService,
  setOrganizationRoleGroupsText,
} from '@/server/services/organization-roles';
import { flowCookieOf, followProviderRedirects } from '../fakes/oidc-browser';
import { corpOidcSettings, startTestIdp, type TestIdp } from '../fakes/test-oidc-idp';

const ORIGIN = 'http://fleetplan.test';
const REDIRECT_URI = `${ORIGIN}/api/auth/corp/callback`;
const NOW = new Date('2026-11-25T09:00:00Z');

let idp: TestIdp;
let env: FleetplanEnv;
let db: Db;

beforeAll(async () => {
  idp = await startTestIdp({ redirectUris: [REDIRECT_URI] });
  env = parseEnv({
    ...corpOidcSettings(idp, 'admin=fleet-admins;viewer=staff'),
    FLEETPLAN_ADMIN_PASSWORD: 'an admin password for the test 1',
  });
});
afterAll(() => idp.close());
beforeEach(async () => {
  db = openDatabase(':memory:');
  for (const name of ['team-a', 'team-b']) await insertEmptyOrganization(db, name, NOW);
  await setOrganizationRoleGroupsText(db, NOW, 'admin', { organization: 'team-a', mapping: 'operator=team-a;viewer=team-a-readers' });
  await setOrganizationRoleGroupsText(db, NOW, 'admin', { organization: 'team-b', mapping: 'admin=team-b' });
});

/** The whole sign-in as the test IdP's next user; returns the session cookie it set. */
async function signIn(account: { sub: string; preferred_username: string; groups: string[] }): Promise<string> {
  idp.loginAs(account);
  const service = createAuthService({ db, realNow: () => NOW, env });
  const begin = await service.beginExternalSignIn({ providerId: 'corp', next: '/fleet', origin: ORIGIN, secure: false });
  const callback = await followProviderRedirects(begin.location, ORIGIN);
  const cookies: string[] = [];
  await service.completeExternalSignIn({
    providerId: 'corp',
    callbackUrl: callback,
    flowCookie: flowCookieOf(begin.cookie),
    cookies: { secure: false, set: (c) => cookies.push(c) },
    clientAddress: '203.0.113.9',
  });
  const session = cookies.find((c) => c.startsWith(`${SESSION_COOKIE}=`));
  if (!session) throw new Error('the sign-in set no session cookie');
  return session.split(';')[0]!;
}

/** A tRPC caller acting as the browser holding `sessionCookie`, on `organization` (?org=) or the default one. */
async function callerWith(sessionCookie: string, organization?: string) {
  const { actor } = await resolveRequestActor(db, new Request(`${ORIGIN}/api/trpc`, { headers: { cookie: sessionCookie } }), NOW);
  return createCaller(createContextInner({ db, fleetNow: () => NOW, realNow: () => NOW, env, actor, organization }));
}

const grantsOf = async (username: string) => {
  const user = db
    .select()
    .from(users)
    .all()
    .find((u) => u.username === username)!;
  const teamA = (await findOrganizationByName(db, 'team-a'))!.id;
  return db
    .select()
    .from(organizationRoles)
    .all()
    .filter((g) => g.userId === user.id)
    .map((g) => ({ organization: g.organizationId === teamA ? 'team-a' : 'team-b', role: g.role, source: g.source }));
};

async function codeOf(promise: Promise<unknown>): Promise<string> {
  const err: unknown = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  if (!err || typeof err !== 'object' || !('code' in err)) throw new Error(`expected a refusal, got ${String(err)}`);
  return String(err.code);
}

describe('OIDC group → role mapping per organization', () => {
  it('lets in a user only an organization maps, with that role there, and hides every other organization', async () => {
    const cookie = await signIn({ sub: 'u-a', preferred_username: 'anna', groups: ['team-a'] });
    expect(db.select().from(users).all()).toEqual([expect.objectContaining({ username: 'anna', role: 'viewer', organizationsOnly: true })]);
    expect(await grantsOf('anna')).toEqual([{ organization: 'team-a', role: 'operator', source: 'oidc' }]);

    const onDefault = await callerWith(cookie);
    expect(await onDefault.organizations.list()).toMatchObject({ organizations: [{ name: 'team-a' }], current: 'team-a' });
    expect(await onDefault.auth.me()).toMatchObject({ username: 'anna', organizationRole: 'operator' });
    // operator there: an operator's procedure on team-a works; on team-b it is as if there were no team-b
    const window = { scope: 'organization' as const, startsAt: '2026-12-01T00:00:00Z', endsAt: '2026-12-02T00:00:00Z', reason: 'freeze' };
    await expect(onDefault.exclusions.create(window)).resolves.toMatchObject({ scope: 'organization' });
    const onB = await callerWith(cookie, 'team-b');
    expect(await codeOf(onB.exclusions.create(window))).toBe('NOT_FOUND');
    expect(await codeOf(onB.exclusions.list())).toBe('NOT_FOUND');
    expect(await codeOf(onB.organizations.select({ name: 'team-b' }))).toBe('NOT_FOUND');
    expect(await onB.auth.me()).toMatchObject({ organizationRole: null });

    // the Admin page's users list says so
    const root = createCaller(
      createContextInner({ db, fleetNow: () => NOW, realNow: () => NOW, env, actor: { name: 'root', role: 'admin', via: 'system' } }),
    );
    expect(await root.users.list()).toEqual(
      expect.arrayContaining([expect.objectContaining({ username: 'anna', signsInWith: 'corp', organizationsOnly: true })]),
    );

    const grantAudit = db
      .select()
      .from(auditLog)
      .all()
      .filter((r) => r.action === 'user.organization-role.grant');
    expect(grantAudit).toEqual([
      expect.objectContaining({
        actor: 'system:corp',
        target: 'user:anna',
        organizationId: (await findOrganizationByName(db, 'team-a'))!.id,
        after: { organization: 'team-a', role: 'operator', source: 'oidc', reason: 'groups at the identity provider', groups: ['team-a'] },
      }),
    ]);
  });

  it('removes the grant at the next sign-in once the user left the group (audited), and refuses when nothing is left', async () => {
    await signIn({ sub: 'u-a', preferred_username: 'anna', groups: ['team-a', 'staff'] });
    expect(await grantsOf('anna')).toEqual([{ organization: 'team-a', role: 'operator', source: 'oidc' }]);

    await signIn({ sub: 'u-a', preferred_username: 'anna', groups: ['staff'] });
    expect(await grantsOf('anna')).toEqual([]);
    const revoke = db
      .select()
      .from(auditLog)
      .all()
      .find((r) => r.action === 'user.organization-role.revoke');
    expect(revoke).toMatchObject({
      target: 'user:anna',
      organizationId: (await findOrganizationByName(db, 'team-a'))!.id,
      before: { organization: 'team-a', role: 'operator' },
    });

    // neither the global mapping nor any organization's: refused, and the access the groups gave goes
    // (the global role, the sessions); a new identity in no mapped group is not stored at all
    await signIn({ sub: 'u-a', preferred_username: 'anna', groups: ['team-a'] });
    expect(await grantsOf('anna')).toEqual([{ organization: 'team-a', role: 'operator', source: 'oidc' }]);
    const anna = () =>
      db
        .select()
        .from(users)
        .all()
        .find((u) => u.username === 'anna')!;
    expect(
      db
        .select()
        .from(sessions)
        .all()
        .filter((x) => x.userId === anna().id).length,
    ).toBeGreaterThan(0);
    const err = await signIn({ sub: 'u-a', preferred_username: 'anna', groups: ['marketing'] }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe('FORBIDDEN');
    expect(await grantsOf('anna')).toEqual([]);
    expect(anna()).toMatchObject({ organizationsOnly: true });
    expect(
      db
        .select()
        .from(sessions)
        .all()
        .filter((x) => x.userId === anna().id),
    ).toEqual([]);
    const usersBefore = db.select().from(users).all().length;
    await expect(signIn({ sub: 'u-new', preferred_username: 'nobody', groups: ['marketing'] })).rejects.toBeInstanceOf(AppError);
    expect(db.select().from(users).all().length).toBe(usersBefore);
  });

  it('keeps a grant an admin made by hand, whatever the groups, and follows a changed mapping at the next sign-in', async () => {
    await signIn({ sub: 'u-a', preferred_username: 'anna', groups: ['team-a'] });
    const admin = { name: 'root', role: 'admin' as const, via: 'session' as const };
    await createOrganizationRoleService(db, () => NOW).grant(admin, { username: 'anna', organization: 'team-b', role: 'viewer' });

    await signIn({ sub: 'u-a', preferred_username: 'anna', groups: ['team-a-readers', 'team-b'] });
    expect(await grantsOf('anna')).toEqual([
      { organization: 'team-a', role: 'viewer', source: 'oidc' },
      // team-b maps team-b to admin, but the hand-made grant wins
      { organization: 'team-b', role: 'viewer', source: 'manual' },
    ]);

    await setOrganizationRoleGroupsText(db, NOW, 'root', { organization: 'team-a', mapping: null });
    await signIn({ sub: 'u-a', preferred_username: 'anna', groups: ['team-a-readers'] });
    expect(await grantsOf('anna')).toEqual([{ organization: 'team-b', role: 'viewer', source: 'manual' }]);
  });

  it('refuses a mapping that does not parse, naming the problem, and changes nothing', async () => {
    await expect(
      async () => await setOrganizationRoleGroupsText(db, NOW, 'root', { organization: 'team-a', mapping: 'boss=ops' }),
    ).rejects.toThrow("The group mapping of team-a: 'boss' is not a role");
    await expect(
      async () => await setOrganizationRoleGroupsText(db, NOW, 'root', { organization: 'nope', mapping: 'viewer=*' }),
    ).rejects.toThrow('nope');
    expect((await findOrganizationByName(db, 'team-a'))!.oidcRoleGroups).toBe('operator=team-a;viewer=team-a-readers');
  });
});

describe('FLEETPLAN_OIDC_ORG_ROLE_GROUPS at start-up', () => {
  it('writes the mappings (audited), and with an unknown organization refuses, naming it, and writes none', async () => {
    expect(await applyOrganizationRoleGroupsSetting(db, new Map([['team-b', 'viewer=*']]), NOW)).toEqual(['team-b']);
    expect(await applyOrganizationRoleGroupsSetting(db, new Map([['team-b', 'viewer=*']]), NOW)).toEqual([]);
    await expect(
      async () =>
        await applyOrganizationRoleGroupsSetting(
          db,
          new Map([
            ['team-a', 'admin=x'],
            ['team-z', 'viewer=*'],
          ]),
          NOW,
        ),
    ).rejects.toThrow("FLEETPLAN_OIDC_ORG_ROLE_GROUPS names 'team-z', which is no organization here");
    expect((await findOrganizationByName(db, 'team-a'))!.oidcRoleGroups).toBe('operator=team-a;viewer=team-a-readers');
    expect((await findOrganizationByName(db, 'team-b'))!.oidcRoleGroups).toBe('viewer=*');
    expect(
      db
        .select()
        .from(auditLog)
        .all()
        .filter((r) => r.actor === 'system:FLEETPLAN_OIDC_ORG_ROLE_GROUPS')
        .map((r) => [r.action, r.target]),
    ).toEqual([['organization.oidc-role-groups', 'organization:team-b']]);
  });
});

describe('the audit log per organization', () => {
  it("shows a user with a role on one organization only that organization's rows and the instance's, never another's", async () => {
    const cookie = await signIn({ sub: 'u-a', preferred_username: 'anna', groups: ['team-a'] });
    const a = (await findOrganizationByName(db, 'team-a'))!.id;
    const b = (await findOrganizationByName(db, 'team-b'))!.id;
    await appendAudit(db, { at: NOW, actor: 'root', action: 'organization.provider', target: 'organization:team-b', organizationId: b });
    await appendAudit(db, { at: NOW, actor: 'root', action: 'organization.provider', target: 'organization:team-a', organizationId: a });

    const anna = await callerWith(cookie);
    const seen = await anna.activity.changes({ limit: 200, offset: 0 });
    expect(seen.rows.length).toBeGreaterThan(0);
    expect(new Set(seen.rows.map((r) => r.organization))).toEqual(new Set(['team-a', null]));
    expect(seen.rows.some((r) => r.target === 'organization:team-a')).toBe(true);
    expect(await codeOf(anna.activity.changes({ limit: 200, offset: 0, allOrganizations: true }))).toBe('FORBIDDEN');
    expect(await codeOf((await callerWith(cookie, 'team-b')).activity.changes({ limit: 200, offset: 0 }))).toBe('NOT_FOUND');

    // a global admin sees the request's organization by default, and every one when asking
    const root = createCaller(
      createContextInner({
        db,
        fleetNow: () => NOW,
        realNow: () => NOW,
        env,
        actor: { name: 'root', role: 'admin', via: 'system' },
        organization: 'team-a',
      }),
    );
    expect((await root.activity.changes({ limit: 200, offset: 0 })).rows.some((r) => r.organization === 'team-b')).toBe(false);
    const all = await root.activity.changes({ limit: 200, offset: 0, allOrganizations: true });
    expect(all.rows.filter((r) => r.target === 'organization:team-b').map((r) => r.organization)).toContain('team-b');
  });
});
