// Number display helpers shared by components (times: ./zoned-time.ts).
export function formatDays(days: number): string {
  return days >= 10 ? days.toFixed(0) : days.toFixed(1);
}
