import { describe, expect, it } from 'vitest';
import { formatInZone, formatUtc, fromUtcInput, isoOf, toUtcInput } from './zoned-time';

describe('formatInZone', () => {
  it('shows the instant in the zone with its name, across daylight saving', () => {
    expect(formatInZone('2026-11-23T07:00:00Z', 'Europe/Berlin')).toBe('Mon 2026-11-23 08:00 CET');
    expect(formatInZone('2026-07-01T07:00:00Z', 'Europe/Berlin')).toBe('Wed 2026-07-01 09:00 CEST');
    expect(formatInZone('2026-07-01T07:00:00Z', 'America/New_York', { weekday: false })).toBe('2026-07-01 03:00 GMT-4');
  });

  it('names UTC plainly and crosses the date line', () => {
    expect(formatInZone('2026-11-23T23:30:00Z', 'UTC')).toBe('Mon 2026-11-23 23:30 UTC');
    expect(formatInZone('2026-11-23T23:30:00Z', 'Asia/Tokyo', { weekday: false })).toBe('2026-11-24 08:30 GMT+9');
  });

  it('shows a dash for nothing and the text itself when it is no instant', () => {
    expect(formatInZone(null, 'UTC')).toBe('—');
    expect(formatInZone('', 'UTC')).toBe('—');
    expect(formatInZone('soon', 'UTC')).toBe('soon');
  });
});

describe('formatUtc', () => {
  it('drops seconds and the weekday, keeps the zone', () => {
    expect(formatUtc('2026-11-23T08:05:59.123Z')).toBe('2026-11-23 08:05 UTC');
    expect(formatUtc(new Date('2026-01-02T03:04:00Z'))).toBe('2026-01-02 03:04 UTC');
  });
});

describe('UTC inputs', () => {
  it('round-trips a datetime-local value read as UTC', () => {
    expect(toUtcInput('2026-11-23T08:05:00.000Z')).toBe('2026-11-23T08:05');
    expect(fromUtcInput('2026-11-23T08:05')).toBe('2026-11-23T08:05:00.000Z');
    expect(fromUtcInput('23.11.2026')).toBeUndefined();
    expect(isoOf('not a date')).toBeNull();
    expect(isoOf('2026-11-23T08:05:00Z')).toBe('2026-11-23T08:05:00.000Z');
  });
});
