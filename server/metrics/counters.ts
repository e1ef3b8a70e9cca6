// Counters are kept in the database (metric_counters), not in the process: the scheduler ticks in
// whichever process holds the lease and any replica may be scraped, so an in-process counter would
// show each replica's own share. Callers record what happened with the functions below, in the
// same database the event was written to; the scrape (collect-fleet-metrics.ts) reads them back.
import type { Db } from '@/db/open-database';
import { findFirstOrganization } from '@/server/repositories/organization-repository';
import { addToCounters, type CounterIncrement } from '@/server/repositories/metrics-repository';

export const TICKS_TOTAL = 'fleetplan_scheduler_ticks_total';
export const TICK_DURATION = 'fleetplan_scheduler_tick_duration_seconds';
export const DECISIONS_TOTAL = 'fleetplan_scheduler_decisions_total';
export const INTENTS_TOTAL = 'fleetplan_scheduler_intents_total';
export const PROVIDER_ERRORS_TOTAL = 'fleetplan_provider_errors_total';
export const WEBHOOK_DELIVERIES_TOTAL = 'fleetplan_webhook_deliveries_total';
/** the reference's error-rate pair, per organization: every real tick, and the failed ones */
export const AUS_RECONCILED_TOTAL = 'aus_organization_reconciled_total';
export const AUS_RECONCILE_ERRORS_TOTAL = 'aus_organization_reconcile_errors_total';

/** upper bounds of the tick-duration histogram, in seconds (+Inf is implied) */
export const TICK_DURATION_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30] as const;

function one(name: string, labels: Record<string, string>, by = 1): CounterIncrement {
  return { name, labels, by };
}

/**
 * A finished tick: its outcome, its duration (histogram) and, for a real tick of an
 * organization, the reference's reconcile counters. A dry run is a preview, not a reconcile.
 */
export async function countTick(
  db: Db,
  tick: {
    status: 'succeeded' | 'failed';
    dryRun: boolean;
    durationSeconds: number;
    /** each organization the tick reconciled and whether its part failed (default: the first organization, with the tick's outcome) */
    organizations?: readonly { id: number; failed: boolean }[];
  },
): Promise<void> {
  const histogram = { status: tick.status, dry_run: String(tick.dryRun) };
  const increments: CounterIncrement[] = [one(TICKS_TOTAL, { status: tick.status })];
  for (const le of TICK_DURATION_BUCKETS)
    if (tick.durationSeconds <= le) increments.push(one(`${TICK_DURATION}_bucket`, { ...histogram, le: String(le) }));
  increments.push(
    one(`${TICK_DURATION}_bucket`, { ...histogram, le: '+Inf' }),
    one(`${TICK_DURATION}_count`, histogram),
    // stored in milliseconds: an increment of 0 is not written, a whole number stays exact
    one(`${TICK_DURATION}_sum_ms`, histogram, Math.round(tick.durationSeconds * 1000)),
  );
  if (!tick.dryRun) {
    const first = tick.organizations ? null : await findFirstOrganization(db);
    const reconciled = tick.organizations ?? (first ? [{ id: first.id, failed: tick.status === 'failed' }] : []);
    for (const org of reconciled) {
      increments.push(one(AUS_RECONCILED_TOTAL, { org_id: String(org.id) }));
      if (org.failed) increments.push(one(AUS_RECONCILE_ERRORS_TOTAL, { org_id: String(org.id) }));
    }
  }
  await addToCounters(db, increments);
}

/**
 * Ticks a process left running when it died, failed by the next tick: failed ticks, and failed
 * reconciles for the reference (their duration is unknown, so the histogram leaves them out).
 */
export async function countInterruptedTicks(db: Db, interrupted: number): Promise<void> {
  if (interrupted <= 0) return;
  const increments = [one(TICKS_TOTAL, { status: 'failed' }, interrupted)];
  const org = await findFirstOrganization(db);
  if (org)
    increments.push(
      one(AUS_RECONCILED_TOTAL, { org_id: String(org.id) }, interrupted),
      one(AUS_RECONCILE_ERRORS_TOTAL, { org_id: String(org.id) }, interrupted),
    );
  await addToCounters(db, increments);
}

/** The engine's decisions of one tick (of one organization's part of it, labelled with it), counted per action and reason. */
export async function countDecisions(
  db: Db,
  decisions: readonly { action: string; reason?: string | null }[],
  organization?: string,
): Promise<void> {
  const byKey = new Map<string, CounterIncrement>();
  for (const d of decisions) {
    const reason = d.reason ?? (d.action === 'upgrade' ? 'UPGRADE' : 'NONE');
    const key = `${d.action}\u0000${reason}`;
    const entry = byKey.get(key);
    if (entry) entry.by++;
    else byKey.set(key, one(DECISIONS_TOTAL, { action: d.action, reason, ...orgLabel(organization) }));
  }
  await addToCounters(db, [...byKey.values()]);
}

/** `organization` label when the event belongs to one organization */
function orgLabel(organization: string | undefined): Record<string, string> {
  return organization === undefined ? {} : { organization };
}

export async function countIntent(db: Db, kind: string, outcome: string, organization?: string): Promise<void> {
  await addToCounters(db, [one(INTENTS_TOTAL, { kind, outcome, ...orgLabel(organization) })]);
}

export async function countProviderError(db: Db, provider: string, operation: string, organization?: string): Promise<void> {
  await addToCounters(db, [one(PROVIDER_ERRORS_TOTAL, { provider, operation, ...orgLabel(organization) })]);
}

export async function countWebhookDelivery(db: Db, outcome: 'delivered' | 'failed' | 'retry'): Promise<void> {
  await addToCounters(db, [one(WEBHOOK_DELIVERIES_TOTAL, { outcome })]);
}
