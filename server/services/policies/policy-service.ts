// Editing upgrade policies: the organization (sectors, blocked versions, allow-lists, freeze)
// and each cluster's policy, with history, revert, live validation, impact preview and the
// upgrade service's YAML files. One file per use case in this folder; this binds them to a
// database. Every write runs in one transaction that first validates the WHOLE resulting
// organization + fleet with the decision engine's validator, checks the caller's expected
// revision (optimistic concurrency), then writes the change, a policy_revisions row and an
// audit_log row. A rejected write leaves nothing behind.
import type { Db } from '@/db/open-database';
import { addBlockedVersion, removeBlockedVersion } from './blocked-versions';
import { getClusterPolicy, listClusterPolicies } from './cluster-policies';
import type { PolicyDraft } from './evaluate-draft';
import { exportClusterYaml, exportOrganizationYaml } from './export-policy-files';
import { getOrganization } from './get-organization';
import { importOrganizationYaml } from './import-organization-file';
import { policyHistory } from './policy-history';
import { requireOrganization, SYSTEM_ACTOR, type PolicyContext } from './policy-store';
import type { OrganizationScope } from '../organization-scope';
import type { ForecastOffload } from '../forecast-service';
import { importClusterYaml } from './import-cluster-file';
import { previewForecastImpact } from './preview-forecast-impact';
import { previewImpact } from './preview-impact';
import { revertPolicy } from './revert-policy';
import { setFreeze } from './set-freeze';
import { updateClusterPolicy } from './update-cluster-policy';
import { updateOrganization } from './update-organization';
import { validateDraft } from './validate-draft';

type Rest<F> = F extends (ctx: PolicyContext, ...args: infer A) => unknown ? A : never;

/** `now` is the fleet's clock, `realNow` the wall clock (revisions and audit rows) */
export function createPolicyService(
  db: Db,
  now: () => Date,
  realNow: () => Date,
  organization: OrganizationScope,
  /** the server's forecast thread, where the forecast impact is computed; without one, in this thread */
  forecasts?: ForecastOffload,
) {
  const ctx: PolicyContext = { db, now, realNow, organization };
  return {
    getOrganization: async () => await getOrganization(ctx),
    getClusterPolicy: async (name: string) => await getClusterPolicy(ctx, name),
    listClusterPolicies: async () => await listClusterPolicies(ctx),
    validateDraft: async (draft: PolicyDraft) => await validateDraft(ctx, draft),
    importClusterYaml: async (...args: Rest<typeof importClusterYaml>) => await importClusterYaml(ctx, ...args),
    previewImpact: async (draft: PolicyDraft) => await previewImpact(ctx, draft),
    previewForecastImpact: async (draft: PolicyDraft, signal?: AbortSignal) => {
      if (!forecasts) return previewForecastImpact(ctx, draft, signal);
      // the organization is picked here, with the request's rights; the thread computes the two forecasts
      return forecasts.impact((await requireOrganization(ctx)).id, draft, now().getTime());
    },
    updateOrganization: async (...args: Rest<typeof updateOrganization>) => await updateOrganization(ctx, ...args),
    updateClusterPolicy: async (...args: Rest<typeof updateClusterPolicy>) => await updateClusterPolicy(ctx, ...args),
    setFreeze: async (...args: Rest<typeof setFreeze>) => await setFreeze(ctx, ...args),
    addBlockedVersion: async (...args: Rest<typeof addBlockedVersion>) => await addBlockedVersion(ctx, ...args),
    removeBlockedVersion: async (...args: Rest<typeof removeBlockedVersion>) => await removeBlockedVersion(ctx, ...args),
    history: async (...args: Rest<typeof policyHistory>) => await policyHistory(ctx, ...args),
    revert: async (...args: Rest<typeof revertPolicy>) => await revertPolicy(ctx, ...args),
    importOrganizationYaml: async (...args: Rest<typeof importOrganizationYaml>) => await importOrganizationYaml(ctx, ...args),
    exportOrganizationYaml: async () => await exportOrganizationYaml(ctx),
    exportClusterYaml: async (name: string) => await exportClusterYaml(ctx, name),
    /** the system actor, for callers without a user (CLI) */
    systemActor: SYSTEM_ACTOR,
  };
}

export type PolicyService = ReturnType<typeof createPolicyService>;
