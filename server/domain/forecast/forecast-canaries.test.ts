// The forecast with canaries: the canaries go first, the rest of the sector after the canaries
// completed and soaked the version; a canary failed now (unacknowledged) halts the sector for the
// whole forecast. And a property over random fleets: no non-canary cluster of the sector starts a
// version in the forecast before every canary that can take it has run it for soakHours.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chooseCanaries } from '../plan/canaries';
import { testCluster, testPlanInput } from '../plan/test-plan-input';
import { HOUR_MS, parseInstant } from '../plan/time';
import { compareVersions } from '../version/version';
import { forecastRollout } from './forecast-rollout';

// every hour on the hour; TEST_NOW is 2021-08-30T18:00:00Z, upgrades take 90 minutes
const inProd = (name: string, cron = '0 * * * *', availableUpgrades = ['4.12.19']) =>
  testCluster(name, {
    availableUpgrades,
    upgradePolicy: { workloads: ['wl'], schedule: cron, conditions: { soakDays: 0, sector: 'prod' } },
  });
const organization = (canary: Record<string, unknown>) => ({ sectors: [{ name: 'prod', canary }] });

describe('forecast with canaries', () => {
  it('starts the rest of the sector at the first slot after the canary completed and soaked', () => {
    const input = testPlanInput([inProd('p3'), inProd('p1'), inProd('p2')], { organization: organization({ count: 1, soakHours: 24 }) });
    const result = forecastRollout(input, { horizonDays: 5, targetVersion: '4.12.19' });
    const starts = Object.fromEntries(result.clusters.map((c) => [c.cluster, c.upgrades.map((u) => [u.start, u.end])]));
    // p1 (first by name) at 19:00, done 20:30; soaked 24 h at 2021-08-31T20:30; next hourly slot 21:00
    expect(starts).toEqual({
      p1: [['2021-08-30T19:00:00Z', '2021-08-30T20:30:00Z']],
      p2: [['2021-08-31T21:00:00Z', '2021-08-31T22:30:00Z']],
      p3: [['2021-08-31T21:00:00Z', '2021-08-31T22:30:00Z']],
    });
    expect(result.sectors).toEqual([{ sector: 'prod', clusters: 3, reached: 3, notOffered: 0, allReachAt: '2021-08-31T22:30:00Z' }]);
  });

  it('keeps the sector halted for a version a canary failed (not acknowledged within the forecast)', () => {
    const input = testPlanInput([inProd('p1'), inProd('p2')], {
      organization: organization({ count: 1, soakHours: 0 }),
      upgradeResults: [{ cluster: 'p1', version: '4.12.19', outcome: 'failed', at: '2021-08-30T17:00:00Z', attempt: 3 }],
    });
    const result = forecastRollout(input, { horizonDays: 3, targetVersion: '4.12.19' });
    expect(result.clusters.map((c) => [c.cluster, c.upgrades.length, c.lastDecision?.reason])).toEqual([
      ['p1', 0, 'CANARY_FAILED'],
      ['p2', 0, 'CANARY_FAILED'],
    ]);
  });
});

describe('property: in the forecast, the rest of a canary sector follows its soaked canaries', () => {
  const VERSIONS = ['4.12.17', '4.12.18', '4.12.19'];
  const CRONS = ['0 * * * *', '30 */3 * * *', '0 20 * * *'];
  it('holds for random sectors', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ offers: fc.subarray(VERSIONS.slice(1), { minLength: 1 }), cron: fc.constantFrom(...CRONS) }), {
          minLength: 2,
          maxLength: 6,
        }),
        fc.integer({ min: 1, max: 3 }),
        fc.integer({ min: 0, max: 30 }),
        (raw, count, soakHours) => {
          const clusters = raw.map((c, i) => inProd(`c${i}`, c.cron, c.offers));
          const input = testPlanInput(clusters, { organization: organization({ count, soakHours }) });
          const canaries = new Set(chooseCanaries(input.organization.sectors[0]!.canary!, input.clusters));
          const result = forecastRollout(input, { horizonDays: 6 });
          const upgradesOf = new Map(result.clusters.map((c) => [c.cluster, c.upgrades]));
          const offered = new Map(input.clusters.map((c) => [c.name, c.availableUpgrades]));
          const violations: string[] = [];
          for (const c of result.clusters) {
            if (canaries.has(c.cluster)) continue;
            for (const u of c.upgrades) {
              const start = parseInstant(u.start)!;
              for (const k of canaries) {
                if (!offered.get(k)!.includes(u.version)) continue; // that canary cannot take it
                const reached = upgradesOf.get(k)!.filter((x) => compareVersions(x.version, u.version) >= 0);
                const soakedBy =
                  reached.length === 0 ? Infinity : Math.min(...reached.map((x) => parseInstant(x.end)!)) + soakHours * HOUR_MS;
                if (soakedBy > start) violations.push(`${c.cluster} starts ${u.version} at ${u.start} before canary ${k} soaked it`);
              }
            }
          }
          expect(violations).toEqual([]);
        },
      ),
      { numRuns: 60 },
    );
  });
});
