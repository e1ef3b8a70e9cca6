// Number display helpers shared by components (times: ./zoned-time.ts).
export function formatDays(days: number): string {
  return days >= 10 ? days.toFixed(0) : days.toFixed(1);
}

// Time formatting lives in ./zoned-time.ts; these names stay importable from here for callers not yet moved.
export { formatRelative, formatUtc } from './zoned-time';
