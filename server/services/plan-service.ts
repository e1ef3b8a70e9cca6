// The decision engine on the stored fleet, read-only: what the scheduler would decide now, why
// for one cluster, and policy lint. Soak and decisions are persisted only by the scheduler.
import type { Db } from '@/db/open-database';
import { decideUpgrades } from '@/server/domain/plan/decide-upgrades';
import { explainCluster } from '@/server/domain/plan/explain-cluster';
import { lintPolicies } from '@/server/domain/plan/lint-policies';
import { lintContextFor } from './graph-coverage';
import type { PlanInput } from '@/server/domain/plan/types';
import { validatePlanInput } from '@/server/domain/plan/validate-plan-input';
import { nameProblems } from '@/server/domain/policy-files/named-problems';
import { loadPlanDocument } from '@/server/repositories/plan-document-repository';
import type { OrganizationScope } from './organization-scope';
import { AppError } from './app-error';

export function createPlanService(db: Db, now: () => Date, scope: OrganizationScope) {
  async function loadInput(at: Date): Promise<PlanInput> {
    const org = await scope();
    if (!org) throw new AppError('NOT_FOUND', 'No organization yet: seed the demo fleet or import an organization file');
    const doc = await loadPlanDocument(db, org.id, at);
    const result = validatePlanInput(doc);
    if (!result.ok) {
      const problems = nameProblems(
        result.problems,
        doc.clusters.map((c) => c.name),
      );
      throw new AppError(
        'PRECONDITION_FAILED',
        `The stored policies do not validate (${problems.length} problem(s)); fix them in the policy editor`,
        problems,
      );
    }
    return result.input;
  }

  return {
    /** The engine's decisions for the stored fleet at `at` (default: now). Nothing is written. */
    async evaluate(input: { at?: string } = {}) {
      const at = input.at === undefined ? now() : new Date(input.at);
      if (Number.isNaN(at.getTime()))
        throw new AppError('INVALID_INPUT', `'${input.at}' is not a date-time`, [{ path: 'at', message: 'not an ISO-8601 date-time' }]);
      const result = decideUpgrades(await loadInput(at));
      const counts = { upgrade: 0, skip: 0, cancel: 0 };
      const reasons: Record<string, number> = {};
      for (const d of result.decisions) {
        counts[d.action]++;
        if (d.reason) reasons[d.reason] = (reasons[d.reason] ?? 0) + 1;
      }
      return { ...result, counts, reasons };
    },

    /** Every rule the engine applies to one cluster, now. */
    async explainCluster(name: string) {
      const input = await loadInput(now());
      if (!input.clusters.some((c) => c.name === name)) throw new AppError('NOT_FOUND', `No cluster named ${name}`);
      return explainCluster(input, name);
    },

    /** Policy warnings (valid but probably unintended), with the cluster named. */
    async lint() {
      const input = await loadInput(now());
      return {
        warnings: nameProblems(
          lintPolicies(input, await lintContextFor(db, await scope())),
          input.clusters.map((c) => c.name),
        ),
      };
    },
  };
}

export type PlanService = ReturnType<typeof createPlanService>;
