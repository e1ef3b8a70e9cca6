import type { NamedProblem, NamedWarning } from '@/server/domain/policy-files/named-problems';
import { evaluateDraft, type PolicyDraft } from './evaluate-draft';
import type { PolicyContext } from './policy-store';

/** Whether the draft, applied to the stored fleet, validates; its problems or lint warnings. */
export async function validateDraft(
  ctx: PolicyContext,
  draft: PolicyDraft,
): Promise<{ ok: boolean; problems: NamedProblem[]; warnings: NamedWarning[] }> {
  const result = await evaluateDraft(ctx, draft);
  if (!result.ok) return { ok: false, problems: result.problems, warnings: [] };
  return { ok: true, problems: [], warnings: result.warnings };
}
