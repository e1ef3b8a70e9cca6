import type { OrganizationSnapshot } from '@/server/domain/policy-files/organization-snapshot';
import * as repo from '@/server/repositories/policy-repository';
import { withTransaction } from '@/server/repositories/transaction';
import { AppError } from '../app-error';
import {
  checkDocument,
  documentWith,
  invalid,
  requireOrganization,
  requireRevision,
  snapshotOf,
  writeClusterPolicy,
  writeOrganization,
  type PolicyContext,
  withReason,
} from './policy-store';

/** Restores what a revision replaced (organization or one cluster), as a new revision, if the fleet stays valid. */
export async function revertPolicy(
  ctx: PolicyContext,
  actor: string,
  input: { revisionId: number; expectedRevision: number; reason?: string },
) {
  return await withTransaction(ctx.db, async (tx) => {
    const at = ctx.now();
    const org = await requireOrganization(ctx);
    const row = await repo.findPolicyRevision(tx, org.id, input.revisionId);
    if (!row) throw new AppError('NOT_FOUND', `No policy revision #${input.revisionId}`);
    // the number the history shows (rev N of this organization or cluster), not the row id
    const summary = withReason(`reverted rev ${row.revision} (${row.summary})`, input.reason);
    if (row.scope === 'organization') {
      requireRevision(org.revision, input.expectedRevision, 'The organization');
      const before = await snapshotOf(tx, org);
      const target = row.before as OrganizationSnapshot;
      // keep the current name: a revert restores policy, it does not rename
      const after: OrganizationSnapshot = { ...target, name: before.name };
      const { doc } = await documentWith(ctx, org, { organization: after }, at);
      const checked = checkDocument(doc, {});
      if (!checked.ok) throw invalid('Reverting would leave the fleet invalid', checked.problems);
      return {
        scope: row.scope,
        subject: before.name,
        ...(await writeOrganization(tx, org, before, after, { actor, action: 'policy.revert', summary, at: ctx.realNow() })),
      };
    }
    const cluster = await repo.findClusterPolicy(tx, org.id, row.subject);
    if (!cluster) throw new AppError('NOT_FOUND', `Cluster ${row.subject} is no longer in the fleet`);
    requireRevision(cluster.policyRevision, input.expectedRevision, `The policy of ${row.subject}`);
    const after = (row.before as Record<string, unknown> | null) ?? null;
    const { doc } = await documentWith(ctx, org, { clusters: [{ name: cluster.name, policy: after }] }, at);
    const checked = checkDocument(doc, {});
    if (!checked.ok) throw invalid('Reverting would leave the fleet invalid', checked.problems);
    return {
      scope: row.scope,
      subject: cluster.name,
      ...(await writeClusterPolicy(tx, org, cluster, after, { actor, action: 'policy.revert', summary, at: ctx.realNow() })),
    };
  });
}
