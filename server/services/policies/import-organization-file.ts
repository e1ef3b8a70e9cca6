import { AppError } from '../app-error';
import { findOrganizationByName } from '@/server/repositories/organization-repository';
import { jsonEqual } from '@/lib/json-diff';
import { validatePlanInput } from '@/server/domain/plan/validate-plan-input';
import type { NamedProblem } from '@/server/domain/policy-files/named-problems';
import {
  describeClusterChange,
  describeOrganizationChange,
  organizationFileProblems,
  settingsFromOrganizationFile,
  type OrganizationSnapshot,
} from '@/server/domain/policy-files/organization-snapshot';
import { parseOrganizationFile } from '@/server/domain/policy-files/parse-policy-files';
import { policySpecToDocument } from '@/lib/policy-spec';
import { appendAudit } from '@/server/repositories/audit-repository';
import * as repo from '@/server/repositories/policy-repository';
import { withTransaction } from '@/server/repositories/transaction';
import {
  documentWith,
  invalid,
  requireOrganization,
  requireRevision,
  snapshotOf,
  writeClusterPolicy,
  writeOrganization,
  type PolicyContext,
} from './policy-store';

/**
 * Replaces the organization's policies with an organization file: settings, sectors, blocked
 * versions, and every cluster's policy (clusters the file does not list become unmanaged).
 * Validated as a whole first; `dryRun` reports what would change and writes nothing.
 */
export async function importOrganizationYaml(
  ctx: PolicyContext,
  actor: string,
  input: { yaml: string; dryRun?: boolean; expectedRevision?: number },
) {
  const parsed = parseOrganizationFile(input.yaml);
  if (!parsed.ok) throw invalid('The organization file is not valid', parsed.problems);
  const file = parsed.value;
  return await withTransaction(ctx.db, async (tx) => {
    const at = ctx.now();
    const org = await requireOrganization(ctx);
    requireRevision(org.revision, input.expectedRevision, 'The organization');
    // the file names the organization: another organization's name is refused, not taken over
    const holder = await findOrganizationByName(tx, file.name);
    if (holder && holder.id !== org.id)
      throw new AppError(
        'CONFLICT',
        `The file names organization ${file.name}, which is another organization of this instance (importing into ${org.name})`,
      );
    const before = await snapshotOf(tx, org);
    const reasons = new Map(before.blockedVersions.map((b) => [b.pattern, b.reason]));
    const after: OrganizationSnapshot = { ...before, name: file.name, ...settingsFromOrganizationFile(file, reasons) };
    const stored = await repo.listClusterPolicies(tx, org.id);
    const listed = new Map(
      file.upgradePolicyClusters.map((c, i) => [c.name, { index: i, document: policySpecToDocument(c.upgradePolicy) }]),
    );
    const known = new Set(stored.map((c) => c.name));
    const problems: NamedProblem[] = file.upgradePolicyClusters.flatMap((c, i) =>
      known.has(c.name) ? [] : [{ path: `upgradePolicyClusters[${i}].name`, message: `no cluster named ${c.name} in the fleet` }],
    );
    const clusterChanges = stored.map((c) => ({ row: c, after: listed.get(c.name)?.document ?? null }));
    const { doc } = await documentWith(
      ctx,
      org,
      { organization: after, clusters: clusterChanges.map((c) => ({ name: c.row.name, policy: c.after })) },
      at,
    );
    const result = validatePlanInput(doc);
    if (!result.ok) {
      const listedIndex = new Map([...listed].map(([name, l]) => [name, l.index]));
      problems.push(
        ...organizationFileProblems(
          result.problems,
          doc.clusters.map((c) => c.name),
          listedIndex,
        ),
      );
    }
    if (problems.length > 0) throw invalid('The organization file does not fit the fleet', problems);

    const organizationChanged = !jsonEqual(before, after);
    const changed = clusterChanges.filter((c) => !jsonEqual(c.row.upgradePolicy, c.after));
    const summary = {
      dryRun: input.dryRun === true,
      organization: after.name,
      organizationChanged,
      changedClusters: changed.map((c) => c.row.name),
      managedClusters: clusterChanges.filter((c) => c.after !== null).length,
      unmanagedClusters: clusterChanges.filter((c) => c.after === null).length,
      notices: parsed.notices,
      revision: org.revision,
    };
    const sectorExtras = Object.fromEntries(file.sectors.filter((s) => s.extra).map((s) => [s.name, s.extra!]));
    const clusterExtras = Object.fromEntries(file.upgradePolicyClusters.filter((c) => c.extra).map((c) => [c.name, c.extra!]));
    const extras: repo.OrganizationFileExtras = {
      ...(file.extra ? { file: file.extra } : {}),
      sectors: sectorExtras,
      clusters: clusterExtras,
    };
    const storedExtras = await repo.getOrganizationFileExtras(tx, org.id);
    const extrasChanged = !jsonEqual(
      { file: storedExtras.file, sectors: storedExtras.sectors ?? {}, clusters: storedExtras.clusters ?? {} },
      { file: extras.file, sectors: sectorExtras, clusters: clusterExtras },
    );
    // the same file again: nothing to record
    if (input.dryRun || (!organizationChanged && changed.length === 0 && !extrasChanged)) return summary;

    const entry = { actor, action: 'policy.import', at: ctx.realNow() };
    if (organizationChanged) {
      summary.revision = (
        await writeOrganization(tx, org, before, after, {
          ...entry,
          summary: `imported organization file: ${describeOrganizationChange(before, after)}`,
        })
      ).revision;
    }
    for (const c of changed) {
      const what = c.after === null ? 'not listed: no longer managed' : describeClusterChange(c.row.upgradePolicy, c.after);
      await writeClusterPolicy(tx, org, c.row, c.after, { ...entry, summary: `imported organization file: ${what}` });
    }
    if (extrasChanged) await repo.setOrganizationFileExtras(tx, org.id, extras, entry.at);
    await appendAudit(tx, {
      at: entry.at,
      actor,
      action: 'policy.import.file',
      organizationId: org.id,
      target: `organization:${after.name}`,
      before: { revision: org.revision, organization: before },
      after: { revision: summary.revision, organization: after, changedClusters: summary.changedClusters },
    });
    return summary;
  });
}
