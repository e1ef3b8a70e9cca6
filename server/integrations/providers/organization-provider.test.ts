import { describe, expect, it } from 'vitest';
import type { ProviderSettings } from '@/server/env';
import { organizationProviderSettings } from './create-provider';
import { DEFAULT_OCM_TOKEN_URL } from './ocm-auth';

const OCM: ProviderSettings = { name: 'ocm', url: 'https://ocm.example', auth: { kind: 'bearer', token: 't' }, search: undefined };
const org = (providerKind: string | null, providerCredentialsRef: string | null = null) => ({
  name: 'payments',
  providerKind,
  providerCredentialsRef,
});

describe("organizationProviderSettings: an organization's provider", () => {
  it('without its own: the simulator serves every organization, a real instance provider the first only', () => {
    expect(organizationProviderSettings(org(null), false, { name: 'simulator' }, {})).toEqual({ name: 'simulator' });
    expect(organizationProviderSettings(org(null), true, OCM, {})).toBe(OCM);
    expect(organizationProviderSettings(org(null), false, OCM, {})).toBeNull();
  });

  it('its own: a kubeconfig path, or an OCM offline token read from the environment variable the reference names', () => {
    expect(organizationProviderSettings(org('kubernetes', '/etc/fleetplan/payments.kubeconfig'), false, OCM, {})).toEqual({
      name: 'kubernetes',
      kubeconfigPath: '/etc/fleetplan/payments.kubeconfig',
      contexts: undefined,
    });
    expect(organizationProviderSettings(org('ocm', 'PAYMENTS_OCM'), false, OCM, { PAYMENTS_OCM: 'offline-xyz' })).toEqual({
      name: 'ocm',
      url: 'https://ocm.example',
      auth: { kind: 'offline-token', offlineToken: 'offline-xyz', tokenUrl: DEFAULT_OCM_TOKEN_URL },
      search: undefined,
    });
    expect(() => organizationProviderSettings(org('ocm', 'PAYMENTS_OCM'), true, OCM, {})).toThrow(
      'organization payments: the environment variable PAYMENTS_OCM (its OCM credentials reference) is not set',
    );
    expect(organizationProviderSettings(org('simulator'), false, OCM, {})).toEqual({ name: 'simulator' });
  });
});
