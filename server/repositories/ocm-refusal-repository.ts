// Starts OCM refused, per cluster, kept between ticks: the scheduler builds its provider anew for
// every tick (and its worker thread may restart), so a back-off held in the provider would be
// forgotten at once and a stuck cluster POSTed every tick (issue 12: 102–123 refused POSTs in
// 36 minutes for one cluster). One settings row holds them all: a handful of clusters at most.
import type { Db } from '@/db/open-database';
import { readSetting, writeSetting } from './scheduler-repository';

/** One cluster's refusals (the OCM provider's `OcmRefusal`, which this module may not import). */
export interface StoredOcmRefusal {
  refusals: number;
  /** no POST before this instant (ms) */
  notBefore: number;
  reason: string;
  version: string;
}

export interface OcmRefusalRepository {
  get(externalId: string): Promise<StoredOcmRefusal | undefined>;
  set(externalId: string, refusal: StoredOcmRefusal): Promise<void>;
  clear(externalId: string): Promise<void>;
}

export const OCM_REFUSALS_SETTING = 'ocm.refusals';

type StoredRefusals = Record<string, StoredOcmRefusal>;

export function createOcmRefusalRepository(db: Db, realNow: () => Date = () => new Date()): OcmRefusalRepository {
  const all = async (): Promise<StoredRefusals> => (await readSetting<StoredRefusals>(db, OCM_REFUSALS_SETTING)) ?? {};
  return {
    get: async (externalId) => (await all())[externalId],
    async set(externalId, refusal) {
      await writeSetting(db, OCM_REFUSALS_SETTING, { ...(await all()), [externalId]: refusal }, realNow());
    },
    async clear(externalId) {
      const { [externalId]: _cleared, ...rest } = await all();
      await writeSetting(db, OCM_REFUSALS_SETTING, rest, realNow());
    },
  };
}
