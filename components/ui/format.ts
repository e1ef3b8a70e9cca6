// Display helpers shared by components. Times always carry their zone.
export function formatUtc(iso: string | null | undefined): string {
  if (!iso) return '—';
  return `${iso.replace('T', ' ').replace(/(:\d{2})(\.\d+)?Z$/, '')} UTC`;
}

export function formatRelative(iso: string | null | undefined, now: Date): string {
  if (!iso) return '';
  const diff = Date.parse(iso) - now.getTime();
  const abs = Math.abs(diff);
  const unit = abs >= 86_400_000 ? [86_400_000, 'd'] : abs >= 3_600_000 ? [3_600_000, 'h'] : [60_000, 'min'];
  const n = Math.round(abs / (unit[0] as number));
  return diff >= 0 ? `in ${n} ${unit[1]}` : `${n} ${unit[1]} ago`;
}

export function formatDays(days: number): string {
  return days >= 10 ? days.toFixed(0) : days.toFixed(1);
}
