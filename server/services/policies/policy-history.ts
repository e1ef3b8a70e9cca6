import { diffJson } from '@/lib/json-diff';
import * as repo from '@/server/repositories/policy-repository';
import { requireOrganization, type PolicyContext } from './policy-store';

export type PolicyScope = 'organization' | 'cluster';

/** A page of policy revisions, each with what it changed. */
export async function policyHistory(ctx: PolicyContext, input: { scope?: PolicyScope; subject?: string; offset?: number; limit?: number }) {
  const org = await requireOrganization(ctx);
  const { rows, total } = await repo.listPolicyRevisions(ctx.db, {
    organizationId: org.id,
    scope: input.scope,
    subject: input.subject,
    offset: input.offset ?? 0,
    limit: input.limit ?? 50,
  });
  return {
    total,
    revisions: rows.map((r) => ({
      id: r.id,
      scope: r.scope,
      subject: r.subject,
      revision: r.revision,
      actor: r.actor,
      at: r.at.toISOString(),
      summary: r.summary,
      before: r.before,
      after: r.after,
      changes: diffJson(r.before, r.after),
    })),
  };
}
