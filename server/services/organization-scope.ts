// Which organization a request (or a CLI command, or one organization's pass of a scheduler tick)
// works on. The one rule, for every procedure that reads or writes organization data:
//
//   1. the organization the request names (the tRPC client's `x-fleetplan-org` header, from the
//      page's `?org=NAME`; the CLI's `--org NAME`) — an unknown name is NOT_FOUND, so nothing is
//      read from or written to another organization by mistake;
//   2. else the organization the signed-in user last chose (the top bar's switcher);
//   3. else the first organization (lowest id).
//
// A user without a global role (users.organizations_only: an OIDC identity only an organization's
// group mapping let in) sees only the organizations it holds a grant on: another one's name is
// NOT_FOUND, as if it did not exist, and 2. and 3. pick among the granted ones.
//
// Services receive the scope and call it where they used to read "the" organization; the row is
// read again at each call (a freeze or a rename during the request is seen), the choice is made once.
import type { Db } from '@/db/open-database';
import {
  findFirstOrganization,
  findOrganizationById,
  findOrganizationByName,
  listOrganizationRolesOfUser,
  readSelectedOrganizationId,
  type OrganizationRow,
} from '@/server/repositories/organization-repository';
import { findUserById } from '@/server/repositories/user-repository';
import { AppError } from './app-error';

/** The request's organization; undefined only while the instance has none. Throws NOT_FOUND for an unknown requested name. */
export type OrganizationScope = () => Promise<OrganizationRow | undefined>;

/** The HTTP header the tRPC client sends the selected organization's name in (URI-encoded). */
export const ORGANIZATION_HEADER = 'x-fleetplan-org';

export function unknownOrganization(name: string): AppError {
  return new AppError('NOT_FOUND', `There is no organization named ${JSON.stringify(name)}`);
}

/** The id the rule above picks, or undefined when there is no organization at all. */
export async function pickOrganizationId(db: Db, requested: { name?: string | null; userId?: number | null }): Promise<number | undefined> {
  const visible = requested.userId != null ? await grantedOrganizationIdsOf(db, requested.userId) : null;
  const isVisible = (id: number) => visible === null || visible.includes(id);
  if (requested.name) {
    const named = await findOrganizationByName(db, requested.name);
    if (!named || !isVisible(named.id)) throw unknownOrganization(requested.name);
    return named.id;
  }
  if (requested.userId != null) {
    const selected = await readSelectedOrganizationId(db, requested.userId);
    if (selected !== null && isVisible(selected) && (await findOrganizationById(db, selected))) return selected;
  }
  return visible === null ? (await findFirstOrganization(db))?.id : visible[0];
}

/**
 * The organizations a user without a global role may see (ids, ascending: those it holds a grant
 * on); null for every other user, who sees them all.
 */
export async function grantedOrganizationIdsOf(db: Db, userId: number): Promise<number[] | null> {
  if (!(await findUserById(db, userId))?.organizationsOnly) return null;
  return (await listOrganizationRolesOfUser(db, userId)).map((g) => g.organizationId);
}

/** The scope of a request or command: picked at its first use, the row read at every use. */
export function organizationScope(db: Db, requested: { name?: string | null; userId?: number | null } = {}): OrganizationScope {
  let picked: { id: number | undefined } | null = null;
  return async () => {
    picked ??= { id: await pickOrganizationId(db, requested) };
    if (picked.id === undefined) {
      // a user without a global role and without grants sees none, whatever exists
      if (requested.userId != null && (await grantedOrganizationIdsOf(db, requested.userId)) !== null) return undefined;
      // none existed when picked: one may have been created since (a set-up in this request)
      const first = await findFirstOrganization(db);
      if (first) picked = { id: first.id };
      return first;
    }
    const row = await findOrganizationById(db, picked.id);
    if (!row) throw new AppError('NOT_FOUND', `The organization (id ${picked.id}) was removed`);
    return row;
  };
}

/** A scope fixed to one organization (a scheduler pass over it, a test). */
export function fixedOrganizationScope(db: Db, organizationId: number): OrganizationScope {
  return async () => {
    const row = await findOrganizationById(db, organizationId);
    if (!row) throw new AppError('NOT_FOUND', `The organization (id ${organizationId}) was removed`);
    return row;
  };
}

/** The scope's organization, or NOT_FOUND when the instance has none yet. */
export async function requireScopedOrganization(scope: OrganizationScope): Promise<OrganizationRow> {
  const org = await scope();
  if (!org) throw new AppError('NOT_FOUND', 'No organization yet: seed the demo fleet or import an organization file');
  return org;
}
