// The whole /api/metrics body, computed at scrape time from the database: the reference upgrade
// service's families (aus-metrics.ts) and fleetplan's own (`fleetplan_*`). Nothing is held in the
// process between scrapes except the last body, so every replica sharing a database serves the
// same values (counters included: they are rows, see counters.ts).
//
// The soak figures are the engine's own (evaluateStoredFleet's decision-free view: accumulated up
// to the fleet minute, with the blocked and soak rules it decides with). It is kept while neither the
// data nor the fleet minute moves; every value here depends on nothing else, so while a scrape
// gets the very evaluation the last body was written from, that body is served again.
import type { Db } from '@/db/open-database';
import { listOrganizations, type OrganizationRow } from '@/server/repositories/organization-repository';
import {
  countFailedAttempts,
  lastTickStartByStatus,
  listClusterMetricRows,
  listCounters,
  listLatestAttempts,
  type CounterRow,
} from '@/server/repositories/metrics-repository';
import { evaluateStoredFleet, type StoredFleetEvaluation } from '@/server/services/stored-fleet-evaluation';
import { AUS_INTEGRATION, ausFamilies, type AusBaseLabels, type AusClusterFacts } from './aus-metrics';
import {
  AUS_RECONCILE_ERRORS_TOTAL,
  AUS_RECONCILED_TOTAL,
  DECISIONS_TOTAL,
  INTENTS_TOTAL,
  PROVIDER_ERRORS_TOTAL,
  TICK_DURATION,
  TICK_DURATION_BUCKETS,
  TICKS_TOTAL,
  WEBHOOK_DELIVERIES_TOTAL,
} from './counters';
import { escapeLabelValue, renderFamilies, type LabelledSample, type MetricFamily, type Sample } from './exposition';
import { lifecycleFamilies } from './lifecycle-metrics';

/**
 * Provider operations that read the whole fleet: their failures are the reference's
 * `aus_ocm_environment_errors` (it counts failures to read an OCM environment's clusters).
 */
export const FLEET_READ_OPERATIONS: readonly string[] = ['list-clusters', 'observe'];

export interface MetricsScrapeOptions {
  /** the provider fleetplan runs with: the AUS families' `ocm_env` label */
  providerName: string;
}

/**
 * Where the server renders a scrape: its forecast worker thread (server/background/forecast-thread.ts,
 * on its own database connection). At 10,000 clusters a body is ~170,000 samples, a second of CPU
 * after any write, which must not hold the thread that answers requests.
 */
export interface MetricsOffload {
  renderMetrics(atMs: number, opts: MetricsScrapeOptions): Promise<string>;
}

const processOffload = globalThis as unknown as { __fleetplanMetricsOffload?: MetricsOffload };

/** The app's background thread, set up by instrumentation.ts; without one (tests, `next dev`) scrapes render in this thread. */
export function useMetricsOffload(offload: MetricsOffload | undefined): void {
  processOffload.__fleetplanMetricsOffload = offload;
}

/**
 * The scrape body, rendered in the background thread when the server has one. A thread that cannot
 * answer (starting again after a failure, shutting down) is replaced by rendering here: a scrape is
 * better slow than missing.
 */
export async function renderFleetMetricsOffThread(
  db: Db,
  now: Date,
  opts: MetricsScrapeOptions,
  onFallback: (err: Error) => void = (err) => console.error(`fleetplan metrics: rendered in the request thread (${err.message})`),
): Promise<string> {
  const offload = processOffload.__fleetplanMetricsOffload;
  if (!offload) return await renderFleetMetrics(db, now, opts);
  try {
    return await offload.renderMetrics(now.getTime(), opts);
  } catch (err) {
    onFallback(err instanceof Error ? err : new Error(String(err)));
    return await renderFleetMetrics(db, now, opts);
  }
}

/** the last body, and the evaluations (one per organization) it was written from */
const lastBody = new WeakMap<Db['$client'], { key: string; stored: StoredFleetEvaluation[]; body: string }>();

export async function renderFleetMetrics(db: Db, now: Date, opts: MetricsScrapeOptions): Promise<string> {
  const orgs = await listOrganizations(db);
  const stored: StoredFleetEvaluation[] = [];
  for (const org of orgs) stored.push(await evaluateStoredFleet(db, org, now));
  const key = JSON.stringify([opts.providerName, orgs.map((o) => [o.id, o.name, o.frozen])]);
  const cached = lastBody.get(db.$client);
  if (cached?.key === key && cached.stored.length === stored.length && cached.stored.every((s, i) => s === stored[i])) return cached.body;
  const families = await collectInstanceFamilies(db, opts);
  for (const [i, org] of orgs.entries()) families.push(...(await collectOrganizationFamilies(db, org, stored[i]!, opts)));
  const body = renderFamilies(mergeFamilies(families));
  lastBody.set(db.$client, { key, stored, body });
  return body;
}

/** One family per name: each organization's samples of a family go under one HELP and TYPE. */
function mergeFamilies(families: MetricFamily[]): MetricFamily[] {
  const byName = new Map<string, MetricFamily>();
  for (const f of families) {
    const known = byName.get(f.name);
    if (known) known.samples = [...known.samples, ...f.samples];
    else byName.set(f.name, { ...f, samples: [...f.samples] });
  }
  return [...byName.values()];
}

/** An organization's families: the reference's (org_id, org_name labels), its upgrades' and its freeze (`organization` label). */
async function collectOrganizationFamilies(
  db: Db,
  org: OrganizationRow,
  stored: StoredFleetEvaluation,
  opts: MetricsScrapeOptions,
): Promise<MetricFamily[]> {
  const base: AusBaseLabels = { integration: AUS_INTEGRATION, ocm_env: opts.providerName };
  const clusters = new Map<string, AusClusterFacts>((await listClusterMetricRows(db, org.id)).map((r) => [r.name, r]));
  const families: MetricFamily[] = ausFamilies({
    base,
    organization: { id: org.id, name: org.name },
    validationErrors: stored.ok ? 0 : stored.problems.length,
    evaluated: stored.ok ? { input: stored.input, view: stored.view } : null,
    clusters,
  });
  // fleetplan's own families of the organization say which it is (the reference's keep its labels:
  // org_id and org_name where it has them, cluster_uuid, unique across organizations, on clusters)
  const labelled = (f: MetricFamily): MetricFamily => ({
    ...f,
    samples: f.samples.map((x): Sample =>
      'labelText' in x
        ? { ...x, labelText: `{organization="${escapeLabelValue(org.name)}",${x.labelText.slice(1)}` }
        : { ...x, labels: { organization: org.name, ...x.labels } },
    ),
  });
  families.push(...lifecycleFamilies(await listLatestAttempts(db, org.id), await countFailedAttempts(db, org.id)).map(labelled));
  families.push({
    name: 'fleetplan_organization_frozen',
    help: '1 while the organization-wide freeze is on',
    type: 'gauge',
    samples: [{ labels: { organization: org.name }, value: org.frozen ? 1 : 0 }],
  });
  return families;
}

/** The instance's families: the counters (labelled by organization where an event is one organization's) and the ticks. */
async function collectInstanceFamilies(db: Db, opts: MetricsScrapeOptions): Promise<MetricFamily[]> {
  const base: AusBaseLabels = { integration: AUS_INTEGRATION, ocm_env: opts.providerName };
  const counters = await listCounters(db);
  const families: MetricFamily[] = [...ausCounterFamilies(base, counters), ...fleetplanCounterFamilies(counters)];
  families.push(
    {
      name: 'fleetplan_organization_frozen',
      help: '1 while the organization-wide freeze is on',
      type: 'gauge',
      samples: [],
    },
    {
      name: 'fleetplan_scheduler_last_tick_timestamp_seconds',
      help: 'Start time (fleet clock) of the last finished tick, by outcome',
      type: 'gauge',
      samples: (await lastTickStartByStatus(db)).map((t) => ({ labels: { status: t.status }, value: t.startedAt.getTime() / 1000 })),
    },
  );
  return families;
}

function samplesOf(counters: readonly CounterRow[], name: string, extra: Record<string, string> = {}): LabelledSample[] {
  return counters.filter((c) => c.name === name).map((c) => ({ name, labels: { ...extra, ...c.labels }, value: c.value }));
}

function ausCounterFamilies(base: AusBaseLabels, counters: readonly CounterRow[]): MetricFamily[] {
  const reconciled = samplesOf(counters, AUS_RECONCILED_TOTAL, { ...base });
  const errorsByOrg = new Map(samplesOf(counters, AUS_RECONCILE_ERRORS_TOTAL).map((s) => [s.labels.org_id, s.value]));
  // every reconciled organization has an error counter, 0 until a tick fails, so that an
  // error-rate expression (errors / reconciled) has both sides from the first tick on
  const errors: Sample[] = reconciled.map((s) => ({
    name: AUS_RECONCILE_ERRORS_TOTAL,
    labels: s.labels,
    value: errorsByOrg.get(s.labels.org_id) ?? 0,
  }));
  const environmentErrors = counters
    .filter((c) => c.name === PROVIDER_ERRORS_TOTAL && FLEET_READ_OPERATIONS.includes(c.labels.operation ?? ''))
    .reduce((sum, c) => sum + c.value, 0);
  return [
    {
      name: 'aus_organization_reconciled',
      help: 'Counter for the number of times an OCM organization was reconciled',
      type: 'counter',
      samples: reconciled,
    },
    {
      name: 'aus_organization_reconcile_errors',
      help: 'Counter for the failed reconcile runs for an OCM organization',
      type: 'counter',
      samples: errors,
    },
    {
      name: 'aus_ocm_environment_errors',
      help: 'Error metric for failed OCM environment interactions',
      type: 'counter',
      samples: [{ name: 'aus_ocm_environment_errors_total', labels: { ...base }, value: environmentErrors }],
    },
  ];
}

function familyName(sampleName: string): string {
  return sampleName.replace(/_total$/, '');
}

function fleetplanCounterFamilies(counters: readonly CounterRow[]): MetricFamily[] {
  const plain: [string, string][] = [
    [TICKS_TOTAL, 'Scheduler ticks by outcome'],
    [DECISIONS_TOTAL, 'Decisions made by real and dry-run scheduler ticks, by action and reason'],
    [INTENTS_TOTAL, 'Action intents by kind and outcome'],
    [PROVIDER_ERRORS_TOTAL, 'Errors talking to the fleet provider, by operation'],
    [WEBHOOK_DELIVERIES_TOTAL, 'Webhook delivery attempts by outcome'],
  ];
  const families: MetricFamily[] = plain.map(([name, help]) => ({
    name: familyName(name),
    help,
    type: 'counter',
    samples: samplesOf(counters, name),
  }));
  families.push({
    name: TICK_DURATION,
    help: 'Duration of scheduler ticks',
    type: 'histogram',
    samples: tickDurationSamples(counters),
  });
  return families;
}

function tickDurationSamples(counters: readonly CounterRow[]): Sample[] {
  const value = (name: string, labels: Record<string, string>) =>
    counters.find((c) => c.name === name && Object.entries(labels).every(([k, v]) => c.labels[k] === v))?.value ?? 0;
  const samples: Sample[] = [];
  for (const count of counters.filter((c) => c.name === `${TICK_DURATION}_count`)) {
    const series = count.labels;
    for (const le of [...TICK_DURATION_BUCKETS.map(String), '+Inf'])
      samples.push({
        name: `${TICK_DURATION}_bucket`,
        labels: { ...series, le },
        value: value(`${TICK_DURATION}_bucket`, { ...series, le }),
      });
    samples.push({ name: `${TICK_DURATION}_sum`, labels: series, value: value(`${TICK_DURATION}_sum_ms`, series) / 1000 });
    samples.push({ name: `${TICK_DURATION}_count`, labels: series, value: count.value });
  }
  return samples;
}
