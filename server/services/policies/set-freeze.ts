import { getOrganization } from './get-organization';
import { commitOrganization, invalid, type PolicyContext } from './policy-store';

/** Freezes upgrades (a reason is required) or lifts the freeze. */
export async function setFreeze(ctx: PolicyContext, actor: string, input: { frozen: boolean; reason: string; expectedRevision?: number }) {
  const reason = input.reason.trim();
  if (input.frozen && reason === '') throw invalid('A freeze needs a reason', [{ path: 'reason', message: 'say why upgrades are frozen' }]);
  const result = await commitOrganization(
    ctx,
    actor,
    input.expectedRevision,
    (before) => ({ ...before, frozen: input.frozen, frozenReason: input.frozen ? reason : null }),
    {
      action: input.frozen ? 'policy.freeze' : 'policy.unfreeze',
      summary: () => (input.frozen ? `froze upgrades: ${reason}` : `lifted the freeze${reason ? `: ${reason}` : ''}`),
    },
    {},
  );
  return { ...result, organization: await getOrganization(ctx) };
}
