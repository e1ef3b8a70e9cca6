// Builds the fleet provider named by the settings (FLEETPLAN_PROVIDER = simulator | ocm | kubernetes,
// parsed and checked in server/env.ts).
import type { Db } from '@/db/open-database';
import { getEnv, type ProviderSettings } from '@/server/env';
import { createSimulatorProvider } from './simulator';
import type { FleetProvider } from './types';

/**
 * An organization's provider for a scheduler tick. The simulator serves every organization (each
 * its own simulated clusters); a real provider configured for the instance (FLEETPLAN_PROVIDER)
 * serves the first organization, the one it always served: other organizations have none (null)
 * and are left out of the tick.
 */
export async function providerForOrganization(
  db: Db,
  org: { id: number },
  first: boolean,
  settings: ProviderSettings = getEnv().provider,
): Promise<FleetProvider | null> {
  if (settings.name === 'simulator') return createSimulatorProvider(db, org.id);
  return first ? createProvider(db, settings) : null;
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
