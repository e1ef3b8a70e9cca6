// The instance's organizations (`fleetplan org`, `fleetplan demo remove`, the Set-up page and the
// top bar's "new organization"): list them, create one, and replace the demo fleet with a blank
// organization for a real provider. Creating names the blank organization a real provider's first
// start made when it is the only one (still `unnamed`, no policies, sectors or blocked versions);
// otherwise it adds an organization beside the others.
import type { Db } from '@/db/open-database';
import { appendAudit } from '@/server/repositories/audit-repository';
import { wipeFleetData } from '@/server/repositories/demo-fleet-repository';
import {
  findOrganizationByName,
  insertEmptyOrganization,
  listOrganizations,
  organizationContents,
  renameOrganization,
  setOrganizationProvider,
} from '@/server/repositories/organization-repository';
import type { OrganizationProviderKind } from '@/server/integrations/providers/create-provider';
import { withTransaction } from '@/server/repositories/transaction';
import { AppError } from './app-error';
import { unknownOrganization } from './organization-scope';

/** The name `npm start` gives a real provider's organization until it is named (prepare-database.ts). */
export const UNNAMED_ORGANIZATION = 'unnamed';
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

export function createOrganizationAdminService(db: Db, realNow: () => Date) {
  return {
    async list() {
      return Promise.all(
        (await listOrganizations(db)).map(async (org) => ({
          name: org.name,
          revision: org.revision,
          frozen: org.frozen,
          provider: org.providerKind,
          credentialsRef: org.providerCredentialsRef,
          ...(await organizationContents(db, org.id)),
        })),
      );
    },

    /**
     * Creates an organization, or names the blank one a real provider's first start made when it
     * is the only organization (no policies, sectors or blocked versions yet; its discovered
     * clusters stay). A name already taken is refused.
     */
    async create(actor: string, name: string) {
      if (!NAME.test(name)) {
        throw new AppError('INVALID_INPUT', `'${name}' is not an organization name`, [
          { path: 'name', message: 'letters, digits, dot, dash and underscore, starting with a letter or digit (at most 100)' },
        ]);
      }
      return await withTransaction(db, async (tx) => {
        const now = realNow();
        if (await findOrganizationByName(tx, name)) throw new AppError('CONFLICT', `organization ${name} exists already`);
        const all = await listOrganizations(tx);
        const existing = all.length === 1 ? all[0]! : null;
        const held = existing ? await organizationContents(tx, existing.id) : null;
        const blank =
          existing !== null &&
          held !== null &&
          existing.name === UNNAMED_ORGANIZATION &&
          held.managed === 0 &&
          held.sectors === 0 &&
          held.blockedVersions === 0;
        if (existing && held && blank) {
          await renameOrganization(tx, existing.id, name, now);
          await appendAudit(tx, {
            at: now,
            actor,
            action: 'organization.create',
            organizationId: existing.id,
            target: `organization:${name}`,
            before: { name: existing.name },
            after: { name },
          });
          return { name, created: false, renamedFrom: existing.name, clusters: held.clusters };
        }
        const created = await insertEmptyOrganization(tx, name, now);
        await appendAudit(tx, {
          at: now,
          actor,
          action: 'organization.create',
          organizationId: created.id,
          target: `organization:${name}`,
          after: { name },
        });
        return { name, created: true, renamedFrom: null, clusters: 0 };
      });
    },

    /**
     * Gives an organization its own provider, or (kind null) leaves it to the instance's. The
     * reference says where the credentials are — `ocm`: the name of an environment variable holding
     * an offline token; `kubernetes`: an absolute kubeconfig path; `simulator`: none — and is all
     * that is stored: never a secret.
     */
    async setProvider(
      actor: string,
      input: { organization: string; kind: OrganizationProviderKind | null; credentialsRef?: string | null },
    ) {
      const ref = input.credentialsRef?.trim() || null;
      const problems: { path: string; message: string }[] = [];
      if (input.kind === 'ocm' && (ref === null || !/^[A-Za-z_][A-Za-z0-9_]{0,199}$/.test(ref)))
        problems.push({ path: 'credentialsRef', message: 'the name of the environment variable that holds the OCM offline token' });
      if (input.kind === 'kubernetes' && (ref === null || !ref.startsWith('/') || ref.length > 4096 || ref.includes('\0')))
        problems.push({ path: 'credentialsRef', message: 'the absolute path of the kubeconfig file' });
      if ((input.kind === 'simulator' || input.kind === null) && ref !== null)
        problems.push({ path: 'credentialsRef', message: `no credentials reference for ${input.kind ?? 'the instance provider'}` });
      if (problems.length) throw new AppError('INVALID_INPUT', problems.map((p) => `${p.path}: ${p.message}`).join('; '), problems);
      return await withTransaction(db, async (tx) => {
        const org = await findOrganizationByName(tx, input.organization);
        if (!org) throw unknownOrganization(input.organization);
        const now = realNow();
        await setOrganizationProvider(tx, org.id, input.kind, ref, now);
        await appendAudit(tx, {
          at: now,
          actor,
          action: 'organization.provider',
          organizationId: org.id,
          target: `organization:${org.name}`,
          before: { kind: org.providerKind, credentialsRef: org.providerCredentialsRef },
          after: { kind: input.kind, credentialsRef: ref },
        });
        return { organization: org.name, kind: input.kind, credentialsRef: ref };
      });
    },

    /**
     * Removes the simulated demo fleet (its organization, clusters, policies, soak, ticks and
     * decisions; users, tokens, webhooks and the audit log stay) and leaves a blank organization,
     * so a real provider's clusters can come in. Refused when the fleet is not the demo's.
     */
    async removeDemo(actor: string) {
      return await withTransaction(db, async (tx) => {
        const all = await listOrganizations(tx);
        const org = all[0];
        if (!org) throw new AppError('NOT_FOUND', 'There is no fleet to remove: the database is empty');
        if (all.length > 1)
          throw new AppError(
            'CONFLICT',
            `the instance holds ${all.length} organizations: the demo is removed only from a single-organization instance`,
          );
        const held = await organizationContents(tx, org.id);
        if (held.clusters === 0)
          throw new AppError('NOT_FOUND', `organization ${org.name} has no clusters: there is no demo fleet to remove`);
        if (held.simulated !== held.clusters) {
          throw new AppError(
            'CONFLICT',
            `organization ${org.name} is not the simulated demo (${held.clusters - held.simulated} of its ${held.clusters} clusters come from a real provider); nothing was removed`,
          );
        }
        const now = realNow();
        await wipeFleetData(tx);
        await insertEmptyOrganization(tx, UNNAMED_ORGANIZATION, now);
        await appendAudit(tx, {
          at: now,
          actor,
          action: 'demo.remove',
          organizationId: org.id,
          target: `organization:${org.name}`,
          before: { name: org.name, clusters: held.clusters, managed: held.managed },
        });
        return { removed: org.name, clusters: held.clusters };
      });
    },
  };
}
