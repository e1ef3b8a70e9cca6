// Who is calling. Every tRPC procedure declares the least role it needs (server/api/trpc.ts).
export const ROLES = ['viewer', 'operator', 'admin'] as const;
export type Role = (typeof ROLES)[number];

/**
 * Narrow permissions an API token may carry instead of a role: `approvals:write` approves sectors'
 * gates (a CI job's token) and does nothing else, not even read.
 */
export const TOKEN_PERMISSIONS = ['approvals:write'] as const;
export type TokenPermission = (typeof TOKEN_PERMISSIONS)[number];
/** what an API token is scoped to: a role, or one permission */
export const TOKEN_SCOPES = [...ROLES, ...TOKEN_PERMISSIONS] as const;
export type TokenScope = (typeof TOKEN_SCOPES)[number];

/** the role a token owner needs to hand out a permission */
export const PERMISSION_ROLE: Record<TokenPermission, Role> = { 'approvals:write': 'operator' };

export function isTokenPermission(value: string): value is TokenPermission {
  return (TOKEN_PERMISSIONS as readonly string[]).includes(value);
}

export interface Actor {
  /** username; `token:<token name>@<username>` for API tokens; `system:<name>` for internal callers */
  name: string;
  role: Role;
  via: 'session' | 'token' | 'system';
  /** the signed-in user's id (sessions and tokens) */
  userId?: number;
  /** SHA-256 of the session token, so logout can end exactly this session */
  sessionIdHash?: string;
  /** the API token used, when via = 'token' */
  tokenId?: number;
  /**
   * a token scoped to one permission (TOKEN_PERMISSIONS): it may call only the procedures that
   * accept that permission, whatever `role` says (`viewer`, the least)
   */
  permission?: TokenPermission;
  /** signed in with a printed or admin-set password: only changing it (and signing out) works */
  mustChangePassword?: boolean;
  /** an API token's own scope (its `role` is already capped by the owner's global role) */
  tokenScope?: Role;
  /**
   * the user has no global role (users.organizations_only): it reaches only the organizations it
   * holds a grant on, the others do not exist for it; `role` (viewer) covers the instance's pages
   */
  organizationsOnly?: boolean;
}

const RANK: Record<Role, number> = { viewer: 0, operator: 1, admin: 2 };

export function hasRole(actor: Actor | null, needed: Role): boolean {
  return actor !== null && RANK[actor.role] >= RANK[needed];
}

export function isRole(value: string): value is Role {
  return (ROLES as readonly string[]).includes(value);
}

/**
 * The role an actor has on one organization. The rule (README, Organizations): a user's grant on
 * the organization replaces their global role there, raising or lowering it; global admins are
 * admins everywhere; without a grant the global role holds. An API token stays capped by its
 * scope. `userRole` is the user's global role (the actor's own for sessions).
 */
export function organizationRoleOf(actor: Actor, userRole: Role, grant: Role | null): Role {
  const user = userRole === 'admin' ? 'admin' : (grant ?? userRole);
  return actor.tokenScope ? lowerRole(actor.tokenScope, user) : user;
}

/** the weaker of two roles (a token's scope capped by its owner's current role) */
export function lowerRole(a: Role, b: Role): Role {
  return RANK[a] <= RANK[b] ? a : b;
}
