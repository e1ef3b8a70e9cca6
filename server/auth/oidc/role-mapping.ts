// Which role an identity from the team's OIDC provider gets, from its groups. Written as
// FLEETPLAN_OIDC_ROLE_GROUPS="admin=fleet-admins;operator=sre,oncall;viewer=*": roles separated by
// `;`, each with the groups (comma-separated) that grant it; `*` is any signed-in identity. The
// highest role any of the identity's groups grants wins; no match refuses the sign-in (a user who
// is in none of the configured groups must not get in with a default role).
import { ROLES, type Role } from '../actor';

export type RoleGroups = ReadonlyMap<Role, ReadonlySet<string>>;

export const ANY_GROUP = '*';

/** Parses the setting; throws with a message naming the first problem. */
export function parseRoleGroups(text: string): RoleGroups {
  const mapping = new Map<Role, Set<string>>();
  for (const part of text.split(';')) {
    if (part.trim() === '') continue;
    const eq = part.indexOf('=');
    if (eq < 0) throw new Error(`'${part.trim()}' is not ROLE=GROUP[,GROUP…]`);
    const role = part.slice(0, eq).trim();
    if (!(ROLES as readonly string[]).includes(role)) throw new Error(`'${role}' is not a role (${ROLES.join(', ')})`);
    if (mapping.has(role as Role)) throw new Error(`the role '${role}' is given twice`);
    const groups = part
      .slice(eq + 1)
      .split(',')
      .map((g) => g.trim())
      .filter(Boolean);
    if (groups.length === 0) throw new Error(`the role '${role}' names no group`);
    mapping.set(role as Role, new Set(groups));
  }
  if (mapping.size === 0) throw new Error('no role is mapped to a group');
  return mapping;
}

/** The highest role the groups grant, or null when none does. */
export function roleForGroups(mapping: RoleGroups, groups: readonly string[]): Role | null {
  for (const role of [...ROLES].reverse()) {
    const granted = mapping.get(role);
    if (!granted) continue;
    if (granted.has(ANY_GROUP) || groups.some((g) => granted.has(g))) return role;
  }
  return null;
}

/**
 * FLEETPLAN_OIDC_ORG_ROLE_GROUPS: each organization's mapping, `ORG:MAPPING` separated by `|`
 * (`team-a:operator=team-a;viewer=staff|team-b:admin=b-admins`), MAPPING as above. Organization
 * names hold neither `:` nor `|` (letters, digits, `.`, `-`, `_`). Returns each organization's
 * mapping text as written (what is stored and shown) after checking it parses; throws with a
 * message naming the first problem.
 */
export function parseOrganizationRoleGroups(text: string): ReadonlyMap<string, string> {
  const byOrganization = new Map<string, string>();
  for (const part of text.split('|')) {
    if (part.trim() === '') continue;
    const colon = part.indexOf(':');
    if (colon < 0) throw new Error(`'${part.trim()}' is not ORGANIZATION:ROLE=GROUP[,GROUP…][;…]`);
    const organization = part.slice(0, colon).trim();
    if (organization === '') throw new Error(`'${part.trim()}' names no organization`);
    if (byOrganization.has(organization)) throw new Error(`the organization '${organization}' is given twice`);
    const mapping = part.slice(colon + 1).trim();
    try {
      parseRoleGroups(mapping);
    } catch (err) {
      throw new Error(`${organization}: ${(err as Error).message}`);
    }
    byOrganization.set(organization, mapping);
  }
  if (byOrganization.size === 0) throw new Error('no organization is given a mapping');
  return byOrganization;
}

/** where a grant on an organization came from: an admin (`manual`) or the organization's group mapping (`oidc`) */
export type GrantSource = 'manual' | 'oidc';

export interface OrganizationGrant {
  organizationId: number;
  role: Role;
  source: GrantSource;
}

export type OrganizationGrantChange =
  | { kind: 'add'; organizationId: number; role: Role }
  | { kind: 'change'; organizationId: number; before: Role; role: Role }
  | { kind: 'remove'; organizationId: number; before: Role };

/**
 * The changes that bring a user's grants from its organizations' group mappings in line with the
 * groups it signed in with. Rules: a grant an admin made by hand (`manual`) is never touched, so
 * it wins over the mapping; an organization whose mapping matches gets (or keeps) an `oidc` grant
 * of the highest role the groups grant there; an `oidc` grant that no mapping supports any more
 * (the user left the group, the mapping changed or was cleared) is removed. Ordered by
 * organization id, so the audit rows come out in a stable order.
 */
export function planOrganizationGrants(
  current: readonly OrganizationGrant[],
  mappings: ReadonlyMap<number, RoleGroups>,
  groups: readonly string[],
): OrganizationGrantChange[] {
  const byOrganization = new Map(current.map((g) => [g.organizationId, g]));
  const organizationIds = [...new Set([...byOrganization.keys(), ...mappings.keys()])].sort((a, b) => a - b);
  const changes: OrganizationGrantChange[] = [];
  for (const organizationId of organizationIds) {
    const grant = byOrganization.get(organizationId);
    if (grant?.source === 'manual') continue;
    const mapping = mappings.get(organizationId);
    const role = mapping ? roleForGroups(mapping, groups) : null;
    if (!grant) {
      if (role !== null) changes.push({ kind: 'add', organizationId, role });
    } else if (role === null) changes.push({ kind: 'remove', organizationId, before: grant.role });
    else if (role !== grant.role) changes.push({ kind: 'change', organizationId, before: grant.role, role });
  }
  return changes;
}

/** The grants after `changes` (planOrganizationGrants) are applied to `current`. */
export function applyOrganizationGrantChanges(
  current: readonly OrganizationGrant[],
  changes: readonly OrganizationGrantChange[],
): OrganizationGrant[] {
  const byOrganization = new Map(current.map((g) => [g.organizationId, g]));
  for (const c of changes) {
    if (c.kind === 'remove') byOrganization.delete(c.organizationId);
    else byOrganization.set(c.organizationId, { organizationId: c.organizationId, role: c.role, source: 'oidc' });
  }
  return [...byOrganization.values()].sort((a, b) => a.organizationId - b.organizationId);
}
