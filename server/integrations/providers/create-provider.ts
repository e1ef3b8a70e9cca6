// Builds the fleet provider named by the settings (FLEETPLAN_PROVIDER = simulator | ocm | kubernetes,
// parsed and checked in server/env.ts).
import type { Db } from '@/db/open-database';
import { getEnv, type ProviderSettings } from '@/server/env';
import { createSimulatorProvider } from './simulator';
import type { FleetProvider } from './types';

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
