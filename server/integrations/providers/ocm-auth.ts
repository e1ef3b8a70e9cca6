// How the OCM provider authenticates. OCM takes a short-lived access token; fleetplan gets one
// from Red Hat SSO with an offline token (`ocm login --token` style: grant_type=refresh_token,
// client_id=cloud-services) or a service account (grant_type=client_credentials), keeps it until
// a minute before it expires, and fetches a new one when OCM answers 401. A fixed bearer token
// is still accepted (tests, a token minted elsewhere) and never refreshed.
import { createHash } from 'node:crypto';
import { httpForm } from './http-json';
import { ProviderError } from './types';
import { keepRecent } from '@/lib/keep-recent';

/** Red Hat SSO's token endpoint, which `ocm` and the upgrade service use */
export const DEFAULT_OCM_TOKEN_URL = 'https://sso.redhat.com/auth/realms/redhat-external/protocol/openid-connect/token';
/** the public client an offline token belongs to */
const OFFLINE_TOKEN_CLIENT_ID = 'cloud-services';
/** refresh this long before the access token expires */
const EXPIRY_MARGIN_MS = 60_000;

export type OcmAuth =
  | { kind: 'bearer'; token: string }
  | { kind: 'offline-token'; offlineToken: string; tokenUrl: string }
  | { kind: 'service-account'; clientId: string; clientSecret: string; tokenUrl: string };

export interface OcmTokenSource {
  /** a token valid now (cached) */
  token(now?: number): Promise<string>;
  /**
   * OCM refused `token`: the next call fetches a new one unless that already happened (the source
   * is shared by every provider of the process, and a late 401 for an old token must not drop a
   * fresh one). False: nothing to refresh (a fixed bearer token).
   */
  invalidate(token: string): boolean;
}

/**
 * The token sources of this process, by credential: the scheduler builds a provider for every
 * tick, and each would otherwise ask SSO for a new access token although the last one is good for
 * minutes more. Keyed by a hash of the secret (never the secret itself); a handful of entries at
 * most, the oldest dropped first.
 */
const sharedSources = new Map<string, OcmTokenSource>();
const MAX_SHARED_SOURCES = 16;

export function createOcmTokenSource(auth: OcmAuth): OcmTokenSource {
  if (auth.kind === 'bearer') return { token: () => Promise.resolve(auth.token), invalidate: () => false };
  const secret = auth.kind === 'offline-token' ? auth.offlineToken : `${auth.clientId}\u0000${auth.clientSecret}`;
  const key = `${auth.kind}\u0000${auth.tokenUrl}\u0000${createHash('sha256').update(secret).digest('hex')}`;
  let source = sharedSources.get(key);
  if (!source) {
    source = refreshingTokenSource(auth);
    keepRecent(sharedSources, key, source, MAX_SHARED_SOURCES);
  }
  return source;
}

function refreshingTokenSource(auth: Exclude<OcmAuth, { kind: 'bearer' }>): OcmTokenSource {
  let cached: { token: string; refreshAt: number } | null = null;
  let inFlight: Promise<string> | null = null;

  async function fetchToken(now: number): Promise<string> {
    const form: Record<string, string> =
      auth.kind === 'offline-token'
        ? { grant_type: 'refresh_token', client_id: OFFLINE_TOKEN_CLIENT_ID, refresh_token: auth.offlineToken }
        : { grant_type: 'client_credentials', client_id: auth.clientId, client_secret: auth.clientSecret };
    const res = await httpForm<{ access_token?: unknown; expires_in?: unknown; error?: unknown; error_description?: unknown }>(
      auth.tokenUrl,
      form,
      { provider: 'ocm' },
    ).catch((err: unknown) => {
      const what = auth.kind === 'offline-token' ? 'the offline token' : `the service account ${auth.clientId}`;
      throw new ProviderError('ocm', `could not get an OCM access token with ${what}: ${err instanceof Error ? err.message : String(err)}`);
    });
    const token = res.body.access_token;
    if (typeof token !== 'string' || token === '')
      throw new ProviderError('ocm', `the token endpoint ${auth.tokenUrl} returned no access_token`);
    const expiresIn = typeof res.body.expires_in === 'number' && res.body.expires_in > 0 ? res.body.expires_in : 300;
    cached = { token, refreshAt: now + Math.max(expiresIn * 1000 - EXPIRY_MARGIN_MS, expiresIn * 500) };
    return token;
  }

  return {
    token(now = Date.now()) {
      if (cached && now < cached.refreshAt) return Promise.resolve(cached.token);
      // one refresh for every request that needs it at the same time
      inFlight ??= fetchToken(now).finally(() => (inFlight = null));
      return inFlight;
    },
    invalidate(refused) {
      if (cached?.token === refused) cached = null;
      return true;
    },
  };
}
