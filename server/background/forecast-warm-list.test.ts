import { describe, expect, it } from 'vitest';
import { ForecastWarmList, WARM_FOR_MS, WARM_PER_ORGANIZATION } from './forecast-warm-list';

const page = (horizonDays: number, extra: object = {}) => ({ horizonDays, upgradeMinutes: 90, offset: 40, limit: 20, ...extra });

describe('the forecasts kept warm', () => {
  it('keeps the simulation inputs people asked for, once each, most recent first, not paging or what-ifs', () => {
    const list = new ForecastWarmList();
    list.asked(1, page(60, { search: 'prod', sector: 'a' }), 1_000);
    list.asked(1, page(60, { offset: 0 }), 2_000);
    list.asked(1, page(90, { targetVersion: '4.16.3' }), 3_000);
    list.asked(2, page(30, { overrides: { ignoreFreeze: true } }), 4_000);
    expect(list.entries(5_000, new Set([1, 2]))).toEqual([
      { organizationId: 1, input: { targetVersion: '4.16.3', horizonDays: 90, upgradeMinutes: 90, offset: 0, limit: 1 } },
      { organizationId: 1, input: { horizonDays: 60, upgradeMinutes: 90, offset: 0, limit: 1 } },
    ]);
  });

  it('forgets what nobody asked for lately, beyond the limit per organization, and removed organizations', () => {
    const list = new ForecastWarmList();
    for (let i = 0; i <= WARM_PER_ORGANIZATION; i++) list.asked(1, page(10 + i), i);
    list.asked(2, page(5), 100);
    list.asked(3, page(5), 100 + WARM_FOR_MS);
    const kept = list.entries(101 + WARM_FOR_MS, new Set([1, 3]));
    expect(kept.map((e) => [e.organizationId, e.input.horizonDays])).toEqual([[3, 5]]);
    list.asked(1, page(7), 0);
    expect(list.entries(0, new Set([1])).map((e) => e.input.horizonDays)).toEqual([7]);
  });
});
