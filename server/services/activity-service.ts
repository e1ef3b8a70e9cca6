// The Activity page: decisions, actions (intents), upgrade lifecycle transitions and policy
// changes, filtered and paged.
import type { Db } from '@/db/open-database';
import { listAudit } from '@/server/repositories/activity-repository';
import { listPolicyRevisions } from '@/server/repositories/policy-repository';
import { listDecisions, listIntents } from '@/server/repositories/decision-repository';
import type { Actor } from '@/server/auth/actor';
import { fieldChanges } from '@/server/domain/diff/field-changes';
import { LIFECYCLE_STATES } from '@/server/domain/lifecycle/machine';
import { LIFECYCLE_REASONS, LIFECYCLE_REASON_CODES } from '@/server/domain/lifecycle/reasons';
import { listTransitionsPage } from '@/server/repositories/lifecycle-repository';
import { auditDetails } from './audit-details';
import type { OrganizationScope } from './organization-scope';
import { instanceRoleOf } from './organization-roles';
import { AppError } from './app-error';
import { listOrganizations } from '@/server/repositories/organization-repository';

export interface ActivityFilter {
  cluster?: string;
  action?: string;
  reason?: string;
  status?: string;
  from?: Date;
  to?: Date;
}

/** `scope`: decisions, actions, upgrades and policy revisions are the request's organization's; the audit log is the instance's */
export function createActivityService(db: Db, scope: OrganizationScope) {
  const orgId = async () => (await scope())?.id ?? -1;
  return {
    async decisions(input: ActivityFilter & { offset: number; limit: number }) {
      const { rows, total } = await listDecisions(
        db,
        {
          organizationId: await orgId(),
          cluster: input.cluster,
          action: input.action,
          reason: input.reason,
          from: input.from,
          to: input.to,
        },
        input.offset,
        input.limit,
      );
      return {
        total,
        rows: rows.map((r) => ({
          id: r.id,
          tickId: r.tickId,
          at: r.at.toISOString(),
          clusterName: r.clusterName,
          action: r.action,
          version: r.version,
          reason: r.reason,
          message: r.message,
          dryRun: r.dryRun ?? false,
        })),
      };
    },
    async actions(input: ActivityFilter & { offset: number; limit: number }) {
      const { rows, total } = await listIntents(
        db,
        { organizationId: await orgId(), cluster: input.cluster, kind: input.action, status: input.status, from: input.from, to: input.to },
        input.offset,
        input.limit,
      );
      return {
        total,
        rows: rows.map((r) => ({
          id: r.id,
          key: r.idempotencyKey,
          tickId: r.tickId,
          kind: r.kind,
          clusterName: r.clusterName,
          version: r.version,
          nextRun: r.nextRun?.toISOString() ?? null,
          status: r.status,
          attempts: r.attempts,
          note: r.error,
          createdAt: r.createdAt.toISOString(),
          doneAt: r.doneAt?.toISOString() ?? null,
        })),
      };
    },
    /**
     * Every lifecycle transition (who/what/when/why) with its attempt's cluster and versions; the
     * reasons' explanations and the states to filter by come along, so the page shows the
     * lifecycle's own words (server/domain/lifecycle).
     */
    async upgrades(input: ActivityFilter & { offset: number; limit: number }) {
      const { rows, total } = await listTransitionsPage(
        db,
        {
          organizationId: await orgId(),
          cluster: input.cluster,
          toState: input.action,
          reason: input.reason,
          from: input.from,
          to: input.to,
        },
        input.offset,
        input.limit,
      );
      return {
        total,
        rows: rows.map((r) => ({
          id: r.id,
          lifecycleId: r.lifecycleId,
          at: r.at.toISOString(),
          clusterName: r.cluster,
          fromVersion: r.fromVersion,
          toVersion: r.toVersion,
          fromState: r.fromState,
          toState: r.toState,
          reason: r.reason,
          reasonText: r.reason ? ((LIFECYCLE_REASONS as Readonly<Record<string, string>>)[r.reason] ?? null) : null,
          message: r.message,
          actor: r.actor,
        })),
        states: [...LIFECYCLE_STATES],
        reasons: LIFECYCLE_REASON_CODES.map((code) => ({ code, text: LIFECYCLE_REASONS[code] })),
      };
    },
    /**
     * Policy revisions and audit entries, each with its field changes (path, before, after); audit
     * values show only the fields the reader may see (audit-details.ts).
     */
    async changes(input: ActivityFilter & { offset: number; limit: number; reader: Actor; allOrganizations?: boolean }) {
      // admin-only details need the global role (a grant on one organization is not enough)
      const globalAdmin = (await instanceRoleOf(db, input.reader)) === 'admin' && !input.reader.organizationsOnly;
      const audience = globalAdmin ? 'admin' : 'member';
      if (input.allOrganizations && !globalAdmin)
        throw new AppError('FORBIDDEN', "Only an admin of the instance sees every organization's activity");
      // the request's organization and the instance's own rows; every organization's for a global admin who asks
      const organizationId = input.allOrganizations ? undefined : await orgId();
      const names = new Map((await listOrganizations(db)).map((o) => [o.id, o.name]));
      const nameOf = (id: number | null) => (id === null ? null : (names.get(id) ?? `#${id}`));
      const revisions = await listPolicyRevisions(db, {
        organizationId,
        ...(input.cluster ? { scope: 'cluster' as const, subject: input.cluster } : {}),
        from: input.from,
        to: input.to,
        offset: 0,
        limit: input.offset + input.limit,
      });
      const audit = await listAudit(
        db,
        { organizationId, cluster: input.cluster, action: input.action, from: input.from, to: input.to },
        0,
        input.offset + input.limit,
      );
      const merged = [
        ...revisions.rows.map((r) => ({
          kind: 'policy' as const,
          id: `rev-${r.id}`,
          at: r.at.toISOString(),
          actor: r.actor,
          action: `policy.${r.scope}.revision ${r.revision}`,
          target: `${r.scope}:${r.subject}`,
          organization: nameOf(r.organizationId),
          summary: r.summary,
          ...fieldChanges(r.before, r.after),
        })),
        ...audit.rows.map((a) => ({
          kind: 'audit' as const,
          id: `audit-${a.id}`,
          at: a.at.toISOString(),
          actor: a.actor,
          action: a.action,
          target: a.target,
          organization: nameOf(a.organizationId),
          summary: a.action,
          ...fieldChanges(auditDetails(a.action, a.before, audience), auditDetails(a.action, a.after, audience)),
        })),
      ].sort((x, y) => (x.at < y.at ? 1 : x.at > y.at ? -1 : 0));
      return { total: revisions.total + audit.total, rows: merged.slice(input.offset, input.offset + input.limit) };
    },
  };
}
