// Builds the fleet provider named by the settings (FLEETPLAN_PROVIDER = simulator | ocm | kubernetes,
// parsed and checked in server/env.ts).
import type { Db } from '@/db/open-database';
import { DEFAULT_OCM_URL, getEnv, type ProviderSettings } from '@/server/env';
import { DEFAULT_OCM_TOKEN_URL } from './ocm-auth';
import { createSimulatorProvider } from './simulator';
import { ProviderError, type FleetProvider } from './types';

/** What an organization's own provider settings may name (organizations.provider_kind). */
export const ORGANIZATION_PROVIDER_KINDS = ['simulator', 'ocm', 'kubernetes'] as const;
export type OrganizationProviderKind = (typeof ORGANIZATION_PROVIDER_KINDS)[number];

/**
 * The provider settings an organization's part of a tick uses. An organization with its own
 * provider (organizations.provider_kind) uses it, its credentials found through its reference
 * (never stored): `kubernetes` reads the kubeconfig file the reference names; `ocm` reads an
 * offline token from the environment variable the reference names (the instance's
 * FLEETPLAN_OCM_URL, else api.openshift.com). Without one, the simulator serves every
 * organization its own simulated clusters, and a real provider set with FLEETPLAN_PROVIDER
 * serves the first organization only (null for the others: left out of the tick).
 * Throws when a reference leads nowhere (the organization's part of the tick fails with it).
 */
export function organizationProviderSettings(
  org: { name: string; providerKind: string | null; providerCredentialsRef: string | null },
  first: boolean,
  instance: ProviderSettings,
  environment: Readonly<Record<string, string | undefined>>,
): ProviderSettings | null {
  const ref = org.providerCredentialsRef ?? '';
  switch (org.providerKind) {
    case null:
      return instance.name === 'simulator' || first ? instance : null;
    case 'simulator':
      return { name: 'simulator' };
    case 'kubernetes':
      return { name: 'kubernetes', kubeconfigPath: ref, contexts: undefined };
    case 'ocm': {
      const offlineToken = environment[ref];
      if (!offlineToken)
        throw new Error(`organization ${org.name}: the environment variable ${ref} (its OCM credentials reference) is not set`);
      return {
        name: 'ocm',
        url: instance.name === 'ocm' ? instance.url : DEFAULT_OCM_URL,
        auth: { kind: 'offline-token', offlineToken, tokenUrl: DEFAULT_OCM_TOKEN_URL },
        search: undefined,
      };
    }
    default:
      throw new Error(`organization ${org.name}: unknown provider kind '${org.providerKind}'`);
  }
}

/** An organization's provider for a scheduler tick (organizationProviderSettings), or null when it has none. */
export async function providerForOrganization(
  db: Db,
  org: { id: number; name: string; providerKind: string | null; providerCredentialsRef: string | null },
  first: boolean,
  settings: ProviderSettings = getEnv().provider,
  environment: Readonly<Record<string, string | undefined>> = process.env,
): Promise<FleetProvider | null> {
  const own = organizationProviderSettings(org, first, settings, environment);
  if (!own) return null;
  if (own.name === 'simulator') return createSimulatorProvider(db, org.id);
  return createProvider(db, own);
}

/**
 * The provider of the organization a request or command works on (its own, or the instance's for
 * the first organization): what acknowledging one of its clusters' version gates must write to.
 */
export async function providerOfOrganization(
  db: Db,
  org: { id: number; name: string; providerKind: string | null; providerCredentialsRef: string | null } | undefined,
  firstOrganizationId: number | undefined,
  settings: ProviderSettings = getEnv().provider,
): Promise<FleetProvider> {
  if (!org) throw new ProviderError('fleetplan', 'no organization yet');
  const provider = await providerForOrganization(db, org, org.id === firstOrganizationId, settings);
  if (!provider) throw new ProviderError('fleetplan', `organization ${org.name} has no provider`);
  return provider;
}

export async function createProvider(db: Db, settings: ProviderSettings = getEnv().provider): Promise<FleetProvider> {
  if (settings.name === 'simulator') return createSimulatorProvider(db);
  if (settings.name === 'ocm') {
    const { createOcmProvider } = await import('./ocm');
    const { createOcmRefusalRepository } = await import('@/server/repositories/ocm-refusal-repository');
    // refused starts outlive the provider, which is built for one tick
    return createOcmProvider({
      baseUrl: settings.url,
      auth: settings.auth,
      search: settings.search,
      refusals: createOcmRefusalRepository(db),
    });
  }
  const { createKubernetesProviderFromKubeconfig } = await import('./kubernetes');
  return createKubernetesProviderFromKubeconfig({ kubeconfigPath: settings.kubeconfigPath, contexts: settings.contexts });
}
