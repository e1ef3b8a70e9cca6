// `fleetplan export [--cluster NAME]`: the stored policies as the upgrade service's YAML on
// stdout: the organization file (/openshift/openshift-cluster-manager-1.yml), or one cluster
// file (/openshift/cluster-1.yml) with --cluster.
import { closeDatabase, openDatabaseAt } from '@/db/connect';
import { parseDatabaseUrl } from '@/db/database-location';
import { AppError } from '@/server/services/app-error';
import { createPolicyService } from '@/server/services/policies/policy-service';
import { organizationScope } from '@/server/services/organization-scope';
import { takeOrgOption } from './org-option';
import { processIo, type CliIo } from './import-command';

const USAGE = 'usage: fleetplan export [--cluster NAME] [--org NAME]';

export async function runExportCommand(argv: string[], io: CliIo = processIo): Promise<number> {
  const scoped = takeOrgOption(argv);
  if ('error' in scoped) {
    io.stderr(`fleetplan export: ${scoped.error}\n${USAGE}\n`);
    return 2;
  }
  const { org, rest: args } = scoped;
  let cluster: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === '--cluster') {
      cluster = args[++i];
      if (cluster === undefined) {
        io.stderr(`fleetplan export: --cluster needs a name\n${USAGE}\n`);
        return 2;
      }
    } else if (arg.startsWith('--cluster=')) cluster = arg.slice('--cluster='.length);
    else if (arg === '-h' || arg === '--help') {
      io.stdout(`${USAGE}\n`);
      return 0;
    } else {
      io.stderr(`fleetplan export: unexpected argument ${arg}\n${USAGE}\n`);
      return 2;
    }
  }
  const db = await openDatabaseAt(parseDatabaseUrl(io.env.DATABASE_URL));
  try {
    const service = createPolicyService(
      db,
      () => new Date(),
      () => new Date(),
      organizationScope(db, { name: org }),
    );
    const out = cluster === undefined ? await service.exportOrganizationYaml() : await service.exportClusterYaml(cluster);
    io.stdout(out.yaml);
    return 0;
  } catch (err) {
    if (err instanceof AppError) {
      io.stderr(`fleetplan export: ${err.message}\n`);
      return 2;
    }
    throw err;
  } finally {
    await closeDatabase(db);
  }
}
