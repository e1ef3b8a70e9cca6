import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { accumulateSoak, SoakLedger } from './soak';
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

describe('SoakLedger', () => {
  // the ledger must give accumulateSoak's answer: the same soak days to the last bit, the same names reporting
  const normalized = (vd: VersionData) =>
    Object.fromEntries(
      Object.entries(vd.versions).map(([v, e]) => [
        v,
        Object.fromEntries(Object.entries(e.workloads).map(([w, s]) => [w, { soakDays: s.soakDays, reporting: [...s.reporting].sort() }])),
      ]),
    );

  it('accumulates what accumulateSoak does while clusters move between versions', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            version: fc.constantFrom('4.13.1', '4.13.2', '4.14.0'),
            workloads: fc.subarray(['a', 'b', 'c'], { minLength: 1 }),
            healthy: fc.boolean(),
          }),
          { minLength: 1, maxLength: 12 },
        ),
        fc.array(
          fc.record({
            hours: fc.integer({ min: 0, max: 72 }),
            moves: fc.array(fc.tuple(fc.nat(), fc.constantFrom('4.13.1', '4.13.2', '4.14.0', '4.15.0')), { maxLength: 3 }),
            fresh: fc.boolean(),
          }),
          {
            minLength: 1,
            maxLength: 8,
          },
        ),
        (specs, steps) => {
          let clusters: Cluster[] = specs.map((spec, i) => ({
            ...cluster(`c${i}`, spec.version),
            healthy: spec.healthy,
            upgradePolicy: { ...cluster('x', 'x').upgradePolicy!, workloads: spec.workloads },
          }));
          const ledger = new SoakLedger(clusters);
          const start: VersionData = {
            checkIn: '2021-08-30T00:00:00Z',
            versions: { '4.13.1': { workloads: { a: { soakDays: 0.5, reporting: ['c0', 'other'] } } } },
          };
          let viaLedger = start;
          let viaRule: VersionData;
          let now = T0;
          for (const step of steps) {
            for (const [which, to] of step.moves) {
              const i = which % clusters.length;
              const from = clusters[i]!.version;
              clusters = clusters.map((c, j) => (j === i ? { ...c, version: to } : c));
              ledger.moved(clusters[i]!, from);
            }
            now += step.hours * 3_600_000;
            // `fresh`: a VersionData the ledger did not return last — the first one, lacking everyone
            // who started reporting since (it must then check every name again)
            const input = step.fresh ? start : viaLedger;
            viaLedger = ledger.accumulate(input, now);
            viaRule = accumulateSoak(input, clusters, now);
            expect(normalized(viaLedger)).toEqual(normalized(viaRule));
            expect(viaLedger.checkIn).toBe(viaRule.checkIn);
            expect(ledger.reporters('4.13.1', 'a')).toBe(
              clusters.filter((c) => c.healthy && c.version === '4.13.1' && c.upgradePolicy!.workloads.includes('a')).length,
            );
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
