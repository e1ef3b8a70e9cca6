// Fills the fleet gauges from the database at scrape time (remaining soak per candidate version,
// policy info, soak per version and workload, health, freeze). Soak figures are the engine's own
// (evaluateFleet: accumulated up to now, with the blocked and soak rules it decides with).
//
// Everything the gauges show comes from the stored data and the fleet minute, which is what the
// shared stored-fleet evaluation is kept by: while a scrape gets the very evaluation the gauges
// were last filled from, they already hold these values (refilling costs about a second on 10,000
// clusters, mostly the engine's per-cluster candidate verdicts), so they are left as they are.
import type { Db } from '@/db/open-database';
import { remainingSoakOf } from '@/server/domain/evaluation/remaining-soak';
import { findOrganization } from '@/server/repositories/organization-repository';
import { loadClusterStates } from '@/server/repositories/decision-repository';
import { evaluateStoredFleet, type StoredFleetEvaluation } from '@/server/services/stored-fleet-evaluation';
import { getMetrics } from './registry';

/** the evaluation the gauges hold now (weak: a closed test database's evaluation may go) */
let filledFrom: WeakRef<StoredFleetEvaluation> | null = null;

export function collectFleetMetrics(db: Db, now: Date): void {
  const m = getMetrics();
  const org = findOrganization(db);
  const stored = org ? evaluateStoredFleet(db, org, now) : null;
  if (stored && filledFrom?.deref() === stored) return;
  filledFrom = stored ? new WeakRef(stored) : null;
  m.remainingSoak.reset();
  m.policyInfo.reset();
  m.versionSoak.reset();
  m.clusterHealth.reset();
  m.frozen.reset();
  if (!org || !stored) return;
  m.frozen.set({ organization: org.name }, org.frozen ? 1 : 0);
  if (!stored.ok) return;
  const { input, view: evaluation } = stored;
  const states = new Map(loadClusterStates(db, org.id).map((s) => [s.name, s]));
  for (const [version, entry] of Object.entries(evaluation.versionData.versions)) {
    for (const [workload, soak] of Object.entries(entry.workloads))
      m.versionSoak.set({ organization: org.name, version, workload }, soak.soakDays);
  }
  for (const c of input.clusters) {
    const s = states.get(c.name);
    m.clusterHealth.set({ cluster: c.name }, c.healthy ? 1 : 0);
    const p = c.upgradePolicy;
    if (!p) continue;
    m.policyInfo.set(
      {
        cluster_name: c.name,
        channel: c.channel ?? '',
        current_version: c.version,
        schedule: p.schedule.cron,
        sector: p.conditions.sector ?? '',
        mutexes: p.conditions.mutexes.join(','),
        soak_days: String(p.conditions.soakDays ?? ''),
        workloads: p.workloads.join(','),
      },
      1,
    );
    for (const r of remainingSoakOf(c, evaluation.candidateSoak(c.name) ?? [], evaluation.nowMs, s?.currentUpgrade?.startedAt)) {
      m.remainingSoak.set({ cluster: c.name, cluster_uuid: s?.externalId ?? c.name, soaking_version: r.version }, r.value);
    }
  }
}
