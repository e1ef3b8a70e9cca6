import { describe, expect, it } from 'vitest';
import { accumulateSoak } from './soak';
import type { Cluster, VersionData } from './types';

const DAY = 86_400_000;
const T0 = Date.parse('2021-08-30T00:00:00Z');

const cluster = (name: string, version: string): Cluster => ({
  name,
  version,
  channel: 'stable-4.13',
  availableUpgrades: [],
  healthy: true,
  upgradePolicy: {
    workloads: ['wl'],
    schedule: { cron: '* * * * *', location: 'UTC' },
    conditions: { mutexes: [] },
  } as unknown as Cluster['upgradePolicy'],
});

describe('accumulateSoak', () => {
  it('leaves its input alone when a cluster starts reporting, and later calls see the appended list', () => {
    const input: VersionData = {
      checkIn: '2021-08-30T00:00:00Z',
      versions: { '4.13.1': { workloads: { wl: { soakDays: 1, reporting: ['a'] } } } },
    };
    const first = accumulateSoak(input, [cluster('a', '4.13.1'), cluster('b', '4.13.1')], T0 + DAY);
    expect(input.versions['4.13.1']!.workloads.wl).toEqual({ soakDays: 1, reporting: ['a'] });
    expect(first.versions['4.13.1']!.workloads.wl).toEqual({ soakDays: 2, reporting: ['a', 'b'] });
    // b reports from the first call on: the second one adds its time too
    const second = accumulateSoak(first, [cluster('a', '4.13.1'), cluster('b', '4.13.1')], T0 + 2 * DAY);
    expect(second.versions['4.13.1']!.workloads.wl).toEqual({ soakDays: 4, reporting: ['a', 'b'] });
    expect(first.versions['4.13.1']!.workloads.wl).toEqual({ soakDays: 2, reporting: ['a', 'b'] });
    // the same input again gives the same answer (nothing kept from the calls in between leaks in)
    expect(accumulateSoak(input, [cluster('a', '4.13.1'), cluster('b', '4.13.1')], T0 + DAY)).toEqual(first);
  });

  it('sees a name appended to a list it has read before', () => {
    const list = ['a'];
    const input: VersionData = {
      checkIn: '2021-08-30T00:00:00Z',
      versions: { '4.13.1': { workloads: { wl: { soakDays: 0, reporting: list } } } },
    };
    accumulateSoak(input, [cluster('a', '4.13.1')], T0 + DAY);
    list.push('c');
    const out = accumulateSoak(input, [cluster('c', '4.13.1')], T0 + DAY);
    expect(out.versions['4.13.1']!.workloads.wl).toEqual({ soakDays: 1, reporting: ['a', 'c'] });
  });
});
