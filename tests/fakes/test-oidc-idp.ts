// A real OpenID Connect provider for the sign-in tests: panva's `oidc-provider` (a certified OP
// implementation), on loopback, with one confidential client and an interaction step that signs in
// whichever account the test chose (instead of a login form):
//   POST /_test/login-as {"sub", "preferred_username"?, "email"?, "groups"?}  the next sign-in's account
//   POST /_test/refuse {"error", "error_description"}                         the next sign-in is refused
//   GET  /_test/token-requests                                                 code redemptions so far
// Everything else is the provider itself (discovery, authorize, token with PKCE, JWKS, userinfo).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider, { type Configuration } from 'oidc-provider';

export interface TestAccount {
  sub: string;
  preferred_username?: string;
  email?: string;
  groups?: string[];
}

export interface TestIdp {
  issuer: string;
  port: number;
  clientId: string;
  clientSecret: string;
  loginAs(account: TestAccount): void;
  refuseNext(error: string, description: string): void;
  tokenRequests(): number;
  close(): Promise<void>;
}

export async function startTestIdp(opts: { port?: number; redirectUris: string[] }): Promise<TestIdp> {
  const clientId = 'fleetplan';
  const clientSecret = 'test-client-secret-not-for-production';
  let account: TestAccount = { sub: 'user-1', preferred_username: 'alice', email: 'alice@example.test', groups: ['sre'] };
  let refusal: { error: string; error_description: string } | null = null;
  let tokenRequests = 0;

  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const issuer = `http://127.0.0.1:${port}`;

  const configuration: Configuration = {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: opts.redirectUris,
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    pkce: { required: () => true },
    scopes: ['openid', 'profile', 'email', 'groups'],
    claims: { openid: ['sub'], profile: ['preferred_username'], email: ['email'], groups: ['groups'] },
    findAccount: (_ctx, id) => ({
      accountId: id,
      claims: () => ({ sub: id, preferred_username: account.preferred_username, email: account.email, groups: account.groups }),
    }),
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    cookies: { keys: ['test-cookie-key-not-for-production'] },
    ttl: { Interaction: 600, Session: 3600, Grant: 3600, AccessToken: 600, IdToken: 600, AuthorizationCode: 60 },
  };
  const provider = new Provider(issuer, configuration);
  provider.on('grant.success', () => tokenRequests++);
  const callback = provider.callback();

  async function interact(req: http.IncomingMessage, res: http.ServerResponse) {
    const details = await provider.interactionDetails(req, res);
    if (refusal) {
      const result = refusal;
      refusal = null;
      return provider.interactionFinished(req, res, result, { mergeWithLastSubmission: false });
    }
    if (details.prompt.name === 'login') {
      return provider.interactionFinished(req, res, { login: { accountId: account.sub } }, { mergeWithLastSubmission: false });
    }
    const grant = new provider.Grant({ accountId: details.session!.accountId, clientId: String(details.params.client_id) });
    grant.addOIDCScope(String(details.params.scope));
    const grantId = await grant.save();
    return provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
  }

  function readJson(req: http.IncomingMessage): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        try {
          resolve(JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}'));
        } catch (err) {
          reject(err instanceof Error ? err : new Error(String(err)));
        }
      });
    });
  }

  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    const path = (req.url ?? '/').split('?')[0]!;
    const fail = (err: unknown) => {
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(String(err));
    };
    if (path.startsWith('/interaction/')) return void interact(req, res).catch(fail);
    if (path === '/_test/login-as' && req.method === 'POST')
      return void readJson(req)
        .then((body) => {
          account = body as TestAccount;
          res.end('{}');
        })
        .catch(fail);
    if (path === '/_test/refuse' && req.method === 'POST')
      return void readJson(req)
        .then((body) => {
          refusal = body as { error: string; error_description: string };
          res.end('{}');
        })
        .catch(fail);
    if (path === '/_test/token-requests') return void res.end(JSON.stringify({ count: tokenRequests }));
    return void callback(req, res);
  });

  return {
    issuer,
    port,
    clientId,
    clientSecret,
    loginAs: (a) => (account = a),
    refuseNext: (error, description) => (refusal = { error, error_description: description }),
    tokenRequests: () => tokenRequests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * The app's settings for signing in through `idp` as the provider `corp` ("Corp SSO"), with the
 * global group → role mapping `roleGroups` (FLEETPLAN_OIDC_ROLE_GROUPS); for parseEnv.
 */
export function corpOidcSettings(idp: TestIdp, roleGroups: string): Record<string, string> {
  return {
    FLEETPLAN_OIDC_ID: 'corp',
    FLEETPLAN_OIDC_NAME: 'Corp SSO',
    FLEETPLAN_OIDC_ISSUER: idp.issuer,
    FLEETPLAN_OIDC_CLIENT_ID: idp.clientId,
    FLEETPLAN_OIDC_CLIENT_SECRET: idp.clientSecret,
    FLEETPLAN_OIDC_SCOPES: 'openid profile email groups',
    FLEETPLAN_OIDC_ROLE_GROUPS: roleGroups,
  };
}
