import { decideUpgrades } from '@/server/domain/plan/decide-upgrades';
import { validatePlanInput } from '@/server/domain/plan/validate-plan-input';
import { diffDecisions } from '@/server/domain/policy-files/decision-impact';
import type { NamedProblem } from '@/server/domain/policy-files/named-problems';
import { loadPlanDocument } from '@/server/repositories/plan-document-repository';
import { evaluateDraft, type PolicyDraft } from './evaluate-draft';
import type { PolicyContext } from './policy-store';

/** The engine's decisions now and with the draft applied: which clusters would decide differently. */
export async function previewImpact(ctx: PolicyContext, draft: PolicyDraft) {
  const result = await evaluateDraft(ctx, draft);
  const nowIso = result.at.toISOString().replace(/\.\d{3}Z$/, 'Z');
  if (!result.ok) return { ok: false as const, now: nowIso, problems: result.problems, changes: [], evaluated: 0, unchanged: 0 };
  const current = validatePlanInput(await loadPlanDocument(ctx.db, result.org.id, result.at));
  const beforeDecisions = current.ok ? decideUpgrades(current.input).decisions : [];
  const afterDecisions = decideUpgrades(result.input).decisions;
  const { changes, evaluated } = diffDecisions(beforeDecisions, afterDecisions);
  return {
    ok: true as const,
    now: nowIso,
    problems: [] as NamedProblem[],
    /** clusters whose decision differs with the draft applied (in the draft's evaluation order) */
    changes,
    evaluated,
    unchanged: evaluated - changes.length,
    /** false when the stored fleet itself does not validate (every decision then counts as new) */
    currentValid: current.ok,
  };
}
