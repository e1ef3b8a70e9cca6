// The team's OpenID Connect provider as an IdentityProvider, on openid-client (a certified relying
// party library: discovery, PKCE, ID token validation of issuer, audience, expiry, signature and
// nonce). Authorization code flow with PKCE (S256) always, a client secret when one is configured.
import * as client from 'openid-client';
import type { OidcSettings } from '@/server/env';
import type { ExternalIdentity, IdentityProvider } from '../identity-provider';
import { roleForGroups } from './role-mapping';

/** seconds for discovery, token and userinfo requests: a hung provider must not hold a sign-in open */
const PROVIDER_TIMEOUT_SECONDS = 10;

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

export function createOidcIdentityProvider(settings: OidcSettings): IdentityProvider {
  let configuration: Promise<client.Configuration> | null = null;

  /** discovered once; a failed discovery is tried again by the next sign-in */
  function configure(): Promise<client.Configuration> {
    configuration ??= discover().catch((err: unknown) => {
      configuration = null;
      throw new Error(`the OIDC provider ${settings.issuer} could not be reached or read (${describe(err)})`, { cause: err });
    });
    return configuration;
  }

  async function discover(): Promise<client.Configuration> {
    const issuer = new URL(settings.issuer);
    const config = await client.discovery(
      issuer,
      settings.clientId,
      settings.clientSecret,
      settings.clientSecret === undefined ? client.None() : undefined,
      {
        timeout: PROVIDER_TIMEOUT_SECONDS,
        // env.ts accepts http only for loopback issuers (a provider started by a test)
        execute: issuer.protocol === 'http:' && LOOPBACK.has(issuer.hostname) ? [client.allowInsecureRequests] : [],
      },
    );
    config.timeout = PROVIDER_TIMEOUT_SECONDS;
    return config;
  }

  return {
    id: settings.id,
    displayName: settings.displayName,

    async beginSignIn({ redirectUri, state, nonce, codeChallenge }) {
      const config = await configure();
      return client.buildAuthorizationUrl(config, {
        redirect_uri: redirectUri,
        scope: settings.scopes.join(' '),
        state,
        nonce,
        code_challenge: codeChallenge,
        code_challenge_method: 'S256',
      });
    },

    async completeSignIn({ callbackUrl, redirectUri, expectedState, expectedNonce, codeVerifier }) {
      const config = await configure();
      // the redirect URI the provider knows, with the callback's parameters: behind a proxy the
      // request's own URL may name an internal host
      const current = new URL(redirectUri);
      current.search = callbackUrl.search;
      const tokens = await client.authorizationCodeGrant(
        config,
        current,
        { pkceCodeVerifier: codeVerifier, expectedState, expectedNonce, idTokenExpected: true },
        { redirect_uri: redirectUri },
      );
      const claims = tokens.claims();
      if (!claims) throw new Error('the provider returned no ID token');
      let groups = groupsFrom(claims[settings.groupsClaim]);
      let profile: Record<string, unknown> = claims;
      // many providers put groups only into userinfo (or only when asked for a scope)
      if (groups === null) {
        const userInfo = await client.fetchUserInfo(config, tokens.access_token, claims.sub);
        groups = groupsFrom(userInfo[settings.groupsClaim]);
        profile = { ...userInfo, ...claims };
      }
      return identityFrom(claims.sub, profile, groups ?? []);
    },

    roleFor(identity: ExternalIdentity) {
      return roleForGroups(settings.roleGroups, identity.groups);
    },
  };
}

function groupsFrom(value: unknown): string[] | null {
  if (Array.isArray(value)) return value.filter((g): g is string => typeof g === 'string');
  if (typeof value === 'string') return [value];
  return null;
}

const USERNAME_CHARS = /[^A-Za-z0-9._@-]/g;

function identityFrom(subject: string, profile: Record<string, unknown>, groups: string[]): ExternalIdentity {
  const text = (v: unknown) => (typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined);
  const email = text(profile.email);
  const preferred = text(profile.preferred_username) ?? email?.split('@')[0] ?? subject;
  const username = preferred.replace(USERNAME_CHARS, '-').slice(0, 48) || 'user';
  return { subject, username, email, groups };
}

function describe(err: unknown): string {
  if (err instanceof Error) return err.cause instanceof Error ? `${err.message}: ${err.cause.message}` : err.message;
  return String(err);
}
