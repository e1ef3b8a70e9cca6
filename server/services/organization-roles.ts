// Roles per organization: a user may be granted viewer, operator or admin on one organization.
// For a procedure on organization data, the actor's role is the one it has on the request's
// organization (organizationRoleOf, server/auth/actor.ts); instance-wide procedures (users,
// tokens, the scheduler, update graphs, the instance's blocked versions, creating organizations)
// keep the global role, so an organization's admin is not an admin of the instance.
import type { Db } from '@/db/open-database';
import { hasRole, isRole, lowerRole, organizationRoleOf, PERMISSION_ROLE, type Actor, type Role } from '@/server/auth/actor';
import {
  applyOrganizationGrantChanges,
  parseRoleGroups,
  planOrganizationGrants,
  type OrganizationGrant,
  type OrganizationGrantChange,
} from '@/server/auth/oidc/role-mapping';
import { appendAudit } from '@/server/repositories/audit-repository';
import {
  deleteOrganizationRole,
  findOrganizationByName,
  findOrganizationRole,
  listOrganizationRoleGroups,
  listOrganizationRoles,
  listOrganizationRolesOfUser,
  listOrganizations,
  setOrganizationRoleGroups,
  upsertOrganizationRole,
} from '@/server/repositories/organization-repository';
import { withTransaction } from '@/server/repositories/transaction';
import { findUserById, findUserByName, listUsers } from '@/server/repositories/user-repository';
import { AppError } from './app-error';
import { unknownOrganization, type OrganizationScope } from './organization-scope';

/**
 * The actor's role on the whole instance, whatever it was granted on the request's organization:
 * what decides access to instance-wide data (the audit log's admin-only details).
 */
export async function instanceRoleOf(db: Db, actor: Actor): Promise<Role> {
  if (actor.permission || actor.userId === undefined) return actor.role;
  const userRole = (await findUserById(db, actor.userId))?.role;
  if (userRole === undefined || !isRole(userRole)) return 'viewer';
  return actor.tokenScope ? lowerRole(actor.tokenScope, userRole) : userRole;
}

/** The actor as it acts on the request's organization (the same actor when no grant applies). */
export async function actorOnOrganization(db: Db, actor: Actor | null, scope: OrganizationScope): Promise<Actor | null> {
  if (!actor || actor.userId === undefined) return actor;
  let org;
  try {
    org = await scope();
  } catch (err) {
    // an unknown organization holds no grant: the procedure itself answers NOT_FOUND (and for a
    // user without a global role nothing runs on it)
    if (err instanceof AppError) {
      if (actor.organizationsOnly) throw err;
      return actor;
    }
    throw err;
  }
  if (!org) return actor;
  const grant = await findOrganizationRole(db, actor.userId, org.id);
  // without a global role, an organization without a grant does not exist for the user
  if (grant === null && actor.organizationsOnly) throw unknownOrganization(org.name);
  if (grant === null) return actor;
  const userRole = actor.via === 'token' ? (await findUserById(db, actor.userId))?.role : actor.role;
  if (userRole === undefined || !isRole(userRole)) return actor;
  if (actor.permission) {
    // a token scoped to one permission keeps exactly that (a grant never raises it), and only
    // while its owner holds the permission's role on this organization (a grant may lower it)
    const owner = organizationRoleOf({ name: actor.name, role: userRole, via: 'session' }, userRole, grant);
    if (hasRole({ name: actor.name, role: owner, via: 'session' }, PERMISSION_ROLE[actor.permission])) return actor;
    const { permission: _dropped, ...withoutPermission } = actor;
    return withoutPermission;
  }
  const role = organizationRoleOf(actor, userRole, grant);
  return role === actor.role ? actor : { ...actor, role };
}

/** The one writer of an organization's group mapping: the Admin page, the CLI and start-up (FLEETPLAN_OIDC_ORG_ROLE_GROUPS). */
export async function setOrganizationRoleGroupsText(
  db: Db,
  at: Date,
  actorName: string,
  input: { organization: string; mapping: string | null },
): Promise<{ organization: string; mapping: string | null; changed: boolean }> {
  const mapping = input.mapping?.trim() ? input.mapping.trim() : null;
  if (mapping !== null) {
    try {
      parseRoleGroups(mapping);
    } catch (err) {
      throw new AppError('INVALID_INPUT', `The group mapping of ${input.organization}: ${(err as Error).message}`, [
        { path: 'mapping', message: (err as Error).message },
      ]);
    }
  }
  return await withTransaction(db, async (tx) => {
    const org = await findOrganizationByName(tx, input.organization);
    if (!org) throw unknownOrganization(input.organization);
    if (org.oidcRoleGroups === mapping) return { organization: org.name, mapping, changed: false };
    await setOrganizationRoleGroups(tx, org.id, mapping);
    await appendAudit(tx, {
      at,
      actor: actorName,
      action: 'organization.oidc-role-groups',
      organizationId: org.id,
      target: `organization:${org.name}`,
      before: { mapping: org.oidcRoleGroups },
      after: { mapping },
    });
    return { organization: org.name, mapping, changed: true };
  });
}

/** What an OIDC sign-in would change in a user's grants (planned before anything is written). */
export interface GroupGrantPlan {
  changes: OrganizationGrantChange[];
  /** the user's grants once the changes are written */
  after: OrganizationGrant[];
}

/** the audit actor of mappings written at start-up */
export const ORGANIZATION_ROLE_GROUPS_SETTING = 'FLEETPLAN_OIDC_ORG_ROLE_GROUPS';

/**
 * Start-up: writes FLEETPLAN_OIDC_ORG_ROLE_GROUPS's mappings (organization name → mapping text,
 * parsed by server/env.ts) into the organizations, all or none: a name that is no organization
 * stops start-up with a message naming it, before anything is written. Returns the organizations
 * whose mapping changed (audited under `system:FLEETPLAN_OIDC_ORG_ROLE_GROUPS`).
 */
export async function applyOrganizationRoleGroupsSetting(db: Db, mappings: ReadonlyMap<string, string>, at: Date): Promise<string[]> {
  return await withTransaction(db, async (tx) => {
    const unknown: string[] = [];
    for (const name of mappings.keys()) if (!(await findOrganizationByName(tx, name))) unknown.push(name);
    if (unknown.length > 0)
      throw new AppError(
        'INVALID_INPUT',
        `${ORGANIZATION_ROLE_GROUPS_SETTING} names ${unknown.map((n) => `'${n}'`).join(', ')}, which is no organization here (create it with: npx --no fleetplan org create NAME)`,
      );
    const changed: string[] = [];
    for (const [organization, mapping] of mappings) {
      if ((await setOrganizationRoleGroupsText(tx, at, `system:${ORGANIZATION_ROLE_GROUPS_SETTING}`, { organization, mapping })).changed)
        changed.push(organization);
    }
    return changed;
  });
}

/**
 * At an OIDC sign-in: the changes that bring the user's grants from the organizations' group
 * mappings in line with the groups it signed in with (planOrganizationGrants: grants made by hand
 * stay). `userId` null: a user not created yet (no grants).
 */
export async function planGroupGrants(tx: Db, userId: number | null, groups: readonly string[]): Promise<GroupGrantPlan> {
  const current: OrganizationGrant[] =
    userId === null
      ? []
      : (await listOrganizationRolesOfUser(tx, userId)).map((g) => ({ organizationId: g.organizationId, role: g.role, source: g.source }));
  const mappings = new Map((await listOrganizationRoleGroups(tx)).map((o) => [o.id, parseRoleGroups(o.oidcRoleGroups)]));
  const changes = planOrganizationGrants(current, mappings, groups);
  return { changes, after: applyOrganizationGrantChanges(current, changes) };
}

/** Writes a planGroupGrants plan, with an audit row on the organization for each grant added, changed or removed (in the sign-in's transaction). */
export async function writeGroupGrants(
  tx: Db,
  plan: GroupGrantPlan,
  input: { userId: number; username: string; groups: readonly string[]; actorName: string; at: Date },
): Promise<void> {
  const names = new Map((await listOrganizations(tx)).map((o) => [o.id, o.name]));
  const why = { source: 'oidc', reason: 'groups at the identity provider', groups: input.groups };
  for (const c of plan.changes) {
    const organization = names.get(c.organizationId) ?? `#${c.organizationId}`;
    if (c.kind === 'remove') await deleteOrganizationRole(tx, input.userId, c.organizationId);
    else
      await upsertOrganizationRole(tx, {
        userId: input.userId,
        organizationId: c.organizationId,
        role: c.role,
        createdBy: input.actorName,
        createdAt: input.at,
        source: 'oidc',
      });
    await appendAudit(tx, {
      at: input.at,
      actor: input.actorName,
      action: c.kind === 'remove' ? 'user.organization-role.revoke' : 'user.organization-role.grant',
      organizationId: c.organizationId,
      target: `user:${input.username}`,
      before: c.kind === 'add' ? null : { organization, role: c.before },
      after: c.kind === 'remove' ? { organization, ...why } : { organization, role: c.role, ...why },
    });
  }
}

/** The user and the organization a grant or revoke names; NOT_FOUND naming the one that does not exist. */
async function userAndOrganization(tx: Db, input: { username: string; organization: string }) {
  const user = await findUserByName(tx, input.username);
  if (!user) throw new AppError('NOT_FOUND', `No user named ${input.username}`);
  const org = await findOrganizationByName(tx, input.organization);
  if (!org) throw unknownOrganization(input.organization);
  return { user, org };
}

export function createOrganizationRoleService(db: Db, realNow: () => Date) {
  const names = async () => new Map((await listOrganizations(db)).map((o) => [o.id, o.name]));
  return {
    /** every grant: user, organization, role */
    async list() {
      const orgs = await names();
      // one read of the users, not one lookup per grant
      const usernames = new Map((await listUsers(db)).map((u) => [u.id, u.username]));
      return (await listOrganizationRoles(db)).map((g) => ({
        userId: g.userId,
        username: usernames.get(g.userId) ?? `#${g.userId}`,
        organization: orgs.get(g.organizationId) ?? `#${g.organizationId}`,
        role: g.role,
        source: g.source,
      }));
    },

    /** each organization's OIDC group mapping (null: none) */
    async listRoleGroups() {
      return (await listOrganizations(db)).map((o) => ({ organization: o.name, mapping: o.oidcRoleGroups }));
    },

    /**
     * sets (or with null / blank text clears) the OIDC group mapping of `organization`; the text
     * is checked by the same parser as FLEETPLAN_OIDC_ROLE_GROUPS and stored as written (trimmed).
     * Users' grants follow at their next sign-in. Audited on the organization.
     */
    async setRoleGroups(actor: Actor, input: { organization: string; mapping: string | null }) {
      return await setOrganizationRoleGroupsText(db, realNow(), actor.name, input);
    },

    /** grants `role` on `organization` to `username` (replacing a grant there); audited */
    async grant(actor: Actor, input: { username: string; organization: string; role: Role }) {
      return await withTransaction(db, async (tx) => {
        const { user, org } = await userAndOrganization(tx, input);
        const before = await findOrganizationRole(tx, user.id, org.id);
        const at = realNow();
        // a grant by hand is the admin's from now on: sign-ins no longer recompute it from the groups
        await upsertOrganizationRole(tx, {
          userId: user.id,
          organizationId: org.id,
          role: input.role,
          createdBy: actor.name,
          createdAt: at,
          source: 'manual',
        });
        await appendAudit(tx, {
          at,
          actor: actor.name,
          action: 'user.organization-role.grant',
          organizationId: org.id,
          target: `user:${user.username}`,
          before: before ? { organization: org.name, role: before } : null,
          after: { organization: org.name, role: input.role },
        });
        return { username: user.username, organization: org.name, role: input.role };
      });
    },

    /** removes the user's grant on `organization` (their global role holds there again); NOT_FOUND when there is none */
    async revoke(actor: Actor, input: { username: string; organization: string }) {
      return await withTransaction(db, async (tx) => {
        const { user, org } = await userAndOrganization(tx, input);
        const before = await findOrganizationRole(tx, user.id, org.id);
        if (!before || !(await deleteOrganizationRole(tx, user.id, org.id)))
          throw new AppError('NOT_FOUND', `${user.username} has no role on organization ${org.name}`);
        await appendAudit(tx, {
          at: realNow(),
          actor: actor.name,
          action: 'user.organization-role.revoke',
          organizationId: org.id,
          target: `user:${user.username}`,
          before: { organization: org.name, role: before },
        });
        return { username: user.username, organization: org.name };
      });
    },
  };
}
