// Which forecasts the forecast's worker thread keeps warm (forecast-worker.ts): the option sets
// people asked for lately, per organization. Paging, filtering and the sector choice read one kept
// forecast, so only the inputs that change the simulation make an entry.
import type { ForecastRunInput } from '@/server/services/forecast-service';
import { keepRecent } from '@/lib/keep-recent';

/** what the Forecast page asks for when its address names no inputs (components/forecast/forecast-view.tsx) */
export const PAGE_DEFAULT_FORECAST: ForecastRunInput = { horizonDays: 60, upgradeMinutes: 90, offset: 0, limit: 1 };

/** an entry is kept warm this long after it was last asked for */
export const WARM_FOR_MS = 15 * 60_000;
/** option sets kept per organization (the oldest asked goes first) */
export const WARM_PER_ORGANIZATION = 3;

export interface WarmEntry {
  organizationId: number;
  input: ForecastRunInput;
}

type AskedSet = { input: ForecastRunInput; askedAt: number };

export class ForecastWarmList {
  private readonly byOrganization = new Map<number, Map<string, AskedSet>>();

  asked(organizationId: number, input: ForecastRunInput, realNowMs: number): void {
    // what-if previews are one-offs: keeping them warm would compute for nobody
    if (input.overrides) return;
    const simulation: ForecastRunInput = {
      ...(input.targetVersion !== undefined ? { targetVersion: input.targetVersion } : {}),
      horizonDays: input.horizonDays,
      upgradeMinutes: input.upgradeMinutes,
      offset: 0,
      limit: 1,
    };
    const key = JSON.stringify([simulation.targetVersion ?? null, simulation.horizonDays, simulation.upgradeMinutes]);
    let sets = this.byOrganization.get(organizationId);
    if (!sets) this.byOrganization.set(organizationId, (sets = new Map<string, AskedSet>()));
    keepRecent(sets, key, { input: simulation, askedAt: realNowMs }, WARM_PER_ORGANIZATION);
  }

  /** the entries to keep warm now, most recently asked first; forgets the stale ones and removed organizations */
  entries(realNowMs: number, organizations: ReadonlySet<number>): WarmEntry[] {
    const out: (WarmEntry & { askedAt: number })[] = [];
    for (const [organizationId, sets] of this.byOrganization) {
      if (!organizations.has(organizationId)) {
        this.byOrganization.delete(organizationId);
        continue;
      }
      for (const [key, set] of sets) {
        if (realNowMs - set.askedAt > WARM_FOR_MS) sets.delete(key);
        else out.push({ organizationId, input: set.input, askedAt: set.askedAt });
      }
      if (sets.size === 0) this.byOrganization.delete(organizationId);
    }
    return out.sort((a, b) => b.askedAt - a.askedAt).map(({ organizationId, input }) => ({ organizationId, input }));
  }
}
