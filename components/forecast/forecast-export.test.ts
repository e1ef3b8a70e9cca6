import { describe, expect, it } from 'vitest';
import { forecastCsv } from './forecast-export';

describe('forecastCsv', () => {
  it('writes a line per predicted upgrade, and one for a cluster without any', () => {
    const csv = forecastCsv([
      {
        cluster: 'prod-1',
        sector: 'prod',
        managed: true,
        startVersion: '4.13.1',
        finalVersion: '4.16.8',
        reachesTargetAt: '2026-12-03T10:30:00Z',
        upgrades: [
          { from: '4.13.1', version: '4.13.9', start: '2026-11-26T09:00:00Z', end: '2026-11-26T10:30:00Z', inFlight: true },
          { from: '4.13.9', version: '4.14.2', start: '2026-12-03T09:00:00Z', end: '2026-12-03T10:30:00Z', inFlight: false },
          // an EUS-to-EUS run taken control-plane-only
          {
            from: '4.14.2',
            version: '4.16.8',
            start: '2026-12-10T09:00:00Z',
            end: '2026-12-10T12:00:00Z',
            inFlight: false,
            via: ['4.15.3'],
          },
        ],
      },
      {
        cluster: 'lab-1',
        sector: null,
        managed: false,
        startVersion: '4.12.5',
        finalVersion: '4.12.5',
        reachesTargetAt: null,
        upgrades: [],
      },
    ]);
    expect(csv.split('\r\n')).toEqual([
      'cluster,sector,managed,start version,upgrade from,upgrade to,upgrade via,upgrade start (UTC),upgrade end (UTC),in flight,final version,on target at (UTC)',
      'prod-1,prod,yes,4.13.1,4.13.1,4.13.9,,2026-11-26T09:00:00Z,2026-11-26T10:30:00Z,yes,4.16.8,2026-12-03T10:30:00Z',
      'prod-1,prod,yes,4.13.1,4.13.9,4.14.2,,2026-12-03T09:00:00Z,2026-12-03T10:30:00Z,no,4.16.8,2026-12-03T10:30:00Z',
      'prod-1,prod,yes,4.13.1,4.14.2,4.16.8,4.15.3,2026-12-10T09:00:00Z,2026-12-10T12:00:00Z,no,4.16.8,2026-12-03T10:30:00Z',
      'lab-1,,no,4.12.5,,,,,,,4.12.5,',
      '',
    ]);
  });
});
