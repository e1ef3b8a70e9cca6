// Formats instants in a named IANA zone, always with the zone shown, e.g. "Mon 2026-11-23 08:00 CET".
const cache = new Map<string, Intl.DateTimeFormat>();

function formatter(zone: string): Intl.DateTimeFormat {
  let f = cache.get(zone);
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
    cache.set(zone, f);
  }
  return f;
}

export function formatInZone(iso: string | null | undefined, zone: string, opts: { weekday?: boolean } = {}): string {
  if (!iso) return '—';
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return iso;
  const parts = Object.fromEntries(
    formatter(zone)
      .formatToParts(new Date(ms))
      .map((p) => [p.type, p.value]),
  );
  const name = zone === 'UTC' ? 'UTC' : parts.timeZoneName;
  return `${opts.weekday === false ? '' : `${parts.weekday} `}${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute} ${name}`;
}
