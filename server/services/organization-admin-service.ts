// Setting up the installation's organization from the command line (`fleetplan org`,
// `fleetplan demo remove`): list it, create or name it on a fresh database, and replace the demo
// fleet with a blank organization for a real provider. fleetplan keeps one organization per
// database: creating a second one is refused with that said.
import type { Db } from '@/db/open-database';
import { appendAudit } from '@/server/repositories/audit-repository';
import { wipeFleetData } from '@/server/repositories/demo-fleet-repository';
import {
  findOrganization,
  insertEmptyOrganization,
  organizationContents,
  renameOrganization,
} from '@/server/repositories/organization-repository';
import { withTransaction } from '@/server/repositories/transaction';
import { AppError } from './app-error';

/** The name `npm start` gives a real provider's organization until it is named (prepare-database.ts). */
export const UNNAMED_ORGANIZATION = 'unnamed';
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

export function createOrganizationAdminService(db: Db, realNow: () => Date) {
  return {
    list() {
      const org = findOrganization(db);
      if (!org) return [];
      return [{ name: org.name, revision: org.revision, frozen: org.frozen, ...organizationContents(db, org.id) }];
    },

    /**
     * Creates the organization on an empty database, or names the blank one a real provider's
     * first start made (no policies, sectors or blocked versions yet; its discovered clusters stay).
     */
    create(actor: string, name: string) {
      if (!NAME.test(name)) {
        throw new AppError('INVALID_INPUT', `'${name}' is not an organization name`, [
          { path: 'name', message: 'letters, digits, dot, dash and underscore, starting with a letter or digit (at most 100)' },
        ]);
      }
      return withTransaction(db, (tx) => {
        const now = realNow();
        const existing = findOrganization(tx);
        if (existing) {
          const held = organizationContents(tx, existing.id);
          const blank = existing.name === UNNAMED_ORGANIZATION && held.managed === 0 && held.sectors === 0 && held.blockedVersions === 0;
          if (!blank) {
            throw new AppError(
              'CONFLICT',
              `this database holds organization ${existing.name} already; fleetplan keeps one organization per database (run another instance, with its own DATABASE_URL, for another organization)`,
            );
          }
          renameOrganization(tx, existing.id, name, now);
          appendAudit(tx, {
            at: now,
            actor,
            action: 'organization.create',
            target: `organization:${name}`,
            before: { name: existing.name },
            after: { name },
          });
          return { name, created: false, renamedFrom: existing.name, clusters: held.clusters };
        }
        insertEmptyOrganization(tx, name, now);
        appendAudit(tx, { at: now, actor, action: 'organization.create', target: `organization:${name}`, after: { name } });
        return { name, created: true, renamedFrom: null, clusters: 0 };
      });
    },

    /**
     * Removes the simulated demo fleet (its organization, clusters, policies, soak, ticks and
     * decisions; users, tokens, webhooks and the audit log stay) and leaves a blank organization,
     * so a real provider's clusters can come in. Refused when the fleet is not the demo's.
     */
    removeDemo(actor: string) {
      return withTransaction(db, (tx) => {
        const org = findOrganization(tx);
        if (!org) throw new AppError('NOT_FOUND', 'There is no fleet to remove: the database is empty');
        const held = organizationContents(tx, org.id);
        if (held.clusters === 0)
          throw new AppError('NOT_FOUND', `organization ${org.name} has no clusters: there is no demo fleet to remove`);
        if (held.simulated !== held.clusters) {
          throw new AppError(
            'CONFLICT',
            `organization ${org.name} is not the simulated demo (${held.clusters - held.simulated} of its ${held.clusters} clusters come from a real provider); nothing was removed`,
          );
        }
        const now = realNow();
        wipeFleetData(tx);
        insertEmptyOrganization(tx, UNNAMED_ORGANIZATION, now);
        appendAudit(tx, {
          at: now,
          actor,
          action: 'demo.remove',
          target: `organization:${org.name}`,
          before: { name: org.name, clusters: held.clusters, managed: held.managed },
        });
        return { removed: org.name, clusters: held.clusters };
      });
    },
  };
}
