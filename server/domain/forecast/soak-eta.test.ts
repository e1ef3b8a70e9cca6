import { describe, expect, it } from 'vitest';
import { estimateSoakEtas } from './soak-eta';

const NOW = Date.parse('2024-03-04T12:00:00Z');

describe('estimateSoakEtas', () => {
  it.each([
    { name: 'one cluster adds one day per day', soakDays: 2, rate: 1, threshold: 6, eta: '2024-03-08T12:00:00Z', days: 4 },
    { name: 'four clusters add four days per day', soakDays: 2, rate: 4, threshold: 6, eta: '2024-03-05T12:00:00Z', days: 1 },
    { name: 'fractional days', soakDays: 0, rate: 2, threshold: 1, eta: '2024-03-05T00:00:00Z', days: 0.5 },
    { name: 'already reached', soakDays: 7, rate: 1, threshold: 6, eta: '2024-03-04T12:00:00Z', days: 0 },
    { name: 'nobody runs it: never', soakDays: 1, rate: 0, threshold: 6, eta: null, days: null },
  ])('$name', ({ soakDays, rate, threshold, eta, days }) => {
    const [r] = estimateSoakEtas({ soakDays, ratePerDay: rate, thresholds: [{ soakDays: threshold, clusters: 3 }], nowMs: NOW });
    expect(r).toMatchObject({ soakDays: threshold, clusters: 3, eta, daysFromNow: days, reached: soakDays >= threshold });
  });

  it('sorts thresholds ascending', () => {
    const r = estimateSoakEtas({
      soakDays: 0,
      ratePerDay: 1,
      thresholds: [
        { soakDays: 10, clusters: 1 },
        { soakDays: 2, clusters: 5 },
      ],
      nowMs: NOW,
    });
    expect(r.map((x) => x.soakDays)).toEqual([2, 10]);
  });
});
