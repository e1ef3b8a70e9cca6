import { diffForecasts } from '@/server/domain/forecast/forecast-diff';
import { defaultTargetVersion } from '@/server/domain/forecast/forecast-rollout';
import { validatePlanInput } from '@/server/domain/plan/validate-plan-input';
import type { NamedProblem } from '@/server/domain/policy-files/named-problems';
import { loadPlanDocument } from '@/server/repositories/plan-document-repository';
import { DEFAULT_UPGRADE_MINUTES } from '@/server/domain/forecast/forecast-rollout';
import { gatedForecastOptions, runForecastSliced } from '../forecast-runner';
import { evaluateDraft, type PolicyDraft } from './evaluate-draft';
import type { PolicyContext } from './policy-store';

/** How far the editor's forecast impact looks ahead: long enough for soak days and weekly windows. */
export const IMPACT_HORIZON_DAYS = 30;

/**
 * The draft's impact as the difference between two forecasts from now, with the stored policies
 * and with the draft applied: who reaches the fleet's target version sooner, later, no longer or
 * now within the horizon, and who upgrades along other versions. Both run under the scheduler's
 * gates and towards the target of the stored fleet (the newest version offered), so a change that
 * blocks that version shows as clusters no longer reaching it.
 */
export async function previewForecastImpact(ctx: PolicyContext, draft: PolicyDraft) {
  const result = evaluateDraft(ctx, draft);
  if (!result.ok) return { ok: false as const, problems: result.problems, diff: null, horizonDays: IMPACT_HORIZON_DAYS };
  const current = validatePlanInput(loadPlanDocument(ctx.db, result.org.id, result.at));
  if (!current.ok) {
    const problems: NamedProblem[] = [{ path: '', message: 'the stored fleet does not validate, so there is no forecast to compare with' }];
    return { ok: false as const, problems, diff: null, horizonDays: IMPACT_HORIZON_DAYS };
  }
  const options = gatedForecastOptions(ctx.db, result.org, result.at, {
    targetVersion: defaultTargetVersion(current.input) ?? undefined,
    horizonDays: IMPACT_HORIZON_DAYS,
    upgradeMinutes: DEFAULT_UPGRADE_MINUTES,
  });
  const before = await runForecastSliced(current.input, options);
  const after = await runForecastSliced(result.input, options);
  return { ok: true as const, problems: [] as NamedProblem[], diff: diffForecasts(before, after), horizonDays: IMPACT_HORIZON_DAYS };
}
