import { AppError } from '../app-error';
import { getOrganization } from './get-organization';
import { commitOrganization, invalid, type PolicyContext } from './policy-store';

/** Blocks a version pattern (a reason is required); refused when it is blocked already. */
export async function addBlockedVersion(
  ctx: PolicyContext,
  actor: string,
  input: { pattern: string; reason: string; expectedRevision?: number },
) {
  const pattern = input.pattern;
  const reason = input.reason.trim();
  if (reason === '') throw invalid('Blocking a version needs a reason', [{ path: 'reason', message: 'say why the version is blocked' }]);
  let index = -1;
  const result = await commitOrganization(
    ctx,
    actor,
    input.expectedRevision,
    (before) => {
      if (before.blockedVersions.some((b) => b.pattern === pattern)) {
        throw new AppError('CONFLICT', `'${pattern}' is already blocked`, [{ path: 'pattern', message: 'already blocked' }]);
      }
      index = before.blockedVersions.length;
      return { ...before, blockedVersions: [...before.blockedVersions, { pattern, reason }] };
    },
    { action: 'policy.blocked-version.add', summary: () => `blocked '${pattern}': ${reason}` },
    { blockedVersionPath: (i) => (i === index ? 'pattern' : undefined) },
  );
  return { ...result, organization: await getOrganization(ctx) };
}

/** Unblocks a version pattern; NOT_FOUND when it is not blocked. */
export async function removeBlockedVersion(
  ctx: PolicyContext,
  actor: string,
  input: { pattern: string; reason: string; expectedRevision?: number },
) {
  const reason = input.reason.trim();
  const result = await commitOrganization(
    ctx,
    actor,
    input.expectedRevision,
    (before) => {
      if (!before.blockedVersions.some((b) => b.pattern === input.pattern))
        throw new AppError('NOT_FOUND', `'${input.pattern}' is not blocked`);
      return { ...before, blockedVersions: before.blockedVersions.filter((b) => b.pattern !== input.pattern) };
    },
    { action: 'policy.blocked-version.remove', summary: () => `unblocked '${input.pattern}'${reason ? `: ${reason}` : ''}` },
    {},
  );
  return { ...result, organization: await getOrganization(ctx) };
}
