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
