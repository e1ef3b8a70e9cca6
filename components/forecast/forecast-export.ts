// The forecast's per-cluster rows as a download: one CSV line per predicted upgrade (a cluster
// without one gets a line too, so "not within the horizon" is in the file), or the rows as JSON.
import { toCsv, type CellValue } from '@/components/ui/table-model';

export interface ForecastExportRow {
  cluster: string;
  sector: string | null;
  managed: boolean;
  startVersion: string;
  finalVersion: string;
  reachesTargetAt: string | null;
  upgrades: readonly { from: string; version: string; start: string; end: string; inFlight: boolean; via?: readonly string[] }[];
}

const HEADERS = [
  'cluster',
  'sector',
  'managed',
  'start version',
  'upgrade from',
  'upgrade to',
  // an EUS-to-EUS run taken control-plane-only: the releases it passes (space-separated)
  'upgrade via',
  'upgrade start (UTC)',
  'upgrade end (UTC)',
  'in flight',
  'final version',
  'on target at (UTC)',
];

export function forecastCsv(rows: readonly ForecastExportRow[]): string {
  const lines: CellValue[][] = [];
  for (const r of rows) {
    const common = [r.cluster, r.sector ?? '', r.managed ? 'yes' : 'no', r.startVersion] as const;
    const tail = [r.finalVersion, r.reachesTargetAt ?? ''] as const;
    if (r.upgrades.length === 0) lines.push([...common, '', '', '', '', '', '', ...tail]);
    for (const u of r.upgrades)
      lines.push([...common, u.from, u.version, u.via?.join(' ') ?? '', u.start, u.end, u.inFlight ? 'yes' : 'no', ...tail]);
  }
  return toCsv(HEADERS, lines);
}
