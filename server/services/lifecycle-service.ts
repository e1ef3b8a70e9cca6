// Upgrade lifecycle use cases: a cluster's recent attempts with their transitions (for its page,
// "why not" and Activity) and the acknowledgement of a failure, which lifts the halt it causes
// (lifecycle/halts.ts). The acknowledgement and its audit row are one transaction.
import type { Db } from '@/db/open-database';
import type { Actor } from '@/server/auth/actor';
import { LIFECYCLE_REASONS } from '@/server/domain/lifecycle/reasons';
import { appendAudit } from '@/server/repositories/audit-repository';
import { findClusterById, findClusterByName } from '@/server/repositories/cluster-repository';
import {
  acknowledgeAttemptFailure,
  getAttempt,
  listAttemptTransitions,
  listClusterAttempts,
} from '@/server/repositories/lifecycle-repository';
import { withTransaction } from '@/server/repositories/transaction';
import { AppError } from './app-error';
import type { OrganizationScope } from './organization-scope';

export const MAX_ACK_COMMENT = 1000;

/** `scope`: the request's organization; attempts of another organization's clusters are not found */
export function createLifecycleService(db: Db, realNow: () => Date, scope: OrganizationScope) {
  const inScope = async (clusterId: number) => {
    const org = await scope();
    return org !== undefined && (await findClusterById(db, clusterId))?.organizationId === org.id;
  };
  return {
    /** The cluster's most recent attempts (newest first), each with its transitions and reason text. */
    async forCluster(name: string, limit = 10) {
      const org = await scope();
      const cluster = org && (await findClusterByName(db, name, org.id));
      if (!cluster) throw new AppError('NOT_FOUND', `No cluster named ${name}`);
      const attempts = await listClusterAttempts(db, cluster.id, limit);
      const transitions = await listAttemptTransitions(
        db,
        attempts.map((a) => a.id),
      );
      return attempts.map((a) => ({
        ...a,
        reasonText: a.reason ? (LIFECYCLE_REASONS[a.reason] ?? null) : null,
        needsAcknowledgement: (a.state === 'failed' || a.state === 'timed-out') && a.acknowledgedAt === null,
        transitions: transitions
          .filter((t) => t.lifecycleId === a.id)
          .map((t) => ({ at: t.at.getTime(), from: t.fromState, to: t.toState, reason: t.reason, message: t.message, actor: t.actor })),
      }));
    },
    /** Acknowledges a failed or timed-out attempt: its version is no longer halted by it. */
    async acknowledge(input: { id: number; comment: string; actor: Actor }) {
      const comment = input.comment.trim();
      if (comment === '')
        throw new AppError('INVALID_INPUT', 'Say why the failure is acknowledged', [{ path: 'comment', message: 'required' }]);
      if (comment.length > MAX_ACK_COMMENT)
        throw new AppError('INVALID_INPUT', `The comment is longer than ${MAX_ACK_COMMENT} characters`, [
          { path: 'comment', message: 'too long' },
        ]);
      const at = realNow();
      return await withTransaction(db, async (tx) => {
        const attempt = await getAttempt(tx, input.id);
        if (!attempt || !(await inScope(attempt.clusterId))) throw new AppError('NOT_FOUND', `No upgrade attempt ${input.id}`);
        if (!(await acknowledgeAttemptFailure(tx, input.id, { by: input.actor.name, comment, at: at.getTime() })))
          throw new AppError(
            'CONFLICT',
            attempt.acknowledgedAt !== null
              ? `Already acknowledged by ${attempt.acknowledgedBy}`
              : `Attempt ${input.id} is ${attempt.state}, not a failure`,
          );
        await appendAudit(tx, {
          at,
          actor: input.actor.name,
          action: 'lifecycle.acknowledge-failure',
          // inScope above: the request's organization holds the attempt's cluster
          organizationId: (await scope())!.id,
          target: `${attempt.cluster}@${attempt.toVersion}`,
          before: { state: attempt.state, reason: attempt.reason, message: attempt.message, acknowledged: false },
          after: { acknowledged: true, comment },
        });
        return { id: input.id, acknowledgedBy: input.actor.name, acknowledgedAt: at.toISOString() };
      });
    },
  };
}
