import { describe, expect, it } from 'vitest';
import { formatInZone, formatRelative, formatSpan, formatUtc, fromUtcInput, isoOf, toUtcInput, zoneOf } from './zoned-time';

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

describe('formatSpan', () => {
  it('reads in its two largest units, not in decimal hours', () => {
    expect(formatSpan(328.58 * 3_600_000)).toBe('13 d 17 h');
    expect(formatSpan(6.11 * 3_600_000)).toBe('6 h 7 min');
    expect(formatSpan(2 * 3_600_000)).toBe('2 h');
    expect(formatSpan(45 * 60_000)).toBe('45 min');
    expect(formatSpan(40_000)).toBe('40 s');
    expect(formatSpan(3 * 86_400_000)).toBe('3 d');
    expect(formatSpan(150.4 * 86_400_000)).toBe('150 d');
  });
});

describe('formatRelative', () => {
  const now = Date.parse('2026-11-23T08:00:00Z');
  it('says how far ahead or behind an instant is', () => {
    expect(formatRelative('2026-11-23T13:20:00Z', now)).toBe('in 5 h 20 min');
    expect(formatRelative('2026-11-21T08:00:00Z', now)).toBe('2 d ago');
    expect(formatRelative(new Date(now), now)).toBe('now');
    expect(formatRelative(null, now)).toBe('');
  });
});

describe('zoneOf', () => {
  it('is UTC for UTC and the runtime zone for local', () => {
    expect(zoneOf('UTC')).toBe('UTC');
    expect(zoneOf('local')).toBe(Intl.DateTimeFormat().resolvedOptions().timeZone);
  });
});
