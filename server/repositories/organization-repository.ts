// The organization the app manages. An installation holds one; should more rows ever exist, the
// first one (lowest id) is the one every page, the scheduler and the CLI work on.
import { asc } from 'drizzle-orm';
import { organizations } from '@/db/schema';
import type { DbOrTx } from './audit-repository';

export type OrganizationRow = typeof organizations.$inferSelect;

/** The managed organization, or undefined before one is seeded or imported. */
export function findOrganization(db: DbOrTx): OrganizationRow | undefined {
  return db.select().from(organizations).orderBy(asc(organizations.id)).get();
}
