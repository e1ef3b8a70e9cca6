// Pure time formatting for the UI: instants always carry their zone ("Mon 2026-11-23 08:00 CET",
// "2026-11-23 08:00 UTC"). tRPC sends no transformer, so a Date the server returns arrives as an
// ISO string even though its type says Date: `isoOf` normalizes both.
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-GB', {
      timeZone: zone,
      weekday: 'short',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
      timeZoneName: 'short',
    });
    formatters.set(zone, f);
  }
  return f;
}

export function isoOf(value: Date | string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  const d = typeof value === 'string' ? new Date(value) : value;
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
}

/** `iso` in the IANA `zone`, to the minute, with the weekday (unless `weekday: false`) and the zone's short name; '—' when absent. */
export function formatInZone(iso: Date | string | null | undefined, zone: string, opts: { weekday?: boolean } = {}): string {
  if (iso === null || iso === undefined || iso === '') return '—';
  const ms = typeof iso === 'string' ? Date.parse(iso) : iso.getTime();
  if (Number.isNaN(ms)) return typeof iso === 'string' ? iso : '—';
  const parts = Object.fromEntries(
    formatter(zone)
      .formatToParts(new Date(ms))
      .map((p) => [p.type, p.value]),
  );
  const name = zone === 'UTC' ? 'UTC' : parts.timeZoneName;
  return `${opts.weekday === false ? '' : `${parts.weekday} `}${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute} ${name}`;
}

/** "2026-11-23 08:00 UTC". */
export function formatUtc(iso: Date | string | null | undefined): string {
  return formatInZone(iso, 'UTC', { weekday: false });
}

/** An ISO instant as the value of an `<input type="datetime-local">` read as UTC (minutes). */
export function toUtcInput(iso: string | null | undefined): string {
  if (!iso) return '';
  return iso.slice(0, 16);
}

/** The value of a UTC `datetime-local` input as an ISO instant, or undefined when empty/invalid. */
export function fromUtcInput(value: string): string | undefined {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/.test(value)) return undefined;
  const d = new Date(`${value.length === 16 ? `${value}:00` : value}Z`);
  return Number.isNaN(d.getTime()) ? undefined : d.toISOString();
}

/** How long a piece of work took: milliseconds and seconds with decimals (a tick's 3.71 s), then `formatSpan`. */
export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '—';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
  const m = Math.floor(ms / 60_000);
  const s = Math.round((ms % 60_000) / 1000);
  return `${m} min ${s} s`;
}

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/**
 * A span as an operator reads it, in its two largest units: "40 s", "12 min", "5 h 35 min",
 * "13 d 16 h" (not "328.58 h"); 100 days and more in days alone.
 */
export function formatSpan(ms: number): string {
  const abs = Math.abs(ms);
  if (abs < MINUTE) return `${Math.round(abs / SECOND)} s`;
  if (abs < HOUR) return `${Math.round(abs / MINUTE)} min`;
  if (abs < DAY) {
    const minutes = Math.round(abs / MINUTE);
    const h = Math.floor(minutes / 60);
    const m = minutes % 60;
    return m ? `${h} h ${m} min` : `${h} h`;
  }
  const hours = Math.round(abs / HOUR);
  const d = Math.floor(hours / 24);
  const h = hours % 24;
  return h && d < 100 ? `${d} d ${h} h` : `${d} d`;
}

/** "in 13 d 16 h" / "5 min ago" / "now" (under a second away): `iso` seen from `nowMs`. */
export function formatRelative(iso: Date | string | null | undefined, nowMs: number): string {
  const normalized = isoOf(iso);
  if (!normalized) return '';
  const diff = Date.parse(normalized) - nowMs;
  if (Math.abs(diff) < SECOND) return 'now';
  return diff > 0 ? `in ${formatSpan(diff)}` : `${formatSpan(diff)} ago`;
}

/** The time-zone choice of the browser: instants in UTC, or in the browser's own zone. */
export type ZoneChoice = 'UTC' | 'local';

/** The IANA zone a choice stands for (the browser's for 'local'). */
export function zoneOf(choice: ZoneChoice): string {
  return choice === 'UTC' ? 'UTC' : Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}
