/**
 * Five-field cron schedules evaluated in an IANA time zone, optionally limited to ISO weeks.
 *
 * cron-parser parses each field (numbers, ranges, lists, steps, month and day names), expands it
 * to its values and words the messages. On top, the contract's own rules (contracts/plan.md):
 * - exactly five fields; no seconds field, no `L`, `W`, `#`, `?`, `H` or `@` macros (cron-parser
 *   takes all of these);
 * - a day-month pair that never occurs (`0 0 31 2 *`) is a valid schedule that never fires
 *   (cron-parser refuses it, so fields are parsed one at a time), and a list may repeat values
 *   (`1-5,3`; cron-parser refuses it, so list items are expanded one at a time);
 * - day-of-month AND day-of-week must both match (croniter `day_or=False`, unlike Vixie cron's
 *   and cron-parser's OR), so `0 10 8-14 * 5` is the second Friday;
 * - times are local wall-clock times in `location`: a local time that does not exist (clocks jump
 *   forward) never fires, one that happens twice fires at both instants;
 * - `isoWeek` (`@odd`, `@even`, `1,27,53`) is the ISO-8601 week of the local date.
 * Run times are found here (listRuns), not with cron-parser's iterator, for the last three rules.
 * @see https://github.com/kiorky/croniter (day_or=False)
 */
import { CronExpressionParser } from 'cron-parser';
import type { Schedule } from './types';
import { DAY_MS, HOUR_MS, MINUTE_MS } from './time';

/** A parsed cron expression: one membership table per field. */
type CronExpression = {
  source: string;
  minutes: number[];
  hours: number[];
  daysOfMonth: boolean[];
  months: boolean[];
  /** Index 0 = Sunday (7 is folded into 0). */
  daysOfWeek: boolean[];
};

type CronParseResult = { ok: true; cron: CronExpression } | { ok: false; message: string };

/** Longest search for a next run: 8 years covers Feb 29 on a given weekday and ISO week 53. */
const MAX_SEARCH_DAYS = 366 * 8 + 7;
/** Local wall time never differs from UTC by more than this (UTC-12 .. UTC+14). */
const MAX_OFFSET_MS = 15 * HOUR_MS;
/** Zone offsets only change on quarter-hour boundaries in practice; cache per quarter hour. */
const OFFSET_BUCKET_MS = 15 * MINUTE_MS;

/** Field names in cron-parser's collection, in expression order (ours has no seconds field). */
const FIELDS = [
  { key: 'minute', name: 'minute' },
  { key: 'hour', name: 'hour' },
  { key: 'dayOfMonth', name: 'day of month' },
  { key: 'month', name: 'month' },
  { key: 'dayOfWeek', name: 'day of week' },
] as const;

/**
 * Extensions cron-parser accepts that the contract does not: `L` (last), `W` (weekday), `#`
 * (nth weekday), `?`, `H` (hashed values). Month and day names are taken out before the check.
 */
const UNSUPPORTED = /[LW#?H@]/i;
const NAME = /[a-z]{3}/gi;
/** Month names (1-12), then day names (0-6), as cron-parser reads them (any case). */
const MONTH_NAMES = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const DAY_NAMES = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];
const NAMES = new Set([...MONTH_NAMES, ...DAY_NAMES]);

/** The plain numbers that stand for themselves per field (cron-parser turns day of week 7 into 0). */
export const FIELD_RANGES: readonly (readonly [number, number])[] = [
  [0, 59],
  [0, 23],
  [1, 31],
  [1, 12],
  [0, 6],
];
/** A plain number without leading zeros: within its field's range, it stands for itself alone. */
const PLAIN_NUMBER = /^(?:0|[1-9]\d?)$/;

/**
 * One list item of a field expanded, or cron-parser's message. A plain number within the field's
 * range is itself (cron-parser-rules.test.ts checks every one against cron-parser); anything else
 * not expanded here goes through cron-parser (whole expressions are cached by parseCron).
 */
export function expandCronItem(item: string, at: number): readonly number[] | string {
  if (PLAIN_NUMBER.test(item)) {
    const n = Number(item);
    const [min, max] = FIELD_RANGES[at]!;
    if (n >= min && n <= max) return [n];
  }
  const common = expandCommonItem(item, at);
  if (common !== undefined) return common;
  return expandItemWithCronParser(item, at);
}

/**
 * The values `*` and `*\/N` run through as cron-parser expands them: its day of week runs to 7
 * (Sunday again), as it keeps it.
 */
const WILDCARD_RANGES: readonly (readonly [number, number])[] = [
  [0, 59],
  [0, 23],
  [1, 31],
  [1, 12],
  [0, 7],
];
const STEP = /^\*\/(?:[1-9]\d?)$/;
const RANGE = /^(?:0|[1-9]\d?)-(?:0|[1-9]\d?)$/;
const NAME_RANGE = /^[a-z]{3}-[a-z]{3}$/i;

function nameValue(name: string, at: number): number | undefined {
  const names = at === 3 ? MONTH_NAMES : at === 4 ? DAY_NAMES : undefined;
  const i = names?.indexOf(name.toLowerCase()) ?? -1;
  return i < 0 ? undefined : at === 3 ? i + 1 : i;
}

/**
 * The items almost every schedule is made of — `*`, `*\/N`, `A-B` with numbers or names — in the
 * forms whose expansion is plain (a step within the field, an ascending range within the range
 * of plain numbers); undefined for anything else, which goes to cron-parser. The first
 * cron-parser call of a process costs ~10 ms (its code and luxon's, cold), for a CLI run that
 * needs none. cron-parser-rules.test.ts checks every such item of every field against it.
 */
export function expandCommonItem(item: string, at: number): readonly number[] | undefined {
  let from: number;
  let to: number;
  let step = 1;
  if (item === '*' || STEP.test(item)) {
    [from, to] = WILDCARD_RANGES[at]!;
    if (item !== '*') step = Number(item.slice(2));
    if (step > to - from) return undefined;
  } else {
    let ends: (number | undefined)[];
    if (RANGE.test(item)) ends = item.split('-').map(Number);
    else if (NAME_RANGE.test(item)) ends = item.split('-').map((name) => nameValue(name, at));
    else return undefined;
    const [min, max] = FIELD_RANGES[at]!;
    if (ends[0] === undefined || ends[1] === undefined || ends[0] < min || ends[0] > ends[1] || ends[1] > max) return undefined;
    [from, to] = ends as [number, number];
  }
  const values: number[] = [];
  for (let v = from; v <= to; v += step) values.push(v);
  return values;
}

/** One list item of a field as cron-parser expands it, or its message. */
export function expandItemWithCronParser(item: string, at: number): readonly number[] | string {
  // The other fields are `*`: with the whole expression cron-parser refuses day-month pairs that
  // never occur (`0 0 31 2 *`), which the contract accepts as a schedule that never fires.
  const probe = ['0', ...FIELDS.map((_, i) => (i === at ? item : '*'))].join(' ');
  try {
    return CronExpressionParser.parse(probe, { tz: 'UTC' }).fields[FIELDS[at]!.key].values as readonly number[];
  } catch (err) {
    return (err as Error).message;
  }
}

/**
 * A field's values (a list's items expanded one by one, since cron-parser refuses a list whose
 * items overlap, such as `1-5,3`), or what is wrong with it.
 */
function expandField(field: string, at: number): number[] | string {
  const name = FIELDS[at]!.name;
  const values = new Set<number>();
  for (const item of field.split(',')) {
    if (item === '') return `${name}: empty list item in '${field}'`;
    const expanded = expandCronItem(item, at);
    if (typeof expanded === 'string') return `${name} '${item}': ${expanded}`;
    for (const v of expanded) values.add(v);
  }
  return [...values].sort((x, y) => x - y);
}

function table(values: readonly number[], size: number): boolean[] {
  const t = new Array<boolean>(size).fill(false);
  for (const v of values) t[v] = true;
  return t;
}

const cronCache = new Map<string, CronParseResult>();

/** Parses a five-field cron expression; the message says what is wrong. */
export function parseCron(source: string): CronParseResult {
  const hit = cronCache.get(source);
  if (hit) return hit;
  const result = parseCronUncached(source);
  if (cronCache.size > 10_000) cronCache.clear();
  cronCache.set(source, result);
  return result;
}

function parseCronUncached(source: string): CronParseResult {
  const text = source.trim();
  if (text.startsWith('@')) return { ok: false, message: `'@' macros are not supported: '${source}'` };
  const fields = text.split(/\s+/).filter((f) => f !== '');
  if (fields.length !== 5) {
    return {
      ok: false,
      message: `a cron expression has 5 fields (minute hour day-of-month month day-of-week), '${source}' has ${fields.length}`,
    };
  }
  for (const f of fields) {
    const bad = UNSUPPORTED.exec(f.replace(NAME, (w) => (NAMES.has(w.toLowerCase()) ? '' : w)));
    if (bad) return { ok: false, message: `'${bad[0]}' is not supported in cron field '${f}'` };
  }
  const expanded: number[][] = [];
  for (let i = 0; i < FIELDS.length; i++) {
    const values = expandField(fields[i] as string, i);
    if (typeof values === 'string') return { ok: false, message: values };
    expanded.push(values);
  }
  const [minutes, hours, doms, months, dows] = expanded as [number[], number[], number[], number[], number[]];
  return {
    ok: true,
    cron: {
      source,
      minutes,
      hours,
      daysOfMonth: table(doms, 32),
      months: table(months, 13),
      // cron-parser keeps 7 (Sunday) apart from 0
      daysOfWeek: table(
        dows.map((d) => (d === 7 ? 0 : d)),
        7,
      ),
    },
  };
}

/** ISO-week filter: `@odd`, `@even`, or a list of week numbers 1..53. */
type IsoWeekFilter = (week: number) => boolean;
type IsoWeekParseResult = { ok: true; normalized: string; filter: IsoWeekFilter } | { ok: false; message: string };

export function parseIsoWeek(raw: unknown): IsoWeekParseResult {
  const text = typeof raw === 'number' ? String(raw) : typeof raw === 'string' ? raw.trim() : null;
  if (text === null) return { ok: false, message: 'isoWeek must be @odd, @even or a list of ISO week numbers' };
  const lower = text.toLowerCase();
  if (lower === '@odd') return { ok: true, normalized: '@odd', filter: (w) => w % 2 === 1 };
  if (lower === '@even') return { ok: true, normalized: '@even', filter: (w) => w % 2 === 0 };
  const parts = text.split(',').map((p) => p.trim());
  const weeks = new Set<number>();
  for (const p of parts) {
    if (!/^\d+$/.test(p) || Number(p) < 1 || Number(p) > 53) {
      return { ok: false, message: `isoWeek '${text}': '${p}' is not @odd, @even or a week number 1..53` };
    }
    weeks.add(Number(p));
  }
  const sorted = [...weeks].sort((a, b) => a - b);
  return { ok: true, normalized: sorted.join(','), filter: (w) => weeks.has(w) };
}

/** True when `location` names a time zone this runtime knows (IANA names, `UTC`). */
const knownZones = new Map<string, boolean>();

export function isKnownTimeZone(location: string): boolean {
  const hit = knownZones.get(location);
  if (hit !== undefined) return hit;
  let known = /^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(location);
  if (known) {
    try {
      new Intl.DateTimeFormat('en-US', { timeZone: location });
    } catch {
      known = false;
    }
  }
  if (knownZones.size > 10_000) knownZones.clear();
  knownZones.set(location, known);
  return known;
}

const formatters = new Map<string, Intl.DateTimeFormat>();
const offsetCache = new Map<string, Map<number, number>>();

function isUtc(zone: string): boolean {
  return zone === 'UTC' || zone === 'Etc/UTC' || zone === 'Etc/GMT' || zone === 'GMT';
}

/** Offset (local - UTC, ms) of `zone` at `instant`. */
function zoneOffsetMs(zone: string, instant: number): number {
  if (isUtc(zone)) return 0;
  let perZone = offsetCache.get(zone);
  if (!perZone) {
    perZone = new Map();
    offsetCache.set(zone, perZone);
  }
  const bucket = Math.floor(instant / OFFSET_BUCKET_MS);
  const hit = perZone.get(bucket);
  if (hit !== undefined) return hit;
  let fmt = formatters.get(zone);
  if (!fmt) {
    fmt = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
      era: 'short',
    });
    formatters.set(zone, fmt);
  }
  const at = bucket * OFFSET_BUCKET_MS;
  const parts: Record<string, string> = {};
  for (const p of fmt.formatToParts(new Date(at))) parts[p.type] = p.value;
  let year = Number(parts.year);
  if (parts.era === 'BC' || parts.era === 'B') year = 1 - year;
  const wall = Date.UTC(year, Number(parts.month) - 1, Number(parts.day), Number(parts.hour), Number(parts.minute), Number(parts.second));
  const offset = wall - at;
  if (perZone.size > 200_000) perZone.clear();
  perZone.set(bucket, offset);
  return offset;
}

/**
 * The instants at which local wall time `wall` (ms, as if UTC) occurs in `zone`: none in a gap,
 * two in an overlap, sorted.
 */
export function localToInstants(zone: string, wall: number): number[] {
  if (isUtc(zone)) return [wall];
  const candidates = new Set([zoneOffsetMs(zone, wall - DAY_MS), zoneOffsetMs(zone, wall), zoneOffsetMs(zone, wall + DAY_MS)]);
  const out: number[] = [];
  for (const o of candidates) {
    const instant = wall - o;
    if (zoneOffsetMs(zone, instant) === o && !out.includes(instant)) out.push(instant);
  }
  return out.sort((a, b) => a - b);
}

/** ISO-8601 week number of a civil date given as days since 1970-01-01. */
export function isoWeekOfDay(dayNumber: number): number {
  const dow = (((dayNumber + 4) % 7) + 7) % 7; // 0 = Sunday; 1970-01-01 was a Thursday
  const isoDow = dow === 0 ? 7 : dow;
  const thursday = dayNumber + (4 - isoDow);
  const d = new Date(thursday * DAY_MS);
  const jan1 = Date.UTC(d.getUTCFullYear(), 0, 1) / DAY_MS;
  return Math.floor((thursday - jan1) / 7) + 1;
}

/** A schedule ready for evaluation. */
type CompiledSchedule = {
  key: string;
  cron: CronExpression;
  location: string;
  isoWeek?: IsoWeekFilter;
};

const compiledCache = new Map<string, CompiledSchedule | null>();

function scheduleKey(schedule: Pick<Schedule, 'cron' | 'location' | 'isoWeek'>): string {
  return `${schedule.cron}\u0000${schedule.location}\u0000${schedule.isoWeek ?? ''}`;
}

/**
 * The last compilation of each schedule object, checked against its fields: the engine asks for
 * the same policies' schedules once per cluster and run (a 90-day forecast of 10,000 clusters:
 * millions of times), and building the key string each time showed in its profile.
 */
const compiledBySchedule = new WeakMap<
  object,
  { cron: string; location: string; isoWeek: string | undefined; compiled: CompiledSchedule | null }
>();

/** Compiles a (validated) schedule; null when it is not valid. */
export function compileSchedule(schedule: Pick<Schedule, 'cron' | 'location' | 'isoWeek'>): CompiledSchedule | null {
  const seen = compiledBySchedule.get(schedule);
  if (seen && seen.cron === schedule.cron && seen.location === schedule.location && seen.isoWeek === schedule.isoWeek) return seen.compiled;
  const compiled = compileByKey(schedule);
  compiledBySchedule.set(schedule, { cron: schedule.cron, location: schedule.location, isoWeek: schedule.isoWeek, compiled });
  return compiled;
}

function compileByKey(schedule: Pick<Schedule, 'cron' | 'location' | 'isoWeek'>): CompiledSchedule | null {
  const key = scheduleKey(schedule);
  const hit = compiledCache.get(key);
  if (hit !== undefined) return hit;
  const cron = parseCron(schedule.cron);
  let compiled: CompiledSchedule | null = null;
  if (cron.ok && isKnownTimeZone(schedule.location)) {
    const iso = schedule.isoWeek === undefined ? undefined : parseIsoWeek(schedule.isoWeek);
    if (!iso || iso.ok) compiled = { key, cron: cron.cron, location: schedule.location, isoWeek: iso?.filter };
  }
  if (compiledCache.size > 10_000) compiledCache.clear();
  compiledCache.set(key, compiled);
  return compiled;
}

/**
 * Run times strictly after `after` (epoch ms), ascending, at most `count`, none after `until`
 * when given. Searches at most ~8 years ahead.
 */
export function listRuns(schedule: CompiledSchedule, after: number, count: number, until?: number): number[] {
  const { cron, location, isoWeek } = schedule;
  const found: number[] = [];
  if (count <= 0) return found;
  const startDay = Math.floor((after - MAX_OFFSET_MS) / DAY_MS);
  for (let day = startDay; day <= startDay + MAX_SEARCH_DAYS; day++) {
    const dayWall = day * DAY_MS;
    const bound = found.length >= count ? (found[count - 1] as number) : until;
    if (bound !== undefined && dayWall - MAX_OFFSET_MS > bound) break;
    const date = new Date(dayWall);
    if (!cron.months[date.getUTCMonth() + 1] || !cron.daysOfMonth[date.getUTCDate()] || !cron.daysOfWeek[date.getUTCDay()]) {
      continue;
    }
    if (isoWeek && !isoWeek(isoWeekOfDay(day))) continue;
    let dayFound = false;
    outer: for (const h of cron.hours) {
      for (const mi of cron.minutes) {
        const wall = dayWall + h * HOUR_MS + mi * MINUTE_MS;
        if (wall + MAX_OFFSET_MS <= after) continue;
        const b = found.length >= count ? (found[count - 1] as number) : until;
        if (b !== undefined && wall - MAX_OFFSET_MS > b) break outer;
        for (const instant of localToInstants(location, wall)) {
          if (instant > after && (until === undefined || instant <= until)) {
            found.push(instant);
            dayFound = true;
          }
        }
      }
    }
    if (dayFound) {
      found.sort((a, b) => a - b);
      if (found.length > count) found.length = count;
    }
  }
  return found;
}

/** Accepts a normalized schedule or a bare cron string (UTC). */
type ScheduleLike = string | (Pick<Schedule, 'cron'> & Partial<Pick<Schedule, 'location' | 'isoWeek'>>);

function toCompiled(schedule: ScheduleLike): CompiledSchedule | null {
  const s = typeof schedule === 'string' ? { cron: schedule } : schedule;
  return compileSchedule({ cron: s.cron, location: s.location ?? 'UTC', isoWeek: s.isoWeek });
}

/**
 * The next `count` run times strictly after `after`, for calendars and the policy editor.
 * Returns fewer (possibly none) when the schedule is invalid or fires less often within ~8 years.
 */
export function nextScheduleRuns(schedule: ScheduleLike, after: Date, count: number): Date[] {
  const compiled = toCompiled(schedule);
  if (!compiled) return [];
  return listRuns(compiled, after.getTime(), count).map((t) => new Date(t));
}

/** Human description of a schedule for messages: `0 22 * * 2 (Europe/Zurich, isoWeek @odd)`. */
export function describeSchedule(schedule: Pick<Schedule, 'cron' | 'location' | 'isoWeek'>): string {
  const extras = [schedule.location, schedule.isoWeek !== undefined ? `isoWeek ${schedule.isoWeek}` : null].filter(Boolean);
  return `${schedule.cron} (${extras.join(', ')})`;
}
