// Fleet-wide status for the top bar and the dashboard header.
import { sql, eq } from 'drizzle-orm';
import type { Db } from '@/db/open-database';
import { clusters, settings } from '@/db/schema';
import type { ProviderName } from '@/server/env';
import { findOrganization } from '@/server/repositories/organization-repository';

export function createFleetService(db: Db, now: () => Date, provider: ProviderName) {
  return {
    status() {
      const org = findOrganization(db);
      const clusterCount = db
        .select({ n: sql<number>`count(*)` })
        .from(clusters)
        .get()!.n;
      const simulated = db.select({ key: settings.key }).from(settings).where(eq(settings.key, 'simulator.clock')).get() !== undefined;
      return {
        organization: org?.name ?? 'no organization',
        clusterCount,
        frozen: org?.frozen ?? false,
        frozenReason: org?.frozenReason ?? null,
        provider,
        simulated,
        now: now().toISOString(),
      };
    },
  };
}
