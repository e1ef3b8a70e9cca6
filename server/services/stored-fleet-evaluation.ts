// The stored fleet through evaluateFleet with the stored gates, as the scheduler's next tick
// would see it (soak accumulated up to `now`). The views that show decisions, soak or sector
// progress read this instead of re-deriving the rules from SQL.
import type { Db } from '@/db/open-database';
import { evaluateFleet, type EvaluateOptions, type FleetEvaluation } from '@/server/domain/evaluation/evaluate-fleet';
import type { PlanInput, Problem } from '@/server/domain/plan/types';
import { validatePlanInput } from '@/server/domain/plan/validate-plan-input';
import { loadPlanDocument } from '@/server/repositories/plan-document-repository';
import { loadGateState, type GateOrganization } from '@/server/scheduler/gate-state';

export type StoredFleetEvaluation = { ok: true; input: PlanInput; evaluation: FleetEvaluation } | { ok: false; problems: Problem[] };

export function evaluateStoredFleet(db: Db, org: GateOrganization, now: Date, options: EvaluateOptions = {}): StoredFleetEvaluation {
  const parsed = validatePlanInput(loadPlanDocument(db, org.id, now));
  if (!parsed.ok) return { ok: false, problems: parsed.problems };
  return { ok: true, input: parsed.input, evaluation: evaluateFleet(parsed.input, loadGateState(db, org, now), options) };
}
