// The organization the app manages. An installation holds one; should more rows ever exist, the
// first one (lowest id) is the one every page, the scheduler and the CLI work on.
import { asc, eq } from 'drizzle-orm';
import { organizations } from '@/db/schema';
import type { Db } from '@/db/open-database';
import type { DbOrTx } from './audit-repository';

export type OrganizationRow = typeof organizations.$inferSelect;

/** The managed organization, or undefined before one is seeded or imported. */
export function findOrganization(db: DbOrTx): OrganizationRow | undefined {
  return db.select().from(organizations).orderBy(asc(organizations.id)).get();
}

/** When the stored soak was last accumulated (null: never). */
export function readSoakCheckIn(db: DbOrTx, organizationId: number): Date | null {
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
export function insertEmptyOrganization(db: DbOrTx, name: string, now: Date): OrganizationRow {
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

/** Gives the organization a new name (a blank placeholder becoming the team's organization). */
export function renameOrganization(db: DbOrTx, organizationId: number, name: string, now: Date): void {
  db.update(organizations).set({ name, updatedAt: now }).where(eq(organizations.id, organizationId)).run();
}
