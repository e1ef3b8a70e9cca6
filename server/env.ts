/**
 * The app's settings from environment variables, read and checked in this one place. A value that
 * does not parse stops start-up with a message naming the variable (before this module,
 * FLEETPLAN_TICK_SECONDS=abc silently meant 60 and a typo in FLEETPLAN_SCHEDULER meant "on").
 * `getEnv()` parses `process.env` once per process; the composition roots (tRPC context, scheduler,
 * start-up) pass the parsed settings on, and tests build their own with `parseEnv({...})`.
 */
import { parseDatabaseUrl, type DatabaseLocation } from '@/db/database-location';
import { parseOrganizationRoleGroups, parseRoleGroups, type RoleGroups } from '@/server/auth/oidc/role-mapping';
import { passwordProblem } from '@/server/auth/password-policy';
import { parseSecretKey, type SecretKey } from '@/server/crypto/secret-box';
import { DEFAULT_OCM_TOKEN_URL, type OcmAuth } from '@/server/integrations/providers/ocm-auth';

export const PROVIDER_NAMES = ['simulator', 'ocm', 'kubernetes'] as const;
export type ProviderName = (typeof PROVIDER_NAMES)[number];

export const DEFAULT_TICK_SECONDS = 60;
export const DEFAULT_DELIVERY_CONCURRENCY = 4;
const MAX_DELIVERY_CONCURRENCY = 64;
/** simulated seconds per real second when nothing else is configured: a day in 24 real minutes */
export const DEFAULT_SIMULATOR_SPEED = 60;
export const DEFAULT_OCM_URL = 'https://api.openshift.com';
const MAX_TICK_SECONDS = 86_400;
const MAX_SIMULATOR_SPEED = 1_000_000;
/** FLEETPLAN_DEMO_CLUSTERS and `npm run db:seed -- --clusters N` */
export const MAX_DEMO_CLUSTERS = 100_000;

export type ProviderSettings =
  | { name: 'simulator' }
  | { name: 'ocm'; url: string; auth: OcmAuth; search: string | undefined }
  | { name: 'kubernetes'; kubeconfigPath: string; contexts: string[] | undefined };

/** Sign-in with the team's OpenID Connect provider (authorization code + PKCE), beside local users. */
export interface OidcSettings {
  /** FLEETPLAN_OIDC_ID (default `sso`): in /api/auth/<id>/start and the users it creates (`<id>:<subject>`) */
  id: string;
  /** FLEETPLAN_OIDC_NAME (default "single sign-on"): the login button says "Sign in with <name>" */
  displayName: string;
  /** FLEETPLAN_OIDC_ISSUER: https (http only on loopback, for tests) */
  issuer: string;
  /** FLEETPLAN_OIDC_CLIENT_ID */
  clientId: string;
  /** FLEETPLAN_OIDC_CLIENT_SECRET; unset = a public client (PKCE alone) */
  clientSecret: string | undefined;
  /** FLEETPLAN_OIDC_SCOPES (default `openid profile email`; add `groups` where the provider needs it) */
  scopes: string[];
  /** FLEETPLAN_OIDC_GROUPS_CLAIM (default `groups`): the ID token / userinfo claim holding the groups */
  groupsClaim: string;
  /** FLEETPLAN_OIDC_ROLE_GROUPS, e.g. `admin=fleet-admins;operator=sre;viewer=*` (server/auth/oidc/role-mapping.ts) */
  roleGroups: RoleGroups;
  /**
   * FLEETPLAN_OIDC_ORG_ROLE_GROUPS, e.g. `team-a:operator=team-a;viewer=staff|team-b:admin=b-admins`:
   * organizations' group mappings (organization name → mapping text) written into the database at
   * start-up, for automation; empty when unset (admins set them on the Admin page or with
   * `fleetplan org groups`)
   */
  organizationRoleGroups: ReadonlyMap<string, string>;
}

/** Update graphs read from a Cincinnati-compatible endpoint on a schedule (beside uploads). */
export interface UpdateServiceSettings {
  /** FLEETPLAN_UPDATE_SERVICE_URL, e.g. https://api.openshift.com/api/upgrades_info/v1/graph or an OSUS route */
  url: string;
  /** FLEETPLAN_UPDATE_SERVICE_CHANNELS, comma-separated (e.g. `stable-4.16,eus-4.16`) */
  channels: string[];
  /** FLEETPLAN_UPDATE_SERVICE_ARCH (default amd64) */
  arch: string;
  /** FLEETPLAN_UPDATE_SERVICE_REFRESH_HOURS (default 6) */
  refreshHours: number;
}

export interface FleetplanEnv {
  /** DATABASE_URL: a SQLite file (or ':memory:'), or `postgres://…` for PostgreSQL (several replicas) */
  database: DatabaseLocation;
  /** FLEETPLAN_PROVIDER and the provider's own settings */
  provider: ProviderSettings;
  /** FLEETPLAN_SCHEDULER (on | off) */
  schedulerEnabled: boolean;
  /** FLEETPLAN_TICK_SECONDS */
  tickSeconds: number;
  /** FLEETPLAN_DELIVERY_CONCURRENCY: webhook deliveries and hook calls sent at the same time per process */
  deliveryConcurrency: number;
  /** FLEETPLAN_SIM_SPEED: simulated seconds per real second when the simulator's clock is created */
  simulatorSpeed: number;
  /** FLEETPLAN_METRICS_PUBLIC=1: /api/metrics without a token or session */
  metricsPublic: boolean;
  /**
   * FLEETPLAN_HSTS: true (1) always / false (0) never send Strict-Transport-Security; undefined = when
   * the request came over https. proxy.ts reads the variable itself (it must not load server
   * modules), so it is checked here to make a bad value stop start-up.
   */
  hsts: boolean | undefined;
  /** FLEETPLAN_WEBHOOK_ALLOW_PRIVATE=1: webhooks may target private and loopback addresses */
  webhookAllowPrivate: boolean;
  /** FLEETPLAN_TRUST_PROXY=1: a reverse proxy appends the client's address to X-Forwarded-For (sign-in throttling) */
  trustProxy: boolean;
  /** FLEETPLAN_SECRET_KEY (32 bytes, hex or base64): encrypts webhook secrets; unset = `<database>.key` (SQLite; required with PostgreSQL) */
  secretKey: SecretKey | undefined;
  /** FLEETPLAN_DEMO_LOGIN: true (1) / false (0) override the database's switch; undefined = as stored */
  demoLogin: boolean | undefined;
  /** FLEETPLAN_ADMIN_PASSWORD: the first admin's password (else a random one is printed once) */
  adminPassword: string | undefined;
  /** FLEETPLAN_SEED_DEMO (default 1): seed the demo fleet into an empty database at start-up */
  seedDemo: boolean;
  /** FLEETPLAN_DEMO_CLUSTERS: size of the demo fleet seeded at start-up; undefined = the default demo */
  demoClusters: number | undefined;
  /** FLEETPLAN_OIDC_*; undefined = local users only */
  oidc: OidcSettings | undefined;
  /** FLEETPLAN_PUBLIC_URL: where users reach fleetplan (the OIDC redirect URI); undefined = the request's own origin */
  publicUrl: string | undefined;
  /** FLEETPLAN_UPDATE_SERVICE_*; undefined = graphs are uploaded by hand only */
  updateService: UpdateServiceSettings | undefined;
}

export type RawEnv = Readonly<Record<string, string | undefined>>;

/** Thrown by parseEnv; the message names every variable that is wrong, one per line. */
export class EnvError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'EnvError';
  }
}

/** Parses and checks every setting; throws EnvError listing all problems at once. */
export function parseEnv(raw: RawEnv): FleetplanEnv {
  const problems: string[] = [];
  // unset and empty mean the same (an empty `FOO=` in a unit file or .env)
  const get = (name: string): string | undefined => {
    const v = raw[name]?.trim();
    return v === undefined || v === '' ? undefined : v;
  };
  const flag = (name: string, fallback: boolean, on = '1', off = '0'): boolean => {
    const v = get(name);
    if (v === undefined) return fallback;
    if (v === on) return true;
    if (v === off) return false;
    problems.push(`${name} must be ${on} or ${off}, not '${v}'`);
    return fallback;
  };
  const number = (name: string, fallback: number, min: number, max: number, integer = false): number => {
    const v = get(name);
    if (v === undefined) return fallback;
    const n = Number(v);
    if (!/^[0-9.eE+-]+$/.test(v) || !Number.isFinite(n) || n < min || n > max || (integer && !Number.isInteger(n))) {
      problems.push(`${name} must be a ${integer ? 'whole number' : 'number'} from ${min} to ${max}, not '${v}'`);
      return fallback;
    }
    return n;
  };

  let database: DatabaseLocation = { kind: 'sqlite', file: ':memory:' };
  try {
    database = parseDatabaseUrl(get('DATABASE_URL'));
  } catch (err) {
    problems.push((err as Error).message);
  }

  const providerName = get('FLEETPLAN_PROVIDER') ?? 'simulator';
  let provider: ProviderSettings = { name: 'simulator' };
  if (!(PROVIDER_NAMES as readonly string[]).includes(providerName)) {
    problems.push(`FLEETPLAN_PROVIDER must be one of ${PROVIDER_NAMES.join(', ')}, not '${providerName}'`);
  } else if (providerName === 'ocm') {
    const url = get('FLEETPLAN_OCM_URL') ?? DEFAULT_OCM_URL;
    if (!/^https?:\/\/[^/\s]+/.test(url) || !URL.canParse(url)) problems.push(`FLEETPLAN_OCM_URL must be an http(s) URL, not '${url}'`);
    provider = { name: 'ocm', url, auth: parseOcmAuth(get, problems), search: get('FLEETPLAN_OCM_SEARCH') };
  } else if (providerName === 'kubernetes') {
    const home = get('HOME');
    const kubeconfigPath = get('FLEETPLAN_KUBECONFIG') ?? get('KUBECONFIG') ?? (home === undefined ? undefined : `${home}/.kube/config`);
    if (kubeconfigPath === undefined)
      problems.push('FLEETPLAN_KUBECONFIG (or KUBECONFIG or HOME) is required with FLEETPLAN_PROVIDER=kubernetes');
    const contexts = get('FLEETPLAN_KUBE_CONTEXTS')
      ?.split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    provider = { name: 'kubernetes', kubeconfigPath: kubeconfigPath ?? '', contexts: contexts?.length ? contexts : undefined };
  }

  const adminPassword = raw.FLEETPLAN_ADMIN_PASSWORD === '' ? undefined : raw.FLEETPLAN_ADMIN_PASSWORD;
  const adminPasswordProblem = adminPassword === undefined ? null : passwordProblem(adminPassword, 'admin');
  if (adminPasswordProblem) problems.push(`FLEETPLAN_ADMIN_PASSWORD ${adminPasswordProblem}`);

  let secretKey: SecretKey | undefined;
  const secretKeyText = get('FLEETPLAN_SECRET_KEY');
  if (secretKeyText !== undefined) {
    try {
      secretKey = parseSecretKey(secretKeyText, 'FLEETPLAN_SECRET_KEY');
    } catch (err) {
      problems.push((err as Error).message);
    }
  }

  const oidc = parseOidc(get, problems);
  const publicUrl = get('FLEETPLAN_PUBLIC_URL')?.replace(/\/+$/, '');
  if (publicUrl !== undefined && !/^https?:\/\/[^/\s]+$/.test(publicUrl))
    problems.push(`FLEETPLAN_PUBLIC_URL must be an http(s) origin such as https://fleetplan.example.com, not '${publicUrl}'`);

  let updateService: UpdateServiceSettings | undefined;
  const updateServiceUrl = get('FLEETPLAN_UPDATE_SERVICE_URL');
  const channels = get('FLEETPLAN_UPDATE_SERVICE_CHANNELS')
    ?.split(',')
    .map((c) => c.trim())
    .filter(Boolean);
  if (updateServiceUrl !== undefined) {
    if (!/^https?:\/\/[^/\s]+/.test(updateServiceUrl) || !URL.canParse(updateServiceUrl))
      problems.push(`FLEETPLAN_UPDATE_SERVICE_URL must be an http(s) URL, not '${updateServiceUrl}'`);
    if (!channels?.length)
      problems.push('FLEETPLAN_UPDATE_SERVICE_CHANNELS is required with FLEETPLAN_UPDATE_SERVICE_URL (e.g. stable-4.16,eus-4.16)');
    const badChannel = channels?.find((c) => !/^[a-z]+-\d+\.\d+$/.test(c));
    if (badChannel) problems.push(`FLEETPLAN_UPDATE_SERVICE_CHANNELS: '${badChannel}' is not a channel such as stable-4.16`);
    const arch = get('FLEETPLAN_UPDATE_SERVICE_ARCH') ?? 'amd64';
    if (!/^[a-z0-9_]+$/.test(arch)) problems.push(`FLEETPLAN_UPDATE_SERVICE_ARCH must be an architecture such as amd64, not '${arch}'`);
    updateService = {
      url: updateServiceUrl,
      channels: channels ?? [],
      arch,
      refreshHours: number('FLEETPLAN_UPDATE_SERVICE_REFRESH_HOURS', 6, 0.1, 168),
    };
  } else if (channels !== undefined) problems.push('FLEETPLAN_UPDATE_SERVICE_URL is required with FLEETPLAN_UPDATE_SERVICE_CHANNELS');

  const demoLoginRaw = get('FLEETPLAN_DEMO_LOGIN');
  const env: FleetplanEnv = {
    database,
    provider,
    schedulerEnabled: flag('FLEETPLAN_SCHEDULER', true, 'on', 'off'),
    tickSeconds: number('FLEETPLAN_TICK_SECONDS', DEFAULT_TICK_SECONDS, 1, MAX_TICK_SECONDS),
    deliveryConcurrency: number('FLEETPLAN_DELIVERY_CONCURRENCY', DEFAULT_DELIVERY_CONCURRENCY, 1, MAX_DELIVERY_CONCURRENCY, true),
    simulatorSpeed: number('FLEETPLAN_SIM_SPEED', DEFAULT_SIMULATOR_SPEED, 0, MAX_SIMULATOR_SPEED),
    metricsPublic: flag('FLEETPLAN_METRICS_PUBLIC', false),
    hsts: get('FLEETPLAN_HSTS') === undefined ? undefined : flag('FLEETPLAN_HSTS', false),
    webhookAllowPrivate: flag('FLEETPLAN_WEBHOOK_ALLOW_PRIVATE', false),
    trustProxy: flag('FLEETPLAN_TRUST_PROXY', false),
    secretKey,
    demoLogin: demoLoginRaw === undefined ? undefined : flag('FLEETPLAN_DEMO_LOGIN', false),
    adminPassword,
    seedDemo: flag('FLEETPLAN_SEED_DEMO', true),
    demoClusters:
      get('FLEETPLAN_DEMO_CLUSTERS') === undefined ? undefined : number('FLEETPLAN_DEMO_CLUSTERS', 1, 1, MAX_DEMO_CLUSTERS, true),
    oidc,
    publicUrl,
    updateService,
  };
  if (problems.length > 0) throw new EnvError(problems);
  return env;
}

/**
 * OCM credentials: exactly one of a fixed token (FLEETPLAN_OCM_TOKEN), an offline token exchanged
 * at Red Hat SSO (FLEETPLAN_OCM_OFFLINE_TOKEN, as `ocm login --token`), or a service account
 * (FLEETPLAN_OCM_CLIENT_ID + FLEETPLAN_OCM_CLIENT_SECRET); FLEETPLAN_OCM_TOKEN_URL overrides SSO.
 */
function parseOcmAuth(get: (name: string) => string | undefined, problems: string[]): OcmAuth {
  const token = get('FLEETPLAN_OCM_TOKEN');
  const offlineToken = get('FLEETPLAN_OCM_OFFLINE_TOKEN');
  const clientId = get('FLEETPLAN_OCM_CLIENT_ID');
  const clientSecret = get('FLEETPLAN_OCM_CLIENT_SECRET');
  const tokenUrl = get('FLEETPLAN_OCM_TOKEN_URL') ?? DEFAULT_OCM_TOKEN_URL;
  if (!/^https?:\/\/[^/\s]+/.test(tokenUrl) || !URL.canParse(tokenUrl))
    problems.push(`FLEETPLAN_OCM_TOKEN_URL must be an http(s) URL, not '${tokenUrl}'`);
  const given = [
    token && 'FLEETPLAN_OCM_TOKEN',
    offlineToken && 'FLEETPLAN_OCM_OFFLINE_TOKEN',
    (clientId || clientSecret) && 'FLEETPLAN_OCM_CLIENT_ID/_SECRET',
  ].filter(Boolean);
  if (given.length === 0)
    problems.push(
      'FLEETPLAN_PROVIDER=ocm needs credentials: FLEETPLAN_OCM_OFFLINE_TOKEN, or FLEETPLAN_OCM_CLIENT_ID and FLEETPLAN_OCM_CLIENT_SECRET (a service account), or FLEETPLAN_OCM_TOKEN',
    );
  if (given.length > 1) problems.push(`OCM credentials are given more than once (${given.join(', ')}): set one kind`);
  if ((clientId === undefined) !== (clientSecret === undefined))
    problems.push('FLEETPLAN_OCM_CLIENT_ID and FLEETPLAN_OCM_CLIENT_SECRET are set together (a service account)');
  if (offlineToken !== undefined) return { kind: 'offline-token', offlineToken, tokenUrl };
  if (clientId !== undefined && clientSecret !== undefined) return { kind: 'service-account', clientId, clientSecret, tokenUrl };
  return { kind: 'bearer', token: token ?? '' };
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** FLEETPLAN_OIDC_*: all or nothing — an issuer without a client or a role mapping is a mistake, not "off". */
function parseOidc(get: (name: string) => string | undefined, problems: string[]): OidcSettings | undefined {
  const issuer = get('FLEETPLAN_OIDC_ISSUER');
  const clientId = get('FLEETPLAN_OIDC_CLIENT_ID');
  const roleGroupsText = get('FLEETPLAN_OIDC_ROLE_GROUPS');
  const organizationRoleGroupsText = get('FLEETPLAN_OIDC_ORG_ROLE_GROUPS');
  if (issuer === undefined) {
    if (clientId !== undefined || roleGroupsText !== undefined || organizationRoleGroupsText !== undefined)
      problems.push(
        'FLEETPLAN_OIDC_ISSUER is required when FLEETPLAN_OIDC_CLIENT_ID, FLEETPLAN_OIDC_ROLE_GROUPS or FLEETPLAN_OIDC_ORG_ROLE_GROUPS is set',
      );
    return undefined;
  }
  const before = problems.length;
  let url: URL | undefined;
  try {
    url = new URL(issuer);
  } catch {
    problems.push(`FLEETPLAN_OIDC_ISSUER must be a URL, not '${issuer}'`);
  }
  if (url && url.protocol !== 'https:' && !(url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname)))
    problems.push(`FLEETPLAN_OIDC_ISSUER must be https (http only on loopback), not '${issuer}'`);
  if (clientId === undefined) problems.push('FLEETPLAN_OIDC_CLIENT_ID is required with FLEETPLAN_OIDC_ISSUER');
  let roleGroups: RoleGroups | undefined;
  if (roleGroupsText === undefined)
    problems.push('FLEETPLAN_OIDC_ROLE_GROUPS is required with FLEETPLAN_OIDC_ISSUER (e.g. admin=fleet-admins;operator=sre;viewer=*)');
  else {
    try {
      roleGroups = parseRoleGroups(roleGroupsText);
    } catch (err) {
      problems.push(`FLEETPLAN_OIDC_ROLE_GROUPS: ${(err as Error).message}`);
    }
  }
  let organizationRoleGroups: ReadonlyMap<string, string> = new Map();
  if (organizationRoleGroupsText !== undefined) {
    try {
      organizationRoleGroups = parseOrganizationRoleGroups(organizationRoleGroupsText);
    } catch (err) {
      problems.push(
        `FLEETPLAN_OIDC_ORG_ROLE_GROUPS: ${(err as Error).message} (e.g. team-a:operator=team-a;viewer=staff|team-b:admin=b-admins)`,
      );
    }
  }
  const id = get('FLEETPLAN_OIDC_ID') ?? 'sso';
  if (!/^[a-z0-9-]{1,40}$/.test(id)) problems.push(`FLEETPLAN_OIDC_ID must be 1–40 of a-z, 0-9 and '-', not '${id}'`);
  const scopes = (get('FLEETPLAN_OIDC_SCOPES') ?? 'openid profile email').split(/\s+/).filter(Boolean);
  if (!scopes.includes('openid')) problems.push(`FLEETPLAN_OIDC_SCOPES must include openid, not '${scopes.join(' ')}'`);
  if (problems.length > before || clientId === undefined || roleGroups === undefined) return undefined;
  return {
    id,
    displayName: get('FLEETPLAN_OIDC_NAME') ?? 'single sign-on',
    issuer,
    clientId,
    clientSecret: get('FLEETPLAN_OIDC_CLIENT_SECRET'),
    scopes,
    groupsClaim: get('FLEETPLAN_OIDC_GROUPS_CLAIM') ?? 'groups',
    roleGroups,
    organizationRoleGroups,
  };
}

const processEnv = globalThis as unknown as { __fleetplanEnv?: FleetplanEnv };

/** This process's settings, parsed from process.env on first use (throws EnvError when invalid). */
export function getEnv(): FleetplanEnv {
  processEnv.__fleetplanEnv ??= parseEnv(process.env);
  return processEnv.__fleetplanEnv;
}
