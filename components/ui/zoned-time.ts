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

export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '—';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
  const m = Math.floor(ms / 60_000);
  const s = Math.round((ms % 60_000) / 1000);
  return `${m} min ${s} s`;
}

/** "in 40 s" / "3 min ago" for short real-time spans (lease expiry, next tick). */
export function formatSecondsFrom(iso: string | null | undefined, nowMs: number): string {
  if (!iso) return '';
  const diff = Math.round((Date.parse(iso) - nowMs) / 1000);
  const abs = Math.abs(diff);
  const text = abs < 90 ? `${abs} s` : abs < 5400 ? `${Math.round(abs / 60)} min` : `${Math.round(abs / 3600)} h`;
  return diff >= 0 ? `in ${text}` : `${text} ago`;
}

/** "in 3 h" / "2 d ago" for spans of minutes to days. */
export function formatRelative(iso: string | null | undefined, now: Date): string {
  if (!iso) return '';
  const diff = Date.parse(iso) - now.getTime();
  const abs = Math.abs(diff);
  const unit = abs >= 86_400_000 ? [86_400_000, 'd'] : abs >= 3_600_000 ? [3_600_000, 'h'] : [60_000, 'min'];
  const n = Math.round(abs / (unit[0] as number));
  return diff >= 0 ? `in ${n} ${unit[1]}` : `${n} ${unit[1]} ago`;
}
