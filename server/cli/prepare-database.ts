// What `npm start` (scripts/start.mjs) does before it serves: open (and so migrate) the database,
// seed the demo fleet into an empty one when the provider is the simulator, make sure someone can
// sign in.
import type { Db } from '@/db/open-database';
import { closeDatabase, describeDatabase, holdingStartupLock, openDatabaseAt } from '@/db/connect';
import { bootstrapAuth } from '@/server/auth/bootstrap';
import { missingSecretKeyProblem } from '@/server/crypto/server-secret-key';
import { getEnv, type FleetplanEnv } from '@/server/env';
import { isDatabaseEmpty } from '@/server/repositories/demo-fleet-repository';
import { insertEmptyOrganization } from '@/server/repositories/organization-repository';
import { demoScaleForClusters, seedDemo } from '@/server/services/demo-seed-service';
import { UNNAMED_ORGANIZATION } from '@/server/services/organization-admin-service';
import { applyOrganizationRoleGroupsSetting, ORGANIZATION_ROLE_GROUPS_SETTING } from '@/server/services/organization-roles';

type Log = (line: string) => void;

/** The name of a real provider's organization until `fleetplan org create` or `fleetplan import` names it. */
export { UNNAMED_ORGANIZATION } from '@/server/services/organization-admin-service';

/**
 * start-up, with the settings scripts/start.mjs has already checked: migrate; seed the demo fleet
 * into an empty database when the provider is the simulator and FLEETPLAN_SEED_DEMO is not 0; a
 * real provider's database starts with an empty organization (no policies), so the first tick
 * stores the clusters it reads and `fleetplan import` can then give them policies (the import
 * refuses clusters the fleet does not have, and a tick without an organization reads nothing);
 * make sure someone can sign in. Returns the open handle:
 * scripts/start.mjs keeps it for the server's whole life, so `fleetplan restore` sees (through
 * SQLite's lock) that a server is running even before the app first touches the database.
 * PostgreSQL is migrated here, under its migration lock, and the first start's rows are made under
 * it too (replicas starting together migrate and seed once).
 */
export async function prepareDatabase(settings: FleetplanEnv = getEnv(), log: Log = (line) => console.log(line)): Promise<Db> {
  const secretKeyProblem = missingSecretKeyProblem(settings, settings.database.kind === 'postgres');
  if (secretKeyProblem) throw new Error(secretKeyProblem);
  const file = describeDatabase(settings.database);
  const db = await openDatabaseAt(settings.database);
  try {
    // replicas starting together on an empty database: one makes the first start's rows
    await holdingStartupLock(db, async () => {
      const empty = await isDatabaseEmpty(db);
      const simulator = settings.provider.name === 'simulator';
      const seeding = empty && simulator && settings.seedDemo;
      if (seeding) {
        const scale = settings.demoClusters === undefined ? 1 : demoScaleForClusters(settings.demoClusters);
        const { clusters } = await seedDemo(db, new Date(), scale);
        log(`fleetplan: first start: seeded the simulated demo fleet (${clusters} clusters) into ${file}`);
      } else if (empty && !simulator) {
        await insertEmptyOrganization(db, UNNAMED_ORGANIZATION, new Date());
        log(
          `fleetplan: provider ${settings.provider.name}: ${file} starts empty, with an organization without policies (the demo fleet is only seeded for the simulator); ` +
            `once the scheduler has read the clusters, import your organization with: npx --no fleetplan import FILE`,
        );
      } else if (empty) {
        log(`fleetplan: FLEETPLAN_SEED_DEMO=0: ${file} starts empty`);
      }
      await bootstrapAuth(db, { env: settings, log, demoSeeded: seeding });
      const mappings = settings.oidc?.organizationRoleGroups;
      if (mappings && mappings.size > 0) {
        const changed = await applyOrganizationRoleGroupsSetting(db, mappings, new Date());
        if (changed.length > 0) log(`fleetplan: ${ORGANIZATION_ROLE_GROUPS_SETTING}: set the OIDC group mapping of ${changed.join(', ')}`);
      }
    });
    return db;
  } catch (err) {
    await closeDatabase(db);
    throw err;
  }
}
