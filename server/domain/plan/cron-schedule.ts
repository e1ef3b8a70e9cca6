/**
 * Five-field cron schedules evaluated in an IANA time zone, optionally limited to ISO weeks.
 *
 * Rules (contracts/plan.md):
 * - fields: minute hour day-of-month month day-of-week; numbers, ranges, lists, steps, month and
 *   day names; no seconds field, no `L`, `W`, `#`, `?` or `@` macros;
 * - day-of-month AND day-of-week must both match (croniter `day_or=False`, unlike Vixie cron's
 *   OR), so `0 10 8-14 * 5` is the second Friday;
 * - times are local wall-clock times in `location`: a local time that does not exist (clocks jump
 *   forward) never fires, one that happens twice fires at both instants;
 * - `isoWeek` (`@odd`, `@even`, `1,27,53`) is the ISO-8601 week of the local date.
 * @see https://github.com/kiorky/croniter (day_or=False)
 */
import type { Schedule } from './types';
import { DAY_MS, HOUR_MS, MINUTE_MS } from './time';

type FieldSpec = { name: string; min: number; max: number; names?: readonly string[] };

const MONTH_NAMES = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'] as const;
const DAY_NAMES = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] as const;

const FIELDS: readonly FieldSpec[] = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day of month', min: 1, max: 31 },
  { name: 'month', min: 1, max: 12, names: MONTH_NAMES },
  { name: 'day of week', min: 0, max: 7, names: DAY_NAMES },
];

/** A parsed cron expression: one membership table per field. */
export type CronExpression = {
  source: string;
  minutes: number[];
  hours: number[];
  daysOfMonth: boolean[];
  months: boolean[];
  /** Index 0 = Sunday (7 is folded into 0). */
  daysOfWeek: boolean[];
};

export type CronParseResult = { ok: true; cron: CronExpression } | { ok: false; message: string };

/** Longest search for a next run: 8 years covers Feb 29 on a given weekday and ISO week 53. */
const MAX_SEARCH_DAYS = 366 * 8 + 7;
/** Local wall time never differs from UTC by more than this (UTC-12 .. UTC+14). */
const MAX_OFFSET_MS = 15 * HOUR_MS;
/** Zone offsets only change on quarter-hour boundaries in practice; cache per quarter hour. */
const OFFSET_BUCKET_MS = 15 * MINUTE_MS;

function parseValue(token: string, spec: FieldSpec): number | string {
  if (/^\d+$/.test(token)) {
    const n = Number(token);
    if (n < spec.min || n > spec.max) {
      return `${spec.name} value ${token} is out of range ${spec.min}-${spec.max}`;
    }
    return n;
  }
  const lower = token.toLowerCase();
  if (spec.names) {
    const i = spec.names.indexOf(lower as never);
    if (i >= 0) return spec.name === 'month' ? i + 1 : i;
  }
  return `${spec.name}: '${token}' is not a number${spec.names ? ' or name' : ''}`;
}

function parseField(text: string, spec: FieldSpec): number[] | string {
  const values = new Set<number>();
  for (const part of text.split(',')) {
    if (part === '') return `${spec.name}: empty list item in '${text}'`;
    const [base, stepText, extra] = part.split('/');
    if (extra !== undefined || base === undefined) return `${spec.name}: bad step in '${part}'`;
    let step = 1;
    if (stepText !== undefined) {
      if (!/^\d+$/.test(stepText) || Number(stepText) === 0) {
        return `${spec.name}: step '${stepText}' must be a positive number`;
      }
      step = Number(stepText);
    }
    let lo: number;
    let hi: number;
    if (base === '*') {
      lo = spec.min;
      hi = spec.name === 'day of week' ? 6 : spec.max;
    } else {
      const bounds = base.split('-');
      if (bounds.length > 2 || bounds.some((b) => b === '')) return `${spec.name}: bad range '${base}'`;
      const a = parseValue(bounds[0] as string, spec);
      if (typeof a === 'string') return a;
      lo = a;
      if (bounds.length === 2) {
        const b = parseValue(bounds[1] as string, spec);
        if (typeof b === 'string') return b;
        hi = b;
        if (hi < lo) return `${spec.name}: range '${base}' runs backwards`;
      } else {
        // `a/n` means every n from a to the field's end (croniter, cron-parser).
        hi = stepText !== undefined ? spec.max : lo;
      }
    }
    for (let v = lo; v <= hi; v += step) values.add(spec.name === 'day of week' && v === 7 ? 0 : v);
  }
  return [...values].sort((x, y) => x - y);
}

function table(values: number[], size: number): boolean[] {
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
    const bad = /[LW#?@]/i.exec(f.replace(/[a-z]{3}/gi, (w) => (isName(w) ? '' : w)));
    if (bad) return { ok: false, message: `'${bad[0]}' is not supported in cron field '${f}'` };
  }
  const parsed: number[][] = [];
  for (let i = 0; i < 5; i++) {
    const r = parseField(fields[i] as string, FIELDS[i] as FieldSpec);
    if (typeof r === 'string') return { ok: false, message: r };
    parsed.push(r);
  }
  const [minutes, hours, doms, months, dows] = parsed as [number[], number[], number[], number[], number[]];
  return {
    ok: true,
    cron: {
      source,
      minutes,
      hours,
      daysOfMonth: table(doms, 32),
      months: table(months, 13),
      daysOfWeek: table(dows, 7),
    },
  };
}

function isName(w: string): boolean {
  const l = w.toLowerCase();
  return (MONTH_NAMES as readonly string[]).includes(l) || (DAY_NAMES as readonly string[]).includes(l);
}

/** ISO-week filter: `@odd`, `@even`, or a list of week numbers 1..53. */
export type IsoWeekFilter = (week: number) => boolean;
export type IsoWeekParseResult = { ok: true; normalized: string; filter: IsoWeekFilter } | { ok: false; message: string };

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
export function zoneOffsetMs(zone: string, instant: number): number {
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
export type CompiledSchedule = {
  key: string;
  cron: CronExpression;
  location: string;
  isoWeek?: IsoWeekFilter;
};

const compiledCache = new Map<string, CompiledSchedule | null>();

export function scheduleKey(schedule: Pick<Schedule, 'cron' | 'location' | 'isoWeek'>): string {
  return `${schedule.cron}\u0000${schedule.location}\u0000${schedule.isoWeek ?? ''}`;
}

/** Compiles a (validated) schedule; null when it is not valid. */
export function compileSchedule(schedule: Pick<Schedule, 'cron' | 'location' | 'isoWeek'>): CompiledSchedule | null {
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
export type ScheduleLike = string | (Pick<Schedule, 'cron'> & Partial<Pick<Schedule, 'location' | 'isoWeek'>>);

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
