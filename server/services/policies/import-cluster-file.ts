import { jsonEqual } from '@/lib/json-diff';
import { policySpecToDocument } from '@/lib/policy-spec';
import { parseClusterFile } from '@/server/domain/policy-files/parse-policy-files';
import * as repo from '@/server/repositories/policy-repository';
import { evaluateDraft } from './evaluate-draft';
import { organizationFileOf } from './export-policy-files';
import { invalid, requireOrganization, type PolicyContext } from './policy-store';
import { updateClusterPolicy } from './update-cluster-policy';

/**
 * One cluster's file (`/openshift/<cluster>.yml`, `$schema: /openshift/cluster-1.yml`): its
 * `upgradePolicy` becomes the cluster's policy (none: the cluster is no longer managed), checked
 * against the organization's sectors and allow-lists and the whole fleet, as a save from the
 * editor would be. The cluster must be one the fleet has (the scheduler adds what the provider
 * reports). The file's other keys (spec, network, …) are not ours: they are left out. `dryRun`
 * reports whether the policy would change and writes nothing.
 */
export async function importClusterYaml(ctx: PolicyContext, actor: string, input: { yaml: string; dryRun?: boolean }) {
  const org = await requireOrganization(ctx);
  const parsed = parseClusterFile(input.yaml, { organization: await organizationFileOf(ctx.db, org) });
  if (!parsed.ok) throw invalid('The cluster file is not valid', parsed.problems);
  const file = parsed.value;
  const stored = await repo.findClusterPolicy(ctx.db, org.id, file.name);
  if (!stored) {
    throw invalid(`No cluster named ${file.name} in the fleet`, [
      {
        path: 'name',
        message: `no cluster named ${file.name} in the fleet: the scheduler adds the clusters the provider reports; import the file once it has`,
      },
    ]);
  }
  const ignoredKeys = Object.keys(file.extra ?? {});
  const after = file.upgradePolicy ? policySpecToDocument(file.upgradePolicy) : null;
  if (input.dryRun) {
    const checked = await evaluateDraft(ctx, { clusters: [{ name: file.name, policy: file.upgradePolicy }] });
    if (!checked.ok) throw invalid(`The policy of ${file.name} is not valid`, checked.problems);
    return {
      cluster: file.name,
      dryRun: true,
      changed: !jsonEqual(stored.upgradePolicy, after),
      revision: stored.policyRevision,
      ignoredKeys,
    };
  }
  const saved = await updateClusterPolicy(ctx, actor, {
    name: file.name,
    expectedRevision: stored.policyRevision,
    policy: file.upgradePolicy,
    reason: 'imported from its cluster file',
  });
  return { cluster: file.name, dryRun: false, changed: saved.changed, revision: saved.revision, ignoredKeys };
}
