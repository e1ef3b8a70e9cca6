// The Prometheus text exposition format (version 0.0.4), written by hand: every value the endpoint
// serves is computed at scrape time from the database, so the families are plain data and this
// is a pure function of them (no registry, no process-local state).

export const EXPOSITION_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

export type MetricType = 'gauge' | 'counter' | 'histogram';

/** a sample with its labels as an object (most families) */
export interface LabelledSample {
  name?: string;
  labels: Readonly<Record<string, string>>;
  value: number;
}

export type Sample = {
  /** the sample's name when it differs from the family's (`_total`, `_bucket`, `_sum`, `_count`) */
  name?: string;
  value: number;
} & (
  | { labels: Readonly<Record<string, string>> }
  /**
   * the label set already written (`{a="1",b="2"}`, see openLabelSet): for families with a sample
   * per cluster and version, where an object per sample would cost more than the text
   */
  | { labelText: string }
);

export interface MetricFamily {
  name: string;
  help: string;
  type: MetricType;
  samples: Sample[];
}

function escapeHelp(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}

const NEEDS_ESCAPE = /[\\\n"]/;

export function escapeLabelValue(text: string): string {
  // most values need nothing: skip the three replacements for them (10,000 clusters × 15 labels)
  if (!NEEDS_ESCAPE.test(text)) return text;
  return text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
}

export function formatValue(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  return String(value);
}

/** `{a="1",b="2"` without the closing brace: a prefix shared by many samples, each adding its own labels and `}`. */
export function openLabelSet(labels: Readonly<Record<string, string>>): string {
  let out = '';
  for (const key in labels) out += `${out ? ',' : '{'}${key}="${escapeLabelValue(labels[key]!)}"`;
  return out;
}

function formatLabels(labels: Readonly<Record<string, string>>): string {
  const open = openLabelSet(labels);
  return open ? `${open}}` : '';
}

function renderInto(lines: string[], family: MetricFamily): void {
  lines.push(`# HELP ${family.name} ${escapeHelp(family.help)}\n# TYPE ${family.name} ${family.type}\n`);
  for (const s of family.samples)
    lines.push(`${s.name ?? family.name}${'labelText' in s ? s.labelText : formatLabels(s.labels)} ${formatValue(s.value)}\n`);
}

/** One family: HELP, TYPE and its samples, in the order given. */
export function renderFamily(family: MetricFamily): string {
  const lines: string[] = [];
  renderInto(lines, family);
  return lines.join('');
}

export function renderFamilies(families: readonly MetricFamily[]): string {
  const lines: string[] = [];
  for (const family of families) renderInto(lines, family);
  return lines.join('');
}
