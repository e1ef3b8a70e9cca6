// First run without the demo: what the admin needs to bring a real fleet in, in the order they
// do it — name the organization, check that the configured provider answers, import the
// policies (policies.importOrganization) — and how far they are. The provider is the one the
// settings name (FLEETPLAN_PROVIDER and its credentials, server/env.ts); testing it only reads.
import type { Db } from '@/db/open-database';
import type { FleetplanEnv, ProviderSettings } from '@/server/env';
import { createProvider, providerForOrganization } from '@/server/integrations/providers/create-provider';
import { ProviderError, type FleetProvider } from '@/server/integrations/providers/types';
import { readSnapshotObservedAt } from '@/server/repositories/decision-repository';
import { findFirstOrganization, organizationContents } from '@/server/repositories/organization-repository';
import { organizationScope, type OrganizationScope } from './organization-scope';
import { createOrganizationAdminService, UNNAMED_ORGANIZATION } from './organization-admin-service';

/** The connection test under way per database (one per process and installation). */
const testsInFlight = new WeakMap<Db['$client'], Promise<ConnectionTest>>();
/** databases whose connection test's provider read is still under way (it may outlive the test) */
const stillReading = new WeakSet<Db['$client']>();

/** A connection test that takes longer than this is reported as failed (the provider may be slow, not down). */
export const CONNECTION_TEST_TIMEOUT_MS = 30_000;
const SAMPLE = 10;

export interface ProviderDescription {
  name: ProviderSettings['name'];
  /** where it reads from: the OCM URL or the kubeconfig path; null for the simulator */
  target: string | null;
  /** how it signs in, never the secret itself */
  credentials: string;
}

export type ConnectionTest =
  | {
      ok: true;
      elapsedMs: number;
      clusters: number;
      /** the first few cluster names, to recognise the fleet */
      sample: string[];
      /** clusters listed but not readable: the scheduler marks them and goes on */
      unreadable: { name: string; message: string }[];
    }
  | { ok: false; elapsedMs: number; message: string; status: number | null };

export function describeProvider(settings: ProviderSettings): ProviderDescription {
  if (settings.name === 'simulator') return { name: 'simulator', target: null, credentials: 'none (simulated fleet)' };
  if (settings.name === 'kubernetes') {
    const contexts = settings.contexts?.length ? `contexts ${settings.contexts.join(', ')}` : 'every context';
    return { name: 'kubernetes', target: settings.kubeconfigPath, credentials: `kubeconfig (${contexts})` };
  }
  const credentials =
    settings.auth.kind === 'bearer'
      ? 'access token (FLEETPLAN_OCM_TOKEN)'
      : settings.auth.kind === 'offline-token'
        ? `offline token, exchanged at ${settings.auth.tokenUrl}`
        : `service account ${settings.auth.clientId}, token from ${settings.auth.tokenUrl}`;
  return { name: 'ocm', target: settings.url, credentials };
}

export interface SetupDeps {
  db: Db;
  env: FleetplanEnv;
  fleetNow: () => Date;
  realNow: () => Date;
  /** the provider to test (tests pass a fake); default: the one the settings name */
  provider?: () => Promise<FleetProvider>;
  /** default CONNECTION_TEST_TIMEOUT_MS */
  connectionTestTimeoutMs?: number;
  /** the organization whose set-up is shown (the request's) */
  organization?: OrganizationScope;
}

export function createSetupService(deps: SetupDeps) {
  const { db, env } = deps;
  const admin = createOrganizationAdminService(db, deps.realNow);
  const limitMs = deps.connectionTestTimeoutMs ?? CONNECTION_TEST_TIMEOUT_MS;
  const scope = deps.organization ?? organizationScope(db);
  return {
    /** Where the installation stands: each step done or not. */
    async status() {
      const org = await scope();
      const held = org ? await organizationContents(db, org.id) : null;
      const observedAt = await readSnapshotObservedAt(db);
      const named = org !== null && org !== undefined && org.name !== UNNAMED_ORGANIZATION;
      return {
        provider: describeProvider(env.provider),
        organization: org ? { name: org.name, named, revision: org.revision } : null,
        clusters: held?.clusters ?? 0,
        managed: held?.managed ?? 0,
        sectors: held?.sectors ?? 0,
        /** when the scheduler last stored what the provider listed (null: not yet) */
        observedAt: observedAt?.toISOString() ?? null,
        /** the simulated demo fleet is what is stored */
        demo: held !== null && held.clusters > 0 && held.simulated === held.clusters,
        /** nothing left to set up: named, and some cluster has a policy */
        complete: named && (held?.managed ?? 0) > 0,
      };
    },

    async nameOrganization(actor: string, name: string) {
      return await admin.create(actor, name.trim());
    },

    /**
     * Lists the fleet through the configured provider, READ-ONLY, and says what came back. Tests
     * asked for while one is running share it: a read of a large fleet is not started twice.
     */
    testConnection(): Promise<ConnectionTest> {
      const running = testsInFlight.get(db.$client);
      if (running) return running;
      if (stillReading.has(db.$client)) {
        return Promise.resolve({
          ok: false,
          elapsedMs: 0,
          message: `${describeProvider(env.provider).name} provider: the previous test's read has not finished yet (it took longer than ${limitMs / 1000} s); try again later`,
          status: null,
        });
      }
      const test = runConnectionTest().finally(() => testsInFlight.delete(db.$client));
      testsInFlight.set(db.$client, test);
      return test;
    },
  };

  /** the organization's own provider when it has one (organizationProviderSettings), else the instance's */
  async function organizationProvider(): Promise<FleetProvider> {
    const org = await scope();
    if (!org) return createProvider(db, env.provider);
    const provider = await providerForOrganization(db, org, (await findFirstOrganization(db))?.id === org.id, env.provider);
    if (!provider) throw new Error(`organization ${org.name} has no provider of its own (the instance's serves the first organization)`);
    return provider;
  }

  async function runConnectionTest(): Promise<ConnectionTest> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    let timer: NodeJS.Timeout | undefined;
    try {
      const provider = await (deps.provider ?? organizationProvider)();
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${limitMs / 1000} s`)), limitMs);
      });
      // A provider that can answer cheaply (OCM: one page of the cluster list) is asked that;
      // the others list the fleet. A read that outlives the time limit goes on in the background:
      // no second one meanwhile.
      const reading: Promise<Omit<Extract<ConnectionTest, { ok: true }>, 'ok' | 'elapsedMs'>> = provider.probe
        ? provider.probe(deps.fleetNow(), SAMPLE).then((p) => ({ ...p, unreadable: [] }))
        : provider.observe(deps.fleetNow()).then((snapshot) => ({
            clusters: snapshot.clusters.length + snapshot.errors.length,
            sample: snapshot.clusters.slice(0, SAMPLE).map((c) => c.name),
            unreadable: snapshot.errors.slice(0, SAMPLE).map((e) => ({ name: e.name, message: e.message })),
          }));
      stillReading.add(db.$client);
      void reading.catch(() => undefined).finally(() => stillReading.delete(db.$client));
      const answer = await Promise.race([reading, timeout]);
      return { ok: true, elapsedMs: elapsed(), ...answer };
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      return {
        ok: false,
        elapsedMs: elapsed(),
        message: `${describeProvider(env.provider).name} provider: ${message}`,
        status: err instanceof ProviderError ? (err.status ?? null) : null,
      };
    } finally {
      clearTimeout(timer);
    }
  }
}
