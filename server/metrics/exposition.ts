// The Prometheus text exposition format (version 0.0.4), written by hand: every value the endpoint
// serves is computed at scrape time from the database, so the families are plain data and this
// is a pure function of them (no registry, no process-local state).

export const EXPOSITION_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

export type MetricType = 'gauge' | 'counter' | 'histogram';

export interface Sample {
  /** the sample's name when it differs from the family's (`_total`, `_bucket`, `_sum`, `_count`) */
  name?: string;
  labels: Readonly<Record<string, string>>;
  value: number;
}

export interface MetricFamily {
  name: string;
  help: string;
  type: MetricType;
  samples: Sample[];
}

function escapeHelp(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}

function escapeLabelValue(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
}

export function formatValue(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  return String(value);
}

function formatLabels(labels: Readonly<Record<string, string>>): string {
  const entries = Object.entries(labels);
  if (entries.length === 0) return '';
  return `{${entries.map(([k, v]) => `${k}="${escapeLabelValue(v)}"`).join(',')}}`;
}

/** One family: HELP, TYPE and its samples, in the order given. */
export function renderFamily(family: MetricFamily): string {
  const lines = [`# HELP ${family.name} ${escapeHelp(family.help)}`, `# TYPE ${family.name} ${family.type}`];
  for (const s of family.samples) lines.push(`${s.name ?? family.name}${formatLabels(s.labels)} ${formatValue(s.value)}`);
  return lines.join('\n') + '\n';
}

export function renderFamilies(families: readonly MetricFamily[]): string {
  return families.map(renderFamily).join('');
}
