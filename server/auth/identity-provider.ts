// Seam for external sign-in (OIDC, later perhaps SAML/LDAP). Nothing implements it yet; local
// users are the only provider. See server/auth/README.md "Adding an OIDC provider".
import type { Role } from './actor';

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

const providers = new Map<string, IdentityProvider>();

/** Called once at start-up by whatever configures providers (env or the admin page, later). */
export function registerIdentityProvider(provider: IdentityProvider): void {
  if (!/^[a-z0-9-]{1,40}$/.test(provider.id)) throw new Error(`identity provider id '${provider.id}' must be [a-z0-9-]{1,40}`);
  providers.set(provider.id, provider);
}

export function listIdentityProviders(): IdentityProvider[] {
  return [...providers.values()];
}

export function findIdentityProvider(id: string): IdentityProvider | undefined {
  return providers.get(id);
}
