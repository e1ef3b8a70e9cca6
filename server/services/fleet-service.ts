// Fleet-wide status for the top bar and the dashboard header.
import type { Db } from '@/db/open-database';
import type { ProviderName } from '@/server/env';
import { countClusters } from '@/server/repositories/cluster-repository';
import type { OrganizationScope } from './organization-scope';
import { hasSetting, latestFinishedTick } from '@/server/repositories/scheduler-repository';
import { SIMULATOR_CLOCK_KEY } from '@/server/fleet-clock';

export function createFleetService(db: Db, now: () => Date, provider: ProviderName, scope: OrganizationScope) {
  return {
    async status() {
      const org = await scope();
      const clusterCount = org ? await countClusters(db, org.id) : 0;
      const simulated = await hasSetting(db, SIMULATOR_CLOCK_KEY);
      const lastTick = await latestFinishedTick(db);
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
