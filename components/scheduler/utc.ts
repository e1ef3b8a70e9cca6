// Time helpers for the scheduler and activity pages. tRPC sends no transformer, so a Date the
// server returns arrives as an ISO string even though its type says Date: normalize here.

export function isoOf(value: Date | string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  const d = typeof value === 'string' ? new Date(value) : value;
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
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
