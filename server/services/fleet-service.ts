// Fleet-wide status for the top bar and the dashboard header.
import type { Db } from '@/db/open-database';
import type { ProviderName } from '@/server/env';
import { countClusters } from '@/server/repositories/cluster-repository';
import { findOrganization } from '@/server/repositories/organization-repository';
import { hasSetting, latestFinishedTick } from '@/server/repositories/scheduler-repository';
import { SIMULATOR_CLOCK_KEY } from '@/server/fleet-clock';

export function createFleetService(db: Db, now: () => Date, provider: ProviderName) {
  return {
    status() {
      const org = findOrganization(db);
      const clusterCount = countClusters(db);
      const simulated = hasSetting(db, SIMULATOR_CLOCK_KEY);
      const lastTick = latestFinishedTick(db);
      return {
        organization: org?.name ?? 'no organization',
        clusterCount,
        frozen: org?.frozen ?? false,
        frozenReason: org?.frozenReason ?? null,
        provider,
        simulated,
        now: now().toISOString(),
        /** pages refresh their data when this changes (components/shell/live-updates.tsx) */
        lastTick: lastTick && { id: lastTick.id, finishedAt: lastTick.finishedAt.toISOString() },
      };
    },
  };
}
