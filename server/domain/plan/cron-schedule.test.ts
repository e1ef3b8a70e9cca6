import { describe, expect, it } from 'vitest';
import { isoWeekOfDay, nextScheduleRuns, parseCron, parseIsoWeek } from './cron-schedule';

const iso = (d: Date) => d.toISOString().replace('.000Z', 'Z');
const runs = (schedule: Parameters<typeof nextScheduleRuns>[0], after: string, count = 1) =>
  nextScheduleRuns(schedule, new Date(after), count).map(iso);
const dayNumber = (date: string) => Date.parse(`${date}T00:00:00Z`) / 86_400_000;

describe('parseCron', () => {
  it.each([['* * * * *'], ['*/15 9-17 * * 1-5'], ['0 9 * jan,JUL mon-fri'], ['5,10-20/5 0 1 * sun'], ['0 0 * * 7'], ['10/20 * * * *']])(
    'accepts %s',
    (expr) => {
      expect(parseCron(expr).ok).toBe(true);
    },
  );

  it.each([
    ['0 0 * * * *', 'a seconds field (6 fields)'],
    ['0 0 * *', 'four fields'],
    ['0 0 L * *', 'L'],
    ['0 0 * * 5#2', '#'],
    ['0 0 ? * *', '?'],
    ['@daily', '@ macros'],
    ['0 48 * * 1-5', 'hour out of range'],
    ['60 * * * *', 'minute out of range'],
    ['*/0 * * * *', 'a zero step'],
    ['0 0 0 * *', 'day of month 0'],
    ['0 0 * 13 *', 'month 13'],
    ['0 0 * * 8', 'day of week 8'],
    ['5-1 * * * *', 'a backwards range'],
    ['0 0 * * funday', 'an unknown day name'],
    ['0,,5 * * * *', 'an empty list item'],
  ])('rejects %s (%s)', (expr) => {
    expect(parseCron(expr).ok).toBe(false);
  });

  it('treats 7 as Sunday like 0', () => {
    expect(runs('0 12 * * 7', '2021-08-30T00:00:00Z')).toEqual(['2021-09-05T12:00:00Z']);
  });
});

describe('nextScheduleRuns', () => {
  it('requires day-of-month AND day-of-week when both are restricted (0 10 8-14 * 5 is the second Friday)', () => {
    expect(runs('0 10 8-14 * 5', '2021-09-01T00:00:00Z', 2)).toEqual(['2021-09-10T10:00:00Z', '2021-10-08T10:00:00Z']);
  });

  it('returns times strictly after the given instant', () => {
    expect(runs('0 10 * * *', '2021-09-01T10:00:00Z')).toEqual(['2021-09-02T10:00:00Z']);
  });

  it('evaluates the cron in its location (Zurich CET = UTC+1 before DST starts)', () => {
    expect(runs({ cron: '0 22 * * 2', location: 'Europe/Zurich' }, '2026-03-24T19:30:00Z')).toEqual(['2026-03-24T21:00:00Z']);
  });

  it('never fires at a local time skipped by the spring-forward gap', () => {
    // 2026-03-29 02:00 → 03:00 in Zurich: 02:30 does not exist that day.
    expect(runs({ cron: '30 2 * * *', location: 'Europe/Zurich' }, '2026-03-28T12:00:00Z', 2)).toEqual([
      '2026-03-30T00:30:00Z',
      '2026-03-31T00:30:00Z',
    ]);
  });

  it('fires at both instants of a local time repeated by the fall-back overlap', () => {
    // 2026-10-25 03:00 CEST → 02:00 CET in Zurich: 02:30 happens at 00:30Z and 01:30Z.
    expect(runs({ cron: '30 2 * * *', location: 'Europe/Zurich' }, '2026-10-24T12:00:00Z', 3)).toEqual([
      '2026-10-25T00:30:00Z',
      '2026-10-25T01:30:00Z',
      '2026-10-26T01:30:00Z',
    ]);
  });

  it('counts ISO weeks in the schedule location, not in UTC', () => {
    // Monday 2026-01-05 00:30 in Tokyo is Sunday 2026-01-04 15:30Z: ISO week 2 locally, week 1 in UTC.
    expect(runs({ cron: '30 0 * * 1', location: 'Asia/Tokyo', isoWeek: '2' }, '2026-01-01T00:00:00Z')).toEqual(['2026-01-04T15:30:00Z']);
  });

  it.each([
    ['@odd', '2026-12-31T10:00:00Z', '2026-12-31T11:00:00Z'],
    ['53', '2026-12-31T10:00:00Z', '2026-12-31T11:00:00Z'],
    ['@even', '2026-12-31T10:00:00Z', '2027-01-11T11:00:00Z'],
    ['1', '2026-12-31T10:00:00Z', '2027-01-04T11:00:00Z'],
  ])('limits runs to ISO weeks %s (week 53 of 2026 runs until 2027-01-03)', (isoWeek, after, expected) => {
    expect(runs({ cron: '0 11 * * *', isoWeek }, after)).toEqual([expected]);
  });

  it('finds nothing for a schedule that never fires (0 0 31 2 *)', () => {
    expect(runs('0 0 31 2 *', '2021-01-01T00:00:00Z')).toEqual([]);
  });

  it('finds February 29 years ahead', () => {
    expect(runs('0 0 29 2 *', '2021-01-01T00:00:00Z')).toEqual(['2024-02-29T00:00:00Z']);
  });

  it('lists several runs in order', () => {
    expect(runs('*/20 * * * *', '2021-08-30T18:00:00Z', 3)).toEqual([
      '2021-08-30T18:20:00Z',
      '2021-08-30T18:40:00Z',
      '2021-08-30T19:00:00Z',
    ]);
  });
});

describe('isoWeekOfDay', () => {
  it.each([
    ['2026-12-31', 53],
    ['2027-01-03', 53],
    ['2027-01-04', 1],
    ['2021-01-01', 53],
    ['2026-03-24', 13],
    ['2025-12-29', 1],
  ])('%s is in ISO week %i', (date, week) => {
    expect(isoWeekOfDay(dayNumber(date))).toBe(week);
  });
});

describe('parseIsoWeek', () => {
  it.each([
    ['@odd', '@odd'],
    ['@EVEN', '@even'],
    [53, '53'],
    ['52, 1,53', '1,52,53'],
  ])('accepts %s', (raw, normalized) => {
    const r = parseIsoWeek(raw);
    expect(r.ok && r.normalized).toBe(normalized);
  });

  it.each([['0'], ['54'], ['@weekly'], [''], ['1,,2'], [true]])('rejects %s', (raw) => {
    expect(parseIsoWeek(raw).ok).toBe(false);
  });
});
