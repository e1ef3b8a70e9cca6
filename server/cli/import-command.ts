// `fleetplan import FILE [--dry-run]`: an upgrade-service organization file
// (/openshift/openshift-cluster-manager-1.yml) into the database at DATABASE_URL, replacing the
// organization's policies (clusters the file does not list become unmanaged).
// `fleetplan import --cluster FILE [--dry-run]`: one cluster file (/openshift/cluster-1.yml): its
// upgradePolicy becomes that cluster's policy. Invalid input: exit 2 with one `PATH: message`
// line per problem on stderr, and nothing written.
import { readFile } from 'node:fs/promises';
import { closeDatabase, openDatabaseAt } from '@/db/connect';
import { parseDatabaseUrl } from '@/db/database-location';
import { AppError } from '@/server/services/app-error';
import { createPolicyService } from '@/server/services/policies/policy-service';
import { organizationScope } from '@/server/services/organization-scope';
import { takeOrgOption } from './org-option';

const USAGE =
  'usage: fleetplan import [--cluster] FILE [--dry-run] [--org NAME]   (an organization file, or with --cluster a cluster file; FILE may be - for stdin; into organization NAME, default the first)';

export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env: Record<string, string | undefined>;
  readStdin?: () => Promise<string>;
}

export const processIo: CliIo = {
  stdout: (t) => void process.stdout.write(t),
  stderr: (t) => void process.stderr.write(t),
  env: process.env,
  readStdin: async () => {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  },
};

/** Who the audit log names for CLI changes. */
export function cliActor(env: Record<string, string | undefined>): string {
  return env.FLEETPLAN_ACTOR ?? `cli:${env.USER ?? env.USERNAME ?? 'unknown'}`;
}

export async function runImportCommand(argv: string[], io: CliIo = processIo): Promise<number> {
  const scoped = takeOrgOption(argv);
  if ('error' in scoped) {
    io.stderr(`fleetplan import: ${scoped.error}\n${USAGE}\n`);
    return 2;
  }
  const { org, rest: args } = scoped;
  let file: string | undefined;
  let dryRun = false;
  let clusterFile = false;
  for (const arg of args) {
    if (arg === '--dry-run') dryRun = true;
    else if (arg === '--cluster') clusterFile = true;
    else if (arg === '-h' || arg === '--help') {
      io.stdout(`${USAGE}\n`);
      return 0;
    } else if (arg.startsWith('--')) {
      io.stderr(`fleetplan import: unknown option ${arg}\n${USAGE}\n`);
      return 2;
    } else if (file === undefined) file = arg;
    else {
      io.stderr(`fleetplan import: unexpected argument ${arg}\n${USAGE}\n`);
      return 2;
    }
  }
  if (file === undefined) {
    io.stderr(`fleetplan import: missing FILE\n${USAGE}\n`);
    return 2;
  }
  let text: string;
  try {
    text = file === '-' && io.readStdin ? await io.readStdin() : await readFile(file, 'utf8');
  } catch (err) {
    io.stderr(`${file}: cannot read the file (${(err as NodeJS.ErrnoException).code ?? 'error'})\n`);
    return 2;
  }
  const db = await openDatabaseAt(parseDatabaseUrl(io.env.DATABASE_URL));
  try {
    const policies = createPolicyService(
      db,
      () => new Date(),
      () => new Date(),
      organizationScope(db, { name: org }),
    );
    if (clusterFile) {
      const result = await policies.importClusterYaml(cliActor(io.env), { yaml: text, dryRun });
      const verb = dryRun
        ? result.changed
          ? 'dry run: would change'
          : 'dry run: no change to'
        : result.changed
          ? 'imported'
          : 'unchanged:';
      const lines = [`${verb} the policy of ${result.cluster} (revision ${result.revision})`];
      if (result.ignoredKeys.length) lines.push(`note: not policy, left out: ${result.ignoredKeys.join(', ')}`);
      io.stdout(`${lines.join('\n')}\n`);
      return 0;
    }
    const result = await policies.importOrganizationYaml(cliActor(io.env), { yaml: text, dryRun });
    const lines = [
      `${dryRun ? 'dry run: would import' : 'imported'} organization ${result.organization}: ${result.managedClusters} managed, ${result.unmanagedClusters} unmanaged cluster(s)`,
      `organization settings ${result.organizationChanged ? 'changed' : 'unchanged'}; ${result.changedClusters.length} cluster policy(ies) changed${result.changedClusters.length ? `: ${result.changedClusters.join(', ')}` : ''}`,
      ...result.notices.map((n) => `note: ${n.path}: ${n.message}`),
    ];
    if (!dryRun) lines.push(`organization revision ${result.revision}`);
    io.stdout(`${lines.join('\n')}\n`);
    return 0;
  } catch (err) {
    if (err instanceof AppError && err.code !== 'INVALID_INPUT') {
      io.stderr(`fleetplan import: ${err.message}\n`);
      return 2;
    }
    if (err instanceof AppError) {
      io.stderr(err.problems.map((p) => `${p.path}: ${p.message}\n`).join(''));
      return 2;
    }
    throw err;
  } finally {
    await closeDatabase(db);
  }
}
