// Who is calling. Every tRPC procedure declares the least role it needs (server/api/trpc.ts).
export const ROLES = ['viewer', 'operator', 'admin'] as const;
export type Role = (typeof ROLES)[number];

export interface Actor {
  /** username, or `token:<name>` for API tokens, or `system:<name>` for internal callers */
  name: string;
  role: Role;
  via: 'session' | 'token' | 'system';
}

const RANK: Record<Role, number> = { viewer: 0, operator: 1, admin: 2 };

export function hasRole(actor: Actor | null, needed: Role): boolean {
  return actor !== null && RANK[actor.role] >= RANK[needed];
}
