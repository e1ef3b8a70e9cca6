// The organizations the app manages. An instance holds any number; a request, a CLI command or a
// scheduler pass works on one (server/services/organization-scope.ts picks it).
import { and, asc, count, eq, isNotNull, type SQL } from 'drizzle-orm';
import type { SQLiteTable } from 'drizzle-orm/sqlite-core';
import { organizationRoles, organizations, type RoleValue } from '@/db/schema';
import type { Db } from '@/db/open-database';
import { affectedRows, tablesOf } from './dialect';
import { connectionHeld, connectionReleased, readTogether } from './transaction';

export type OrganizationRow = typeof organizations.$inferSelect;

/** The first organization (lowest id): the one a request lands on when it names none; undefined before one exists. */
export async function findFirstOrganization(db: Db): Promise<OrganizationRow | undefined> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { organizations } = tablesOf(db);
  return (await db.select().from(organizations).orderBy(asc(organizations.id)).limit(1))[0];
}

export async function findOrganizationById(db: Db, id: number): Promise<OrganizationRow | undefined> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { organizations } = tablesOf(db);
  return (await db.select().from(organizations).where(eq(organizations.id, id)).limit(1))[0];
}

export async function findOrganizationByName(db: Db, name: string): Promise<OrganizationRow | undefined> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { organizations } = tablesOf(db);
  return (await db.select().from(organizations).where(eq(organizations.name, name)).limit(1))[0];
}

/** Every organization, oldest first. */
export async function listOrganizations(db: Db): Promise<OrganizationRow[]> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { organizations } = tablesOf(db);
  return await db.select().from(organizations).orderBy(asc(organizations.id));
}

/** The organization `userId` last chose (null: none, or it was deleted). */
export async function readSelectedOrganizationId(db: Db, userId: number): Promise<number | null> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { users } = tablesOf(db);
  return (await db.select({ id: users.selectedOrganizationId }).from(users).where(eq(users.id, userId)).limit(1))[0]?.id ?? null;
}

export async function writeSelectedOrganizationId(db: Db, userId: number, organizationId: number): Promise<void> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { users } = tablesOf(db);
  await db.update(users).set({ selectedOrganizationId: organizationId }).where(eq(users.id, userId));
}

export type OrganizationRoleRow = typeof organizationRoles.$inferSelect;

/** The role `userId` was granted on `organizationId`, if any. */
export async function findOrganizationRole(db: Db, userId: number, organizationId: number): Promise<RoleValue | null> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { organizationRoles } = tablesOf(db);
  return (
    (
      await db
        .select({ role: organizationRoles.role })
        .from(organizationRoles)
        .where(and(eq(organizationRoles.userId, userId), eq(organizationRoles.organizationId, organizationId)))
        .limit(1)
    )[0]?.role ?? null
  );
}

/** The user's grants, by organization id. */
export async function listOrganizationRolesOfUser(db: Db, userId: number): Promise<OrganizationRoleRow[]> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { organizationRoles } = tablesOf(db);
  return await db
    .select()
    .from(organizationRoles)
    .where(eq(organizationRoles.userId, userId))
    .orderBy(asc(organizationRoles.organizationId));
}

/** Each organization's OIDC group mapping text (organizations without one are left out). */
export async function listOrganizationRoleGroups(db: Db): Promise<{ id: number; name: string; oidcRoleGroups: string }[]> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { organizations } = tablesOf(db);
  return (
    await db
      .select({ id: organizations.id, name: organizations.name, oidcRoleGroups: organizations.oidcRoleGroups })
      .from(organizations)
      .where(isNotNull(organizations.oidcRoleGroups))
      .orderBy(asc(organizations.id))
  ).map((o) => ({ ...o, oidcRoleGroups: o.oidcRoleGroups! }));
}

export async function setOrganizationRoleGroups(db: Db, organizationId: number, mapping: string | null): Promise<void> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { organizations } = tablesOf(db);
  await db.update(organizations).set({ oidcRoleGroups: mapping }).where(eq(organizations.id, organizationId));
}

export async function listOrganizationRoles(db: Db): Promise<OrganizationRoleRow[]> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { organizationRoles } = tablesOf(db);
  return await db.select().from(organizationRoles).orderBy(asc(organizationRoles.userId), asc(organizationRoles.organizationId));
}

export async function upsertOrganizationRole(db: Db, v: OrganizationRoleRow): Promise<void> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { organizationRoles } = tablesOf(db);
  await db
    .insert(organizationRoles)
    .values(v)
    .onConflictDoUpdate({
      target: [organizationRoles.userId, organizationRoles.organizationId],
      set: { role: v.role, createdBy: v.createdBy, createdAt: v.createdAt, source: v.source },
    });
}

/** false when there was no such grant */
export async function deleteOrganizationRole(db: Db, userId: number, organizationId: number): Promise<boolean> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { organizationRoles } = tablesOf(db);
  return (
    affectedRows(
      await db
        .delete(organizationRoles)
        .where(and(eq(organizationRoles.userId, userId), eq(organizationRoles.organizationId, organizationId))),
    ) > 0
  );
}

/** When the stored soak was last accumulated (null: never). */
export async function readSoakCheckIn(db: Db, organizationId: number): Promise<Date | null> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { organizations } = tablesOf(db);
  return (
    (
      await db.select({ soakCheckIn: organizations.soakCheckIn }).from(organizations).where(eq(organizations.id, organizationId)).limit(1)
    )[0]?.soakCheckIn ?? null
  );
}

/**
 * The organization a real provider's database starts with: no policies, no sectors, nothing
 * allowed-listed. The scheduler stores the clusters it observes under it (a tick without an
 * organization reads nothing), and `fleetplan import` then gives it its name and policies.
 */
export async function insertEmptyOrganization(db: Db, name: string, now: Date): Promise<OrganizationRow> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { organizations } = tablesOf(db);
  return (await db.insert(organizations).values({ name, updatedAt: now }).returning())[0]!;
}

/** What an organization holds, for `fleetplan org list` and deciding whether it is still a blank placeholder. */
export async function organizationContents(db: Db, organizationId: number) {
  while (connectionHeld(db)) await connectionReleased(db);
  const { blockedVersions, clusters, sectors } = tablesOf(db);
  const ofClusters = (where?: SQL) => and(eq(clusters.organizationId, organizationId), where);
  const rowsOf = async (table: SQLiteTable, where: SQL | undefined) => (await db.select({ n: count() }).from(table).where(where))[0]!.n;
  return readTogether(db, async () => ({
    clusters: await rowsOf(clusters, ofClusters()),
    managed: await rowsOf(clusters, ofClusters(isNotNull(clusters.upgradePolicy))),
    simulated: await rowsOf(clusters, ofClusters(eq(clusters.provider, 'simulator'))),
    sectors: await rowsOf(sectors, eq(sectors.organizationId, organizationId)),
    blockedVersions: await rowsOf(blockedVersions, eq(blockedVersions.organizationId, organizationId)),
  }));
}

/** Sets (or, with nulls, clears) the organization's own provider: a kind and a credentials reference. */
export async function setOrganizationProvider(
  db: Db,
  organizationId: number,
  kind: string | null,
  credentialsRef: string | null,
  now: Date,
): Promise<void> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { organizations } = tablesOf(db);
  await db
    .update(organizations)
    .set({ providerKind: kind, providerCredentialsRef: credentialsRef, updatedAt: now })
    .where(eq(organizations.id, organizationId));
}

/** Gives the organization a new name (a blank placeholder becoming the team's organization). */
export async function renameOrganization(db: Db, organizationId: number, name: string, now: Date): Promise<void> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { organizations } = tablesOf(db);
  await db.update(organizations).set({ name, updatedAt: now }).where(eq(organizations.id, organizationId));
}
