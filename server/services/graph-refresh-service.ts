// Keeps the Paths page's graphs current from an update service (FLEETPLAN_UPDATE_SERVICE_*): each
// configured channel is fetched and imported like an upload, stored as `<channel>-<arch>` (so a
// refresh replaces the previous copy) with the fetch time as its capture time. One channel that
// cannot be read or parsed does not stop the others; nothing is written for it.
import type { Db } from '@/db/open-database';
import type { UpdateServiceSettings } from '@/server/env';
import { fetchChannelGraph } from '@/server/integrations/update-service/update-service-client';
import { createGraphService } from './graph-service';

export interface ChannelRefresh {
  channel: string;
  ok: boolean;
  /** stored graph name, or why nothing was stored */
  detail: string;
  nodes?: number;
}

export function createGraphRefreshService(deps: { db: Db; realNow: () => Date; settings: UpdateServiceSettings | undefined }) {
  const graphs = createGraphService(deps.db, deps.realNow);
  return {
    settings(): { url: string; channels: string[]; arch: string; refreshHours: number } | null {
      return deps.settings ? { ...deps.settings } : null;
    },

    async refresh(actor: string): Promise<ChannelRefresh[]> {
      const settings = deps.settings;
      if (!settings) return [];
      const results: ChannelRefresh[] = [];
      for (const channel of settings.channels) {
        try {
          const text = await fetchChannelGraph({ url: settings.url, channel, arch: settings.arch });
          const stored = await graphs.import(
            {
              fileName: `${channel}-${settings.arch}.json`,
              text,
              name: `${channel}-${settings.arch}`,
              channel,
              architecture: settings.arch,
              capturedAt: deps.realNow(),
              source: `update service ${settings.url}`,
            },
            actor,
          );
          results.push({ channel, ok: true, detail: stored.name, nodes: stored.nodeCount });
        } catch (err) {
          results.push({ channel, ok: false, detail: err instanceof Error ? err.message : String(err) });
        }
      }
      return results;
    },
  };
}
