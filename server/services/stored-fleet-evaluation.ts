// The stored fleet through evaluateFleet with the stored gates, as the scheduler's next tick
// would see it (soak accumulated up to the current fleet minute). The views that show decisions,
// soak or sector progress read this instead of re-deriving the rules from SQL.
//
// On 10,000 clusters one evaluation (load, validate, run the engine) costs about a second, and the
// Fleet table, the Sectors page, a cluster's detail and its "why not", and every metrics scrape
// each need it. Its result depends only on the stored data and the fleet clock, so it is kept per
// database connection until either moves: the data version (readDataVersion: any row written by
// this connection, any commit by another) or the fleet minute. The scheduler tick never reads it
// (it evaluates the snapshot it just took), so the cache cannot change what the scheduler does.
import type { Db } from '@/db/open-database';
import { evaluateFleet, type ClusterEvaluation, type FleetEvaluation } from '@/server/domain/evaluation/evaluate-fleet';
import type { PlanInput, Problem } from '@/server/domain/plan/types';
import { validatePlanInput } from '@/server/domain/plan/validate-plan-input';
import { readDataVersion } from '@/server/repositories/data-version-repository';
import { loadPlanDocument } from '@/server/repositories/plan-document-repository';
import { loadGateState, type GateOrganization } from '@/server/scheduler/gate-state';

const MINUTE_MS = 60_000;
/** cluster explanations kept per evaluation (each costs one engine run over the fleet) */
const EXPLANATIONS_KEPT = 64;

/** Shared between callers while the data and the minute stay the same: read it, never modify it. */
export type StoredFleetEvaluation =
  | {
      ok: true;
      input: PlanInput;
      evaluation: FleetEvaluation;
      /** the engine's explanation of one cluster in this same evaluation (null: no such cluster) */
      explain(cluster: string): ClusterEvaluation | null;
    }
  | { ok: false; problems: Problem[] };

/**
 * The instant views evaluate at: the start of the fleet minute. Schedules are cron minutes and a
 * tick runs once a minute, so within a minute only the soak figures would creep on.
 */
export function evaluationInstant(now: Date): Date {
  return new Date(Math.floor(now.getTime() / MINUTE_MS) * MINUTE_MS);
}

const lastEvaluation = new WeakMap<Db['$client'], { key: string; result: StoredFleetEvaluation }>();

export function evaluateStoredFleet(db: Db, org: GateOrganization, now: Date): StoredFleetEvaluation {
  const at = evaluationInstant(now);
  // read before loading: a write that lands later moves the version and is seen by the next call
  const dataVersion = readDataVersion(db);
  if (dataVersion === null) return evaluate(db, org, at);
  const key = JSON.stringify([dataVersion, at.getTime(), org.id, org.frozen, org.frozenReason ?? null]);
  const cached = lastEvaluation.get(db.$client);
  if (cached?.key === key) return cached.result;
  const result = evaluate(db, org, at);
  lastEvaluation.set(db.$client, { key, result });
  return result;
}

function evaluate(db: Db, org: GateOrganization, at: Date): StoredFleetEvaluation {
  const parsed = validatePlanInput(loadPlanDocument(db, org.id, at));
  if (!parsed.ok) return { ok: false, problems: parsed.problems };
  const input = parsed.input;
  const gates = loadGateState(db, org, at);
  const names = new Set(input.clusters.map((c) => c.name));
  const explained = new Map<string, ClusterEvaluation | null>();
  return {
    ok: true,
    input,
    evaluation: evaluateFleet(input, gates),
    explain(cluster) {
      if (!names.has(cluster)) return null;
      let explanation = explained.get(cluster);
      if (explanation === undefined) {
        explanation = evaluateFleet(input, gates, { explain: [cluster] }).clusters.get(cluster) ?? null;
        if (explained.size >= EXPLANATIONS_KEPT) explained.delete(explained.keys().next().value!);
        explained.set(cluster, explanation);
      }
      return explanation;
    },
  };
}
