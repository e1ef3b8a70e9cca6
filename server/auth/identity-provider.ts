// Seam for external sign-in: OIDC today (server/auth/oidc), perhaps SAML/LDAP later. Providers are
// configured by the settings (FLEETPLAN_OIDC_*, server/env.ts); see server/auth/README.md.
import type { OidcSettings } from '@/server/env';
import type { Role } from './actor';
import { createOidcIdentityProvider } from './oidc/oidc-identity-provider';

/** what an external provider vouches for after a completed sign-in */
export interface ExternalIdentity {
  /** stable id at the provider (OIDC `sub`); the local user is keyed by `${provider.id}:${subject}` */
  subject: string;
  /** preferred local username (OIDC `preferred_username` or e-mail local part) */
  username: string;
  email?: string;
  /** group names from the token (OIDC `groups` claim), used for role mapping */
  groups: string[];
}

export interface IdentityProvider {
  /** URL-safe id, e.g. `corp-sso`; appears in /api/auth/<id>/start and /callback */
  id: string;
  /** label on the login page button: "Sign in with <displayName>" */
  displayName: string;
  /**
   * Where to send the browser. Implementations must use the authorization-code flow with PKCE
   * and bind `state` and `nonce` (the caller stores them in a short-lived httpOnly cookie).
   */
  beginSignIn(opts: { redirectUri: string; state: string; nonce: string; codeChallenge: string }): Promise<URL>;
  /**
   * Exchanges the callback for a verified identity: checks `state`, redeems the code with the
   * verifier, validates the ID token (issuer, audience, expiry, signature, nonce). Throws on any failure.
   */
  completeSignIn(opts: {
    callbackUrl: URL;
    redirectUri: string;
    expectedState: string;
    expectedNonce: string;
    codeVerifier: string;
  }): Promise<ExternalIdentity>;
  /** the role this identity gets, or null to refuse sign-in (not in any mapped group) */
  roleFor(identity: ExternalIdentity): Role | null;
}

const configured = new WeakMap<OidcSettings, IdentityProvider>();

/**
 * The identity providers the settings configure (today at most one OIDC provider), built once per
 * settings object so its discovery document is fetched once per process.
 */
export function identityProvidersFor(env: { oidc: OidcSettings | undefined }): IdentityProvider[] {
  if (!env.oidc) return [];
  let provider = configured.get(env.oidc);
  if (!provider) {
    provider = createOidcIdentityProvider(env.oidc);
    configured.set(env.oidc, provider);
  }
  return [provider];
}

export function findIdentityProvider(env: { oidc: OidcSettings | undefined }, id: string): IdentityProvider | undefined {
  return identityProvidersFor(env).find((p) => p.id === id);
}
