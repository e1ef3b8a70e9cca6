// Blocked versions of the whole instance (the upgrade service's OCM-wide `blockedVersions`): an
// admin's list that blocks every organization's clusters beside each organization's own list. The
// engine input carries it (plan-document-repository.ts) and blockingPatternOf (server/domain/plan/
// blocked-versions.ts) applies it, so the scheduler, the forecast and every "why not" agree and
// say "blocked instance-wide".
import type { Db } from '@/db/open-database';
import { checkBlockedVersionPattern } from '@/server/domain/plan/blocked-versions';
import { appendAudit } from '@/server/repositories/audit-repository';
import {
  deleteInstanceBlockedVersion,
  findInstanceBlockedVersion,
  insertInstanceBlockedVersion,
  listInstanceBlockedVersions,
} from '@/server/repositories/instance-blocked-version-repository';
import { withTransaction } from '@/server/repositories/transaction';
import { AppError } from './app-error';

const MAX_PATTERN = 500;
const MAX_REASON = 1000;

export function createInstanceBlockedVersionService(db: Db, realNow: () => Date) {
  return {
    async list() {
      return (await listInstanceBlockedVersions(db)).map((b) => ({
        pattern: b.pattern,
        reason: b.reason,
        createdBy: b.createdBy,
        createdAt: b.createdAt.toISOString(),
      }));
    },

    /** Blocks `pattern` in every organization (a reason is required); CONFLICT when it is blocked instance-wide already. */
    async add(actor: string, input: { pattern: string; reason: string }) {
      const pattern = input.pattern;
      const reason = input.reason.trim();
      const problems: { path: string; message: string }[] = [];
      const check = checkBlockedVersionPattern(pattern);
      if (pattern.length === 0 || pattern.length > MAX_PATTERN)
        problems.push({ path: 'pattern', message: `1 to ${MAX_PATTERN} characters` });
      else if (!check.ok) problems.push({ path: 'pattern', message: check.message });
      if (reason === '') problems.push({ path: 'reason', message: 'say why the version is blocked' });
      else if (reason.length > MAX_REASON) problems.push({ path: 'reason', message: `at most ${MAX_REASON} characters` });
      if (problems.length) throw new AppError('INVALID_INPUT', problems.map((p) => `${p.path}: ${p.message}`).join('; '), problems);
      return await withTransaction(db, async (tx) => {
        if (await findInstanceBlockedVersion(tx, pattern))
          throw new AppError('CONFLICT', `'${pattern}' is already blocked instance-wide`, [
            { path: 'pattern', message: 'already blocked' },
          ]);
        const at = realNow();
        const row = await insertInstanceBlockedVersion(tx, { pattern, reason, createdBy: actor, createdAt: at });
        await appendAudit(tx, {
          organizationId: null,
          at,
          actor,
          action: 'instance.blocked-version.add',
          target: 'instance',
          after: { pattern, reason },
        });
        return { pattern: row.pattern, reason: row.reason };
      });
    },

    /** Unblocks `pattern` instance-wide; NOT_FOUND when it is not on the instance's list. */
    async remove(actor: string, input: { pattern: string }) {
      return await withTransaction(db, async (tx) => {
        const row = await findInstanceBlockedVersion(tx, input.pattern);
        if (!row) throw new AppError('NOT_FOUND', `'${input.pattern}' is not blocked instance-wide`);
        await deleteInstanceBlockedVersion(tx, input.pattern);
        await appendAudit(tx, {
          organizationId: null,
          at: realNow(),
          actor,
          action: 'instance.blocked-version.remove',
          target: 'instance',
          before: { pattern: row.pattern, reason: row.reason },
        });
        return { pattern: row.pattern };
      });
    },
  };
}
