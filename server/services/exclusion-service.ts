// Maintenance exclusion windows: list, create (validated), delete; every change audited in the
// same transaction as the change.
import type { Db } from '@/db/open-database';
import type { Actor } from '@/server/auth/actor';
import { appendAudit } from '@/server/repositories/audit-repository';
import { findClusterByName } from '@/server/repositories/cluster-repository';
import type { OrganizationScope } from './organization-scope';
import {
  deleteExclusion,
  findExclusionById,
  insertExclusion,
  listExclusions,
  type ExclusionRow,
} from '@/server/repositories/exclusion-repository';
import { listSectorNames } from '@/server/repositories/scheduler-repository';
import { withTransaction } from '@/server/repositories/transaction';
import { AppError } from './app-error';
import { parseLabelSelector } from '@/server/domain/labels/label-selector';
import { clustersMatching, PREVIEW_NAMES } from './label-service';

export interface CreateExclusionInput {
  /** `selector`: every cluster the label selector in `subject` matches, now and later */
  scope: 'organization' | 'sector' | 'cluster' | 'selector';
  subject?: string | null;
  startsAt: Date;
  endsAt: Date;
  reason: string;
  actor: Actor;
}

/** What the audit log keeps of an exclusion it created or deleted. */
function auditedFields(row: ExclusionRow) {
  return {
    scope: row.scope,
    subject: row.subject,
    startsAt: row.startsAt.toISOString(),
    endsAt: row.endsAt.toISOString(),
    reason: row.reason,
  };
}

/** `now` is the fleet's clock (which exclusions are active); `realNow` stamps records and audit rows */
export function createExclusionService(db: Db, now: () => Date, realNow: () => Date, scope: OrganizationScope) {
  const org = async () => {
    const o = await scope();
    if (!o) throw new AppError('PRECONDITION_FAILED', 'No organization exists yet');
    return o;
  };
  const matchingNow = async (organizationId: number, text: string) => {
    const parsed = parseLabelSelector(text);
    if (!parsed.ok) return { count: 0, names: [] as string[] };
    const { names } = await clustersMatching(db, organizationId, parsed.selector);
    return { count: names.length, names: names.slice(0, PREVIEW_NAMES) };
  };
  return {
    async list(input: { includePast?: boolean } = {}) {
      const current = now();
      const o = await org();
      const exclusions = await listExclusions(db, o.id, input.includePast ? {} : { endingAfter: current });
      return Promise.all(
        exclusions.map(async (e) => ({
          ...e,
          active: e.startsAt.getTime() <= current.getTime() && current.getTime() < e.endsAt.getTime(),
          /** a selector exclusion: the clusters it covers now (it covers clusters that appear later too) */
          matching: e.scope === 'selector' ? await matchingNow(o.id, e.subject ?? '') : null,
        })),
      );
    },
    async create(input: CreateExclusionInput) {
      const o = await org();
      const problems: { path: string; message: string }[] = [];
      if (input.endsAt.getTime() <= input.startsAt.getTime()) problems.push({ path: 'endsAt', message: 'must be after the start' });
      const subject = input.scope === 'organization' ? null : (input.subject ?? '').trim();
      if (input.scope !== 'organization' && !subject)
        problems.push({ path: 'subject', message: input.scope === 'selector' ? 'write a label selector' : `name the ${input.scope}` });
      if (input.scope === 'selector' && subject) {
        const parsed = parseLabelSelector(subject);
        if (!parsed.ok) problems.push({ path: 'subject', message: parsed.message });
        // an empty selector matches every cluster: that is the organization scope, say so
        else if (parsed.selector.requirements.length === 0) problems.push({ path: 'subject', message: 'write a label selector' });
      }
      if (input.scope === 'sector' && subject && !(await listSectorNames(db, o.id)).includes(subject))
        problems.push({ path: 'subject', message: `sector '${subject}' does not exist` });
      if (input.scope === 'cluster' && subject && !(await findClusterByName(db, subject, o.id)))
        problems.push({ path: 'subject', message: `cluster '${subject}' does not exist` });
      if (!input.reason.trim()) problems.push({ path: 'reason', message: 'say why' });
      if (problems.length) throw new AppError('INVALID_INPUT', problems.map((p) => `${p.path}: ${p.message}`).join('; '), problems);
      const at = realNow();
      return await withTransaction(db, async (tx) => {
        const row = await insertExclusion(tx, {
          organizationId: o.id,
          scope: input.scope,
          subject,
          startsAt: input.startsAt,
          endsAt: input.endsAt,
          reason: input.reason.trim(),
          createdBy: input.actor.name,
          createdAt: at,
        });
        await appendAudit(tx, {
          at,
          actor: input.actor.name,
          action: 'exclusion.create',
          organizationId: o.id,
          target: `organization:${o.name} exclusion:${row.id}`,
          after: auditedFields(row),
        });
        return row;
      });
    },
    async delete(input: { id: number; actor: Actor }) {
      const row = await findExclusionById(db, input.id);
      // another organization's exclusion does not exist here
      const o = await org();
      if (!row || row.organizationId !== o.id) throw new AppError('NOT_FOUND', `Exclusion ${input.id} does not exist`);
      await withTransaction(db, async (tx) => {
        await deleteExclusion(tx, input.id);
        await appendAudit(tx, {
          at: realNow(),
          actor: input.actor.name,
          action: 'exclusion.delete',
          organizationId: o.id,
          target: `organization:${o.name} exclusion:${row.id}`,
          before: auditedFields(row),
        });
      });
      return { id: input.id };
    },
  };
}
