// Labels and selectors: operators set fleetplan's labels on a cluster (audited, in one
// transaction), and every selector editor previews which clusters a selector matches. The rules
// (syntax, overlay, matching) live in server/domain/labels.
import type { Db } from '@/db/open-database';
import type { Actor } from '@/server/auth/actor';
import { applyLabelChanges, effectiveLabels, parseLabelChanges } from '@/server/domain/labels/effective-labels';
import { matchesLabels, parseLabelSelector, type LabelSelector } from '@/server/domain/labels/label-selector';
import { appendAudit } from '@/server/repositories/audit-repository';
import { findClusterByName, listClusterLabels, setFleetplanLabels } from '@/server/repositories/cluster-repository';
import { withTransaction } from '@/server/repositories/transaction';
import { AppError } from './app-error';
import type { OrganizationScope } from './organization-scope';

/** How many names a preview lists (the count is exact). */
export const PREVIEW_NAMES = 10;

export type SelectorPreview = { ok: true; count: number; names: string[]; total: number } | { ok: false; message: string };

/** The selector parsed, or INVALID_INPUT with the parser's message at `path` (nothing is written after it). */
export function requireSelector(text: string, path = 'selector'): LabelSelector {
  const parsed = parseLabelSelector(text);
  if (!parsed.ok) throw new AppError('INVALID_INPUT', `${path}: ${parsed.message}`, [{ path, message: parsed.message }]);
  return parsed.selector;
}

/** The names of the organization's clusters (not gone) whose effective labels the selector matches, sorted. */
export async function clustersMatching(
  db: Db,
  organizationId: number,
  selector: LabelSelector,
): Promise<{ names: string[]; total: number }> {
  const rows = await listClusterLabels(db, organizationId);
  const names = rows.filter((r) => matchesLabels(selector, effectiveLabels(r.labels, r.fleetplanLabels))).map((r) => r.name);
  return { names, total: rows.length };
}

export function createLabelService(db: Db, realNow: () => Date, scope: OrganizationScope) {
  const org = async () => {
    const o = await scope();
    if (!o) throw new AppError('PRECONDITION_FAILED', 'No organization exists yet');
    return o;
  };
  return {
    /** What a selector matches now: the count and the first names, or the parser's message. */
    async preview(text: string): Promise<SelectorPreview> {
      const parsed = parseLabelSelector(text);
      if (!parsed.ok) return { ok: false, message: parsed.message };
      const o = await scope();
      if (!o) return { ok: true, count: 0, names: [], total: 0 };
      const { names, total } = await clustersMatching(db, o.id, parsed.selector);
      return { ok: true, count: names.length, names: names.slice(0, PREVIEW_NAMES), total };
    },

    /**
     * Applies kubectl-style changes (`key=value`, `key-`) to fleetplan's labels of a cluster.
     * Every change is checked before anything is written; the audit row holds both label sets.
     */
    async setLabels(input: { cluster: string; changes: readonly string[]; actor: Actor }) {
      const o = await org();
      const parsed = parseLabelChanges(input.changes);
      if (!parsed.ok)
        throw new AppError(
          'INVALID_INPUT',
          `labels: ${parsed.problems.join('; ')}`,
          parsed.problems.map((message) => ({ path: 'changes', message })),
        );
      const row = await findClusterByName(db, input.cluster, o.id);
      if (!row) throw new AppError('NOT_FOUND', `Cluster ${input.cluster} does not exist`);
      const before = row.fleetplanLabels;
      const after = applyLabelChanges(before, parsed.changes);
      const missing = parsed.changes.remove.filter((key) => !Object.prototype.hasOwnProperty.call(before, key));
      if (JSON.stringify(before) !== JSON.stringify(after)) {
        await withTransaction(db, async (tx) => {
          await setFleetplanLabels(tx, row.id, after);
          await appendAudit(tx, {
            at: realNow(),
            actor: input.actor.name,
            action: 'cluster.label',
            target: `organization:${o.name} cluster:${row.name}`,
            organizationId: o.id,
            before: { labels: before },
            after: { labels: after },
          });
        });
      }
      return {
        cluster: row.name,
        fleetplanLabels: after,
        labels: effectiveLabels(row.labels, after),
        changed: JSON.stringify(before) !== JSON.stringify(after),
        // kubectl says "label not found" for these; the rest of the change still applies
        notFound: missing,
      };
    },
  };
}

export type LabelService = ReturnType<typeof createLabelService>;
