import { describe, expect, it } from 'vitest';
import { EnvError, parseEnv, type RawEnv } from './env';

function problemsOf(raw: RawEnv): readonly string[] {
  try {
    parseEnv(raw);
  } catch (err) {
    expect(err).toBeInstanceOf(EnvError);
    return (err as EnvError).problems;
  }
  throw new Error('parseEnv accepted the settings');
}

describe('parseEnv', () => {
  it('gives the documented defaults when nothing is set', () => {
    expect(parseEnv({})).toEqual({
      database: { kind: 'sqlite', file: 'data/fleetplan.db' },
      provider: { name: 'simulator' },
      schedulerEnabled: true,
      tickSeconds: 60,
      deliveryConcurrency: 4,
      simulatorSpeed: 60,
      metricsPublic: false,
      hsts: undefined,
      webhookAllowPrivate: false,
      trustProxy: false,
      demoLogin: undefined,
      adminPassword: undefined,
      seedDemo: true,
      demoClusters: undefined,
      oidc: undefined,
      publicUrl: undefined,
      updateService: undefined,
    });
  });

  it('reads every setting', () => {
    const env = parseEnv({
      DATABASE_URL: 'file:/tmp/x.db',
      FLEETPLAN_PROVIDER: 'ocm',
      FLEETPLAN_OCM_TOKEN: 'tok',
      FLEETPLAN_OCM_URL: 'https://ocm.example',
      FLEETPLAN_OCM_SEARCH: "name like 'prod-%'",
      FLEETPLAN_SCHEDULER: 'off',
      FLEETPLAN_TICK_SECONDS: '2.5',
      FLEETPLAN_DELIVERY_CONCURRENCY: '8',
      FLEETPLAN_SIM_SPEED: '0',
      FLEETPLAN_METRICS_PUBLIC: '1',
      FLEETPLAN_HSTS: '1',
      FLEETPLAN_WEBHOOK_ALLOW_PRIVATE: '1',
      FLEETPLAN_TRUST_PROXY: '1',
      FLEETPLAN_DEMO_LOGIN: '0',
      FLEETPLAN_ADMIN_PASSWORD: 'long enough password',
      FLEETPLAN_SEED_DEMO: '0',
      FLEETPLAN_DEMO_CLUSTERS: ' 10000 ',
    });
    expect(env).toEqual({
      database: { kind: 'sqlite', file: '/tmp/x.db' },
      provider: { name: 'ocm', auth: { kind: 'bearer', token: 'tok' }, url: 'https://ocm.example', search: "name like 'prod-%'" },
      schedulerEnabled: false,
      tickSeconds: 2.5,
      deliveryConcurrency: 8,
      simulatorSpeed: 0,
      metricsPublic: true,
      hsts: true,
      webhookAllowPrivate: true,
      trustProxy: true,
      demoLogin: false,
      adminPassword: 'long enough password',
      seedDemo: false,
      demoClusters: 10000,
    });
  });

  it('reads the kubernetes provider settings, falling back to KUBECONFIG and then HOME', () => {
    expect(parseEnv({ FLEETPLAN_PROVIDER: 'kubernetes', HOME: '/home/ada', FLEETPLAN_KUBE_CONTEXTS: 'a, b,,' }).provider).toEqual({
      name: 'kubernetes',
      kubeconfigPath: '/home/ada/.kube/config',
      contexts: ['a', 'b'],
    });
    expect(parseEnv({ FLEETPLAN_PROVIDER: 'kubernetes', KUBECONFIG: '/k', HOME: '/h' }).provider).toMatchObject({ kubeconfigPath: '/k' });
    expect(parseEnv({ FLEETPLAN_PROVIDER: 'kubernetes', FLEETPLAN_KUBECONFIG: '/f', KUBECONFIG: '/k' }).provider).toMatchObject({
      kubeconfigPath: '/f',
    });
  });

  it('treats an empty value as unset', () => {
    expect(parseEnv({ FLEETPLAN_TICK_SECONDS: '', FLEETPLAN_PROVIDER: '', FLEETPLAN_DEMO_LOGIN: '' })).toMatchObject({
      tickSeconds: 60,
      provider: { name: 'simulator' },
      demoLogin: undefined,
    });
  });

  it.each<[RawEnv, RegExp]>([
    [{ FLEETPLAN_TICK_SECONDS: 'abc' }, /^FLEETPLAN_TICK_SECONDS must be a number from 1 to 86400, not 'abc'$/],
    [{ FLEETPLAN_TICK_SECONDS: '0' }, /^FLEETPLAN_TICK_SECONDS .* not '0'$/],
    [{ FLEETPLAN_TICK_SECONDS: 'Infinity' }, /^FLEETPLAN_TICK_SECONDS /],
    [{ FLEETPLAN_TICK_SECONDS: '0x10' }, /^FLEETPLAN_TICK_SECONDS /],
    [{ FLEETPLAN_DELIVERY_CONCURRENCY: '0' }, /^FLEETPLAN_DELIVERY_CONCURRENCY must be a whole number from 1 to 64, not '0'$/],
    [{ FLEETPLAN_DELIVERY_CONCURRENCY: '2.5' }, /^FLEETPLAN_DELIVERY_CONCURRENCY must be a whole number/],
    [{ FLEETPLAN_SIM_SPEED: '-1' }, /^FLEETPLAN_SIM_SPEED must be a number from 0 to/],
    [{ FLEETPLAN_PROVIDER: 'aws' }, /^FLEETPLAN_PROVIDER must be one of simulator, ocm, kubernetes, not 'aws'$/],
    [{ FLEETPLAN_PROVIDER: 'ocm' }, /^FLEETPLAN_PROVIDER=ocm needs credentials: FLEETPLAN_OCM_OFFLINE_TOKEN, or/],
    [
      { FLEETPLAN_PROVIDER: 'ocm', FLEETPLAN_OCM_TOKEN: 't', FLEETPLAN_OCM_OFFLINE_TOKEN: 'o' },
      /^OCM credentials are given more than once/,
    ],
    [
      { FLEETPLAN_PROVIDER: 'ocm', FLEETPLAN_OCM_CLIENT_ID: 'svc' },
      /FLEETPLAN_OCM_CLIENT_ID and FLEETPLAN_OCM_CLIENT_SECRET are set together/,
    ],
    [
      { FLEETPLAN_PROVIDER: 'ocm', FLEETPLAN_OCM_TOKEN: 't', FLEETPLAN_OCM_URL: 'api.openshift.com' },
      /^FLEETPLAN_OCM_URL must be an http\(s\) URL/,
    ],
    [{ FLEETPLAN_PROVIDER: 'kubernetes' }, /^FLEETPLAN_KUBECONFIG \(or KUBECONFIG or HOME\) is required/],
    [{ FLEETPLAN_SCHEDULER: 'of' }, /^FLEETPLAN_SCHEDULER must be on or off, not 'of'$/],
    [{ FLEETPLAN_METRICS_PUBLIC: 'true' }, /^FLEETPLAN_METRICS_PUBLIC must be 1 or 0, not 'true'$/],
    [{ FLEETPLAN_WEBHOOK_ALLOW_PRIVATE: 'yes' }, /^FLEETPLAN_WEBHOOK_ALLOW_PRIVATE must be 1 or 0/],
    [{ FLEETPLAN_DEMO_LOGIN: 'off' }, /^FLEETPLAN_DEMO_LOGIN must be 1 or 0/],
    [{ FLEETPLAN_HSTS: 'yes' }, /^FLEETPLAN_HSTS must be 1 or 0, not 'yes'$/],
    [{ FLEETPLAN_SEED_DEMO: 'no' }, /^FLEETPLAN_SEED_DEMO must be 1 or 0/],
    [{ FLEETPLAN_DEMO_CLUSTERS: '2.5' }, /^FLEETPLAN_DEMO_CLUSTERS must be a whole number from 1 to 100000, not '2.5'$/],
    [
      { FLEETPLAN_ADMIN_PASSWORD: 'short' },
      /^FLEETPLAN_ADMIN_PASSWORD must have at least 12 characters besides leading and trailing spaces$/,
    ],
    [{ DATABASE_URL: 'mysql://db/x' }, /^DATABASE_URL 'mysql:\/\/db\/x' is not a SQLite location/],
    [{ DATABASE_URL: 'postgres://u:secret@[db/x' }, /^DATABASE_URL 'postgres:\/\/u:\*\*\*@\[db\/x' is not a valid PostgreSQL URL$/],
  ])('refuses %o, naming the variable', (raw, message) => {
    const problems = problemsOf(raw);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(message);
  });

  it('selects PostgreSQL for postgres:// and postgresql:// URLs, SQLite for anything else', () => {
    expect(parseEnv({ DATABASE_URL: 'postgres://fp@db:5432/fleet' }).database).toEqual({
      kind: 'postgres',
      url: 'postgres://fp@db:5432/fleet',
    });
    expect(parseEnv({ DATABASE_URL: 'postgresql://db/fleet' }).database).toEqual({ kind: 'postgres', url: 'postgresql://db/fleet' });
    expect(parseEnv({ DATABASE_URL: 'file:/var/lib/fp.db' }).database).toEqual({ kind: 'sqlite', file: '/var/lib/fp.db' });
    expect(parseEnv({}).database).toEqual({ kind: 'sqlite', file: 'data/fleetplan.db' });
  });

  it('lists every problem at once in the error message', () => {
    expect(() => parseEnv({ FLEETPLAN_TICK_SECONDS: 'abc', FLEETPLAN_PROVIDER: 'aws' })).toThrow(
      /^invalid configuration:\n {2}- FLEETPLAN_PROVIDER must be one of .*\n {2}- FLEETPLAN_TICK_SECONDS must be a number/,
    );
  });

  it('reads the OCM credentials: an offline token or a service account, exchanged at Red Hat SSO', () => {
    expect(parseEnv({ FLEETPLAN_PROVIDER: 'ocm', FLEETPLAN_OCM_OFFLINE_TOKEN: 'eyJ…' }).provider).toMatchObject({
      auth: {
        kind: 'offline-token',
        offlineToken: 'eyJ…',
        tokenUrl: 'https://sso.redhat.com/auth/realms/redhat-external/protocol/openid-connect/token',
      },
    });
    expect(
      parseEnv({
        FLEETPLAN_PROVIDER: 'ocm',
        FLEETPLAN_OCM_CLIENT_ID: 'svc',
        FLEETPLAN_OCM_CLIENT_SECRET: 'sec',
        FLEETPLAN_OCM_TOKEN_URL: 'https://sso.internal/token',
      }).provider,
    ).toMatchObject({ auth: { kind: 'service-account', clientId: 'svc', clientSecret: 'sec', tokenUrl: 'https://sso.internal/token' } });
  });

  it('reads the update service that refreshes the graphs, and refuses half of it', () => {
    expect(
      parseEnv({
        FLEETPLAN_UPDATE_SERVICE_URL: 'https://osus.example/api/upgrades_info/v1/graph',
        FLEETPLAN_UPDATE_SERVICE_CHANNELS: 'stable-4.16, eus-4.16',
      }).updateService,
    ).toEqual({
      url: 'https://osus.example/api/upgrades_info/v1/graph',
      channels: ['stable-4.16', 'eus-4.16'],
      arch: 'amd64',
      refreshHours: 6,
    });
    expect(problemsOf({ FLEETPLAN_UPDATE_SERVICE_URL: 'https://osus.example/graph' })).toEqual([
      'FLEETPLAN_UPDATE_SERVICE_CHANNELS is required with FLEETPLAN_UPDATE_SERVICE_URL (e.g. stable-4.16,eus-4.16)',
    ]);
    expect(problemsOf({ FLEETPLAN_UPDATE_SERVICE_URL: 'https://osus.example/graph', FLEETPLAN_UPDATE_SERVICE_CHANNELS: '4.16' })).toEqual([
      "FLEETPLAN_UPDATE_SERVICE_CHANNELS: '4.16' is not a channel such as stable-4.16",
    ]);
  });

  describe('OIDC sign-in settings', () => {
    const oidc = {
      FLEETPLAN_OIDC_ISSUER: 'https://sso.example.com/realms/ops',
      FLEETPLAN_OIDC_CLIENT_ID: 'fleetplan',
      FLEETPLAN_OIDC_ROLE_GROUPS: 'admin=fleet-admins;viewer=*',
    };

    it('reads them with their defaults', () => {
      const { oidc: settings, publicUrl } = parseEnv({ ...oidc, FLEETPLAN_PUBLIC_URL: 'https://fleetplan.example.com/' });
      expect(settings).toMatchObject({
        id: 'sso',
        displayName: 'single sign-on',
        issuer: 'https://sso.example.com/realms/ops',
        clientId: 'fleetplan',
        clientSecret: undefined,
        scopes: ['openid', 'profile', 'email'],
        groupsClaim: 'groups',
      });
      expect([...settings!.roleGroups.keys()]).toEqual(['admin', 'viewer']);
      expect(settings!.organizationRoleGroups.size).toBe(0);
      expect(publicUrl).toBe('https://fleetplan.example.com');
    });

    it("reads the organizations' group mappings for start-up", () => {
      const { oidc: settings } = parseEnv({ ...oidc, FLEETPLAN_OIDC_ORG_ROLE_GROUPS: 'team-a:operator=team-a|team-b:admin=b,c;viewer=*' });
      expect([...settings!.organizationRoleGroups]).toEqual([
        ['team-a', 'operator=team-a'],
        ['team-b', 'admin=b,c;viewer=*'],
      ]);
    });

    it.each<[RawEnv, RegExp]>([
      [{ FLEETPLAN_OIDC_CLIENT_ID: 'x' }, /FLEETPLAN_OIDC_ISSUER is required/],
      [{ ...oidc, FLEETPLAN_OIDC_CLIENT_ID: '' }, /FLEETPLAN_OIDC_CLIENT_ID is required/],
      [{ ...oidc, FLEETPLAN_OIDC_ROLE_GROUPS: '' }, /FLEETPLAN_OIDC_ROLE_GROUPS is required/],
      [{ ...oidc, FLEETPLAN_OIDC_ROLE_GROUPS: 'boss=ops' }, /FLEETPLAN_OIDC_ROLE_GROUPS: 'boss' is not a role/],
      [{ FLEETPLAN_OIDC_ORG_ROLE_GROUPS: 'team-a:viewer=*' }, /FLEETPLAN_OIDC_ISSUER is required/],
      [{ ...oidc, FLEETPLAN_OIDC_ORG_ROLE_GROUPS: 'team-a:boss=ops' }, /FLEETPLAN_OIDC_ORG_ROLE_GROUPS: team-a: 'boss' is not a role/],
      [{ ...oidc, FLEETPLAN_OIDC_ORG_ROLE_GROUPS: 'admin=ops' }, /FLEETPLAN_OIDC_ORG_ROLE_GROUPS: 'admin=ops' is not ORGANIZATION:/],
      [{ ...oidc, FLEETPLAN_OIDC_ISSUER: 'http://sso.example.com' }, /must be https \(http only on loopback\)/],
      [{ ...oidc, FLEETPLAN_OIDC_SCOPES: 'profile email' }, /must include openid/],
      [{ ...oidc, FLEETPLAN_OIDC_ID: 'Corp SSO' }, /FLEETPLAN_OIDC_ID must be/],
      [{ FLEETPLAN_PUBLIC_URL: 'https://fleetplan.example.com/app' }, /FLEETPLAN_PUBLIC_URL must be an http\(s\) origin/],
    ])('refuses %j', (raw, message) => {
      expect(problemsOf(raw).join('\n')).toMatch(message);
    });

    it('accepts a plain-http issuer on loopback only (a provider started by a test)', () => {
      expect(parseEnv({ ...oidc, FLEETPLAN_OIDC_ISSUER: 'http://127.0.0.1:4700' }).oidc?.issuer).toBe('http://127.0.0.1:4700');
    });
  });
});
