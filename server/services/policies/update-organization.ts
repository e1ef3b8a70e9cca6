import {
  describeOrganizationChange,
  normalizeSettings,
  type OrganizationSettingsInput,
} from '@/server/domain/policy-files/organization-snapshot';
import { getOrganization } from './get-organization';
import { commitOrganization, withReason, type PolicyContext } from './policy-store';

/** Saves the organization's settings (sectors, blocked versions, allow-lists) as its next revision, with the operator's optional reason in its summary. */
export async function updateOrganization(
  ctx: PolicyContext,
  actor: string,
  input: { expectedRevision: number; organization: OrganizationSettingsInput; reason?: string },
) {
  const result = await commitOrganization(
    ctx,
    actor,
    input.expectedRevision,
    (before) => ({ ...before, ...normalizeSettings(input.organization, before) }),
    {
      action: 'policy.organization.update',
      summary: (before, after) => withReason(describeOrganizationChange(before, after), input.reason),
    },
    { blockedVersionPath: (i) => `organization.blockedVersions[${i}].pattern` },
  );
  return { ...result, organization: await getOrganization(ctx) };
}
