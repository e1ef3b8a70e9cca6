// "Why not?" for one cluster: the stored fleet's evaluation with the scheduler's gates (so it
// explains what the next tick does: freeze, exclusions and the health gate included), plus the
// calendar of its next schedule runs and its recent decisions/actions.
import type { Db } from '@/db/open-database';
import { listBlockers } from '@/server/domain/evaluation/blockers';
import { nextScheduleRuns } from '@/server/domain/plan/cron-schedule';
import { findClusterByName } from '@/server/repositories/cluster-repository';
import type { OrganizationScope } from './organization-scope';
import { listRecentActions, listRecentDecisions } from '@/server/repositories/cluster-event-repository';
import { AppError } from './app-error';
import { evaluateStoredFleet } from './stored-fleet-evaluation';

const NEXT_RUNS = 5;

export function createClusterExplainService(db: Db, now: () => Date, scope: OrganizationScope) {
  return {
    async explain(name: string) {
      const org = await scope();
      const row = org && (await findClusterByName(db, name, org.id));
      if (!row) throw new AppError('NOT_FOUND', `Cluster ${name} does not exist`);
      const at = now();
      const events = {
        decisions: (await listRecentDecisions(db, org.id, name)).map((d) => ({
          at: d.at.toISOString(),
          action: d.action,
          version: d.version,
          reason: d.reason,
          message: d.message,
        })),
        actions: (await listRecentActions(db, org.id, name)).map((a) => ({
          at: a.createdAt.toISOString(),
          kind: a.kind,
          version: a.version,
          status: a.status,
          nextRun: a.nextRun?.toISOString() ?? null,
          error: a.error,
        })),
      };
      const frozen = org ? { frozen: org.frozen, reason: org.frozenReason } : { frozen: false, reason: null };
      // the provider no longer reports it: left out of planning, so there is nothing to explain
      const gone = row.upgradeState === 'gone';
      const stored = await evaluateStoredFleet(db, { id: row.organizationId, frozen: frozen.frozen, frozenReason: frozen.reason }, at);
      if (gone || !stored.ok) {
        // The stored fleet does not validate: show why instead of a half explanation.
        return {
          now: at.toISOString(),
          gone,
          problems: stored.ok ? [] : stored.problems.slice(0, 50),
          explanation: null,
          policy: null,
          sector: null,
          nextRuns: [],
          blockers: null,
          neverUpgrades: null,
          events,
          frozen,
        };
      }
      const input = stored.input;
      const cluster = input.clusters.find((c) => c.name === name);
      const policy = cluster?.upgradePolicy ?? null;
      const sectorName = policy?.conditions.sector;
      const sector = sectorName ? (input.organization.sectors.find((s) => s.name === sectorName) ?? null) : null;
      const nextRuns = policy ? nextScheduleRuns(policy.schedule, at, NEXT_RUNS).map((d) => d.toISOString()) : [];
      const explanation = stored.explain(name);
      return {
        now: input.now,
        gone,
        problems: [],
        explanation,
        // every blocker in the order the scheduler meets it, and the first that still holds at the next run
        blockers: explanation?.managed ? listBlockers(explanation) : null,
        policy,
        sector: sector
          ? { name: sector.name, maxParallelUpgrades: sector.maxParallelUpgrades?.raw ?? null, dependencies: sector.dependencies }
          : null,
        nextRuns,
        // the same evaluation's verdict the Fleet table flags
        neverUpgrades: stored.view.neverUpgrades(name)?.reasons ?? null,
        events,
        frozen,
      };
    },
  };
}
