// The organizations the app manages. An instance holds any number; a request, a CLI command or a
// scheduler pass works on one (server/services/organization-scope.ts picks it).
import { and, asc, eq, isNotNull } from 'drizzle-orm';
import { organizationRoles, organizations, users, type RoleValue } from '@/db/schema';
import type { Db } from '@/db/open-database';

export type OrganizationRow = typeof organizations.$inferSelect;

/** The first organization (lowest id): the one a request lands on when it names none; undefined before one exists. */
export function findFirstOrganization(db: Db): OrganizationRow | undefined {
  return db.select().from(organizations).orderBy(asc(organizations.id)).get();
}

export function findOrganizationById(db: Db, id: number): OrganizationRow | undefined {
  return db.select().from(organizations).where(eq(organizations.id, id)).get();
}

export function findOrganizationByName(db: Db, name: string): OrganizationRow | undefined {
  return db.select().from(organizations).where(eq(organizations.name, name)).get();
}

/** Every organization, oldest first. */
export function listOrganizations(db: Db): OrganizationRow[] {
  return db.select().from(organizations).orderBy(asc(organizations.id)).all();
}

/** The organization `userId` last chose (null: none, or it was deleted). */
export function readSelectedOrganizationId(db: Db, userId: number): number | null {
  return db.select({ id: users.selectedOrganizationId }).from(users).where(eq(users.id, userId)).get()?.id ?? null;
}

export function writeSelectedOrganizationId(db: Db, userId: number, organizationId: number): void {
  db.update(users).set({ selectedOrganizationId: organizationId }).where(eq(users.id, userId)).run();
}

export type OrganizationRoleRow = typeof organizationRoles.$inferSelect;

/** The role `userId` was granted on `organizationId`, if any. */
export function findOrganizationRole(db: Db, userId: number, organizationId: number): RoleValue | null {
  return (
    db
      .select({ role: organizationRoles.role })
      .from(organizationRoles)
      .where(and(eq(organizationRoles.userId, userId), eq(organizationRoles.organizationId, organizationId)))
      .get()?.role ?? null
  );
}

/** The user's grants, by organization id. */
export function listOrganizationRolesOfUser(db: Db, userId: number): OrganizationRoleRow[] {
  return db
    .select()
    .from(organizationRoles)
    .where(eq(organizationRoles.userId, userId))
    .orderBy(asc(organizationRoles.organizationId))
    .all();
}

/** Each organization's OIDC group mapping text (organizations without one are left out). */
export function listOrganizationRoleGroups(db: Db): { id: number; name: string; oidcRoleGroups: string }[] {
  return db
    .select({ id: organizations.id, name: organizations.name, oidcRoleGroups: organizations.oidcRoleGroups })
    .from(organizations)
    .where(isNotNull(organizations.oidcRoleGroups))
    .orderBy(asc(organizations.id))
    .all()
    .map((o) => ({ ...o, oidcRoleGroups: o.oidcRoleGroups! }));
}

export function setOrganizationRoleGroups(db: Db, organizationId: number, mapping: string | null): void {
  db.update(organizations).set({ oidcRoleGroups: mapping }).where(eq(organizations.id, organizationId)).run();
}

export function listOrganizationRoles(db: Db): OrganizationRoleRow[] {
  return db.select().from(organizationRoles).orderBy(asc(organizationRoles.userId), asc(organizationRoles.organizationId)).all();
}

export function upsertOrganizationRole(db: Db, v: OrganizationRoleRow): void {
  db.insert(organizationRoles)
    .values(v)
    .onConflictDoUpdate({
      target: [organizationRoles.userId, organizationRoles.organizationId],
      set: { role: v.role, createdBy: v.createdBy, createdAt: v.createdAt, source: v.source },
    })
    .run();
}

/** false when there was no such grant */
export function deleteOrganizationRole(db: Db, userId: number, organizationId: number): boolean {
  return (
    db
      .delete(organizationRoles)
      .where(and(eq(organizationRoles.userId, userId), eq(organizationRoles.organizationId, organizationId)))
      .run().changes > 0
  );
}

/** When the stored soak was last accumulated (null: never). */
export function readSoakCheckIn(db: Db, organizationId: number): Date | null {
  return (
    db.select({ soakCheckIn: organizations.soakCheckIn }).from(organizations).where(eq(organizations.id, organizationId)).get()
      ?.soakCheckIn ?? null
  );
}

/**
 * The organization a real provider's database starts with: no policies, no sectors, nothing
 * allowed-listed. The scheduler stores the clusters it observes under it (a tick without an
 * organization reads nothing), and `fleetplan import` then gives it its name and policies.
 */
export function insertEmptyOrganization(db: Db, name: string, now: Date): OrganizationRow {
  return db.insert(organizations).values({ name, updatedAt: now }).returning().get();
}

/** What an organization holds, for `fleetplan org list` and deciding whether it is still a blank placeholder. */
export function organizationContents(db: Db, organizationId: number) {
  const count = (sqlText: string) => (db.$client.prepare(sqlText).get(organizationId) as { n: number }).n;
  return {
    clusters: count('select count(*) n from clusters where organization_id = ?'),
    managed: count('select count(*) n from clusters where organization_id = ? and upgrade_policy is not null'),
    simulated: count("select count(*) n from clusters where organization_id = ? and provider = 'simulator'"),
    sectors: count('select count(*) n from sectors where organization_id = ?'),
    blockedVersions: count('select count(*) n from blocked_versions where organization_id = ?'),
  };
}

/** Sets (or, with nulls, clears) the organization's own provider: a kind and a credentials reference. */
export function setOrganizationProvider(
  db: Db,
  organizationId: number,
  kind: string | null,
  credentialsRef: string | null,
  now: Date,
): void {
  db.update(organizations)
    .set({ providerKind: kind, providerCredentialsRef: credentialsRef, updatedAt: now })
    .where(eq(organizations.id, organizationId))
    .run();
}

/** Gives the organization a new name (a blank placeholder becoming the team's organization). */
export function renameOrganization(db: Db, organizationId: number, name: string, now: Date): void {
  db.update(organizations).set({ name, updatedAt: now }).where(eq(organizations.id, organizationId)).run();
}
