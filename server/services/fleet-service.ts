// Fleet-wide status for the top bar and the dashboard header.
import { sql, eq } from 'drizzle-orm';
import type { Db } from '@/db/open-database';
import { clusters, settings } from '@/db/schema';
import { getDefaultOrganization } from '@/server/repositories/cluster-repository';

export function createFleetService(db: Db, now: () => Date) {
  return {
    status() {
      const org = getDefaultOrganization(db);
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
        provider: process.env.FLEETPLAN_PROVIDER ?? 'simulator',
        simulated,
        now: now().toISOString(),
      };
    },
  };
}
