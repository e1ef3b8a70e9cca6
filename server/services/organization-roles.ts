// Roles per organization: a user may be granted viewer, operator or admin on one organization.
// For a procedure on organization data, the actor's role is the one it has on the request's
// organization (organizationRoleOf, server/auth/actor.ts); instance-wide procedures (users,
// tokens, the scheduler, update graphs, the instance's blocked versions, creating organizations)
// keep the global role, so an organization's admin is not an admin of the instance.
import type { Db } from '@/db/open-database';
import { hasRole, isRole, lowerRole, organizationRoleOf, PERMISSION_ROLE, type Actor, type Role } from '@/server/auth/actor';
import { appendAudit } from '@/server/repositories/audit-repository';
import {
  deleteOrganizationRole,
  findOrganizationByName,
  findOrganizationRole,
  listOrganizationRoles,
  listOrganizations,
  upsertOrganizationRole,
} from '@/server/repositories/organization-repository';
import { withTransaction } from '@/server/repositories/transaction';
import { findUserById, findUserByName } from '@/server/repositories/user-repository';
import { AppError } from './app-error';
import { unknownOrganization, type OrganizationScope } from './organization-scope';

/**
 * The actor's role on the whole instance, whatever it was granted on the request's organization:
 * what decides access to instance-wide data (the audit log's admin-only details).
 */
export function instanceRoleOf(db: Db, actor: Actor): Role {
  if (actor.permission || actor.userId === undefined) return actor.role;
  const userRole = findUserById(db, actor.userId)?.role;
  if (userRole === undefined || !isRole(userRole)) return 'viewer';
  return actor.tokenScope ? lowerRole(actor.tokenScope, userRole) : userRole;
}

/** The actor as it acts on the request's organization (the same actor when no grant applies). */
export function actorOnOrganization(db: Db, actor: Actor | null, scope: OrganizationScope): Actor | null {
  if (!actor || actor.userId === undefined) return actor;
  let org;
  try {
    org = scope();
  } catch (err) {
    // an unknown organization holds no grant: the procedure itself answers NOT_FOUND
    if (err instanceof AppError) return actor;
    throw err;
  }
  if (!org) return actor;
  const grant = findOrganizationRole(db, actor.userId, org.id);
  if (grant === null) return actor;
  const userRole = actor.via === 'token' ? findUserById(db, actor.userId)?.role : actor.role;
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

export function createOrganizationRoleService(db: Db, realNow: () => Date) {
  const names = () => new Map(listOrganizations(db).map((o) => [o.id, o.name]));
  return {
    /** every grant: user, organization, role */
    list() {
      const orgs = names();
      return listOrganizationRoles(db).map((g) => ({
        userId: g.userId,
        username: findUserById(db, g.userId)?.username ?? `#${g.userId}`,
        organization: orgs.get(g.organizationId) ?? `#${g.organizationId}`,
        role: g.role,
      }));
    },

    /** grants `role` on `organization` to `username` (replacing a grant there); audited */
    grant(actor: Actor, input: { username: string; organization: string; role: Role }) {
      return withTransaction(db, (tx) => {
        const user = findUserByName(tx, input.username);
        if (!user) throw new AppError('NOT_FOUND', `No user named ${input.username}`);
        const org = findOrganizationByName(tx, input.organization);
        if (!org) throw unknownOrganization(input.organization);
        const before = findOrganizationRole(tx, user.id, org.id);
        const at = realNow();
        upsertOrganizationRole(tx, { userId: user.id, organizationId: org.id, role: input.role, createdBy: actor.name, createdAt: at });
        appendAudit(tx, {
          at,
          actor: actor.name,
          action: 'user.organization-role.grant',
          target: `user:${user.username}`,
          before: before ? { organization: org.name, role: before } : null,
          after: { organization: org.name, role: input.role },
        });
        return { username: user.username, organization: org.name, role: input.role };
      });
    },

    /** removes the user's grant on `organization` (their global role holds there again); NOT_FOUND when there is none */
    revoke(actor: Actor, input: { username: string; organization: string }) {
      return withTransaction(db, (tx) => {
        const user = findUserByName(tx, input.username);
        if (!user) throw new AppError('NOT_FOUND', `No user named ${input.username}`);
        const org = findOrganizationByName(tx, input.organization);
        if (!org) throw unknownOrganization(input.organization);
        const before = findOrganizationRole(tx, user.id, org.id);
        if (!before || !deleteOrganizationRole(tx, user.id, org.id))
          throw new AppError('NOT_FOUND', `${user.username} has no role on organization ${org.name}`);
        appendAudit(tx, {
          at: realNow(),
          actor: actor.name,
          action: 'user.organization-role.revoke',
          target: `user:${user.username}`,
          before: { organization: org.name, role: before },
        });
        return { username: user.username, organization: org.name };
      });
    },
  };
}
