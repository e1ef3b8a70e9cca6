// Chooses the fleet provider from configuration: FLEETPLAN_PROVIDER = simulator (default) | ocm | kubernetes.
import type { Db } from '@/db/open-database';
import { createSimulatorProvider } from './simulator';
import type { FleetProvider } from './types';

export const PROVIDER_NAMES = ['simulator', 'ocm', 'kubernetes'] as const;
export type ProviderName = (typeof PROVIDER_NAMES)[number];

export function configuredProviderName(env: NodeJS.ProcessEnv = process.env): ProviderName {
  const name = env.FLEETPLAN_PROVIDER ?? 'simulator';
  if (!(PROVIDER_NAMES as readonly string[]).includes(name))
    throw new Error(`FLEETPLAN_PROVIDER must be one of ${PROVIDER_NAMES.join(', ')}; got '${name}'`);
  return name as ProviderName;
}

export async function createProvider(db: Db, env: NodeJS.ProcessEnv = process.env): Promise<FleetProvider> {
  const name = configuredProviderName(env);
  if (name === 'simulator') return createSimulatorProvider(db);
  if (name === 'ocm') {
    const { createOcmProvider } = await import('./ocm');
    const token = env.FLEETPLAN_OCM_TOKEN;
    if (!token) throw new Error('FLEETPLAN_OCM_TOKEN is required with FLEETPLAN_PROVIDER=ocm');
    return createOcmProvider({ baseUrl: env.FLEETPLAN_OCM_URL ?? 'https://api.openshift.com', token, search: env.FLEETPLAN_OCM_SEARCH });
  }
  const { createKubernetesProviderFromKubeconfig } = await import('./kubernetes');
  return createKubernetesProviderFromKubeconfig({
    kubeconfigPath: env.FLEETPLAN_KUBECONFIG ?? env.KUBECONFIG ?? `${env.HOME ?? ''}/.kube/config`,
    contexts: env.FLEETPLAN_KUBE_CONTEXTS?.split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  });
}
