// The contract's cron rules that differ from cron-parser's own, which parses the fields: each
// case here is one cron-parser alone would get wrong.
import { CronExpressionParser } from 'cron-parser';
import { describe, expect, it } from 'vitest';
import { expandCommonItem, expandCronItem, expandItemWithCronParser, FIELD_RANGES, nextScheduleRuns, parseCron } from './cron-schedule';

const iso = (d: Date) => d.toISOString().replace('.000Z', 'Z');

describe('cron rules on top of cron-parser', () => {
  it.each(['H 0 * * *', '0 0 L * *', '0 0 * * 5#2', '0 0 ? * *', '@daily', '0 0 0 * * *'])(
    'refuses %s, which cron-parser accepts',
    (expr) => {
      expect(() => CronExpressionParser.parse(expr)).not.toThrow();
      expect(parseCron(expr).ok).toBe(false);
    },
  );

  it('accepts a day that never occurs (0 0 31 2 *) as a schedule that never fires; cron-parser refuses it', () => {
    expect(() => CronExpressionParser.parse('0 0 31 2 *')).toThrow();
    expect(parseCron('0 0 31 2 *').ok).toBe(true);
    expect(nextScheduleRuns('0 0 31 2 *', new Date('2021-01-01T00:00:00Z'), 1)).toEqual([]);
  });

  it('accepts lists whose items overlap; cron-parser refuses them', () => {
    expect(() => CronExpressionParser.parse('1-5,3 * * * *')).toThrow(/duplicate/);
    const parsed = parseCron('1-5,3 * * * *');
    expect(parsed.ok && parsed.cron.minutes).toEqual([1, 2, 3, 4, 5]);
  });

  it('needs day-of-month AND day-of-week (second Friday); cron-parser fires on either', () => {
    const after = new Date('2021-09-01T00:00:00Z');
    expect(nextScheduleRuns('0 10 8-14 * 5', after, 1).map(iso)).toEqual(['2021-09-10T10:00:00Z']);
    const theirs = CronExpressionParser.parse('0 10 8-14 * 5', { currentDate: after, tz: 'UTC' }).next().toISOString();
    expect(theirs).toBe('2021-09-03T10:00:00.000Z');
  });

  it("words the problem with cron-parser's message, naming the field", () => {
    const r = parseCron('0 48 * * 1-5');
    expect(r.ok).toBe(false);
    expect(!r.ok && r.message).toMatch(/^hour '48': .*48/);
  });

  it('expands a plain number as cron-parser does, in every field, within its range and outside it', () => {
    const items = [...Array.from({ length: 100 }, (_, n) => String(n)), '00', '07', '-1', '1e1', '0x1'];
    FIELD_RANGES.forEach((_, at) => {
      for (const item of items) expect([at, item, expandCronItem(item, at)]).toEqual([at, item, expandItemWithCronParser(item, at)]);
    });
  });

  it('expands *, */N and ranges of numbers or names without cron-parser where plain, as cron-parser does, in every field', () => {
    const numbers = Array.from({ length: 71 }, (_, n) => String(n));
    const names = ['jan', 'feb', 'mar', 'jun', 'dec', 'sun', 'mon', 'fri', 'sat', 'Mon', 'FRI', 'xyz'];
    const items = [
      '*',
      ...Array.from({ length: 101 }, (_, n) => `*/${n}`),
      ...numbers.flatMap((a) => numbers.map((b) => `${a}-${b}`)),
      ...names.flatMap((a) => names.map((b) => `${a}-${b}`)),
      '*/07',
      '01-5',
      '1-05',
    ];
    const natively = FIELD_RANGES.map(() => 0);
    FIELD_RANGES.forEach((_, at) => {
      for (const item of items) {
        const common = expandCommonItem(item, at);
        if (common === undefined) continue;
        natively[at]!++;
        expect([at, item, common]).toEqual([at, item, expandItemWithCronParser(item, at)]);
        expect(expandCronItem(item, at)).toEqual(common);
      }
    });
    // most such items of each field are expanded natively (the rest goes to cron-parser)
    expect(natively.every((n) => n > 40)).toBe(true);
  });

  it("gives the same expansion when an item is met again (cached), and cron-parser's message for a bad one", () => {
    expect(expandCronItem('*/15', 0)).toEqual([0, 15, 30, 45]);
    expect(expandCronItem('*/15', 0)).toEqual([0, 15, 30, 45]);
    expect(expandCronItem('9-17', 1)).toEqual(expandItemWithCronParser('9-17', 1));
    expect(expandCronItem('mon-fri', 4)).toEqual(expandItemWithCronParser('mon-fri', 4));
    const bad = expandItemWithCronParser('30-70', 0);
    expect(typeof bad).toBe('string');
    expect(expandCronItem('30-70', 0)).toBe(bad);
    expect(expandCronItem('30-70', 0)).toBe(bad);
  });
});
