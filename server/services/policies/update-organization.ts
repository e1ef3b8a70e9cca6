import {
  describeOrganizationChange,
  normalizeSettings,
  type OrganizationSettingsInput,
} from '@/server/domain/policy-files/organization-snapshot';
import { getOrganization } from './get-organization';
import { commitOrganization, type PolicyContext } from './policy-store';

/** Saves the organization's settings (sectors, blocked versions, allow-lists) as its next revision. */
export function updateOrganization(
  ctx: PolicyContext,
  actor: string,
  input: { expectedRevision: number; organization: OrganizationSettingsInput },
) {
  const settings = normalizeSettings(input.organization);
  const result = commitOrganization(
    ctx,
    actor,
    input.expectedRevision,
    (before) => ({ ...before, ...settings }),
    { action: 'policy.organization.update', summary: describeOrganizationChange },
    { blockedVersionPath: (i) => `organization.blockedVersions[${i}].pattern` },
  );
  return { ...result, organization: getOrganization(ctx) };
}
