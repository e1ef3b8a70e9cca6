// `fleetplan org list` / `fleetplan org create NAME`: the installation's organization, and naming
// it on a fresh database (or the blank one a real provider's first start made).
// `fleetplan demo remove --yes`: replace the simulated demo fleet with a blank organization.
// Refusals: exit 2 with one line on stderr, and nothing written.
import { closeDatabase, openDatabaseAt } from '@/db/connect';
import { parseDatabaseUrl } from '@/db/database-location';
import type { Db } from '@/db/open-database';
import { createOrganizationRoleService, setOrganizationRoleGroupsText } from '@/server/services/organization-roles';
import { AppError } from '@/server/services/app-error';
import { createOrganizationAdminService } from '@/server/services/organization-admin-service';
import { ORGANIZATION_PROVIDER_KINDS, type OrganizationProviderKind } from '@/server/integrations/providers/create-provider';
import { cliActor, processIo, type CliIo } from './import-command';

const ORG_USAGE =
  "usage: fleetplan org list | fleetplan org create NAME | fleetplan org provider NAME simulator|ocm ENV_VAR|kubernetes KUBECONFIG_PATH|none | fleetplan org groups [NAME ['admin=GROUP,…;operator=…;viewer=…' | --clear]]";
const DEMO_USAGE = 'usage: fleetplan demo remove --yes   (removes the simulated demo fleet; users, tokens and the audit log stay)';

async function withDatabase<T>(io: CliIo, work: (db: Db) => Promise<T>): Promise<T> {
  const db = await openDatabaseAt(parseDatabaseUrl(io.env.DATABASE_URL));
  try {
    return await work(db);
  } finally {
    await closeDatabase(db);
  }
}

/**
 * `org groups`: every organization's OIDC group → role mapping; `org groups NAME MAPPING` sets
 * one (the syntax of FLEETPLAN_OIDC_ROLE_GROUPS), `org groups NAME --clear` removes it. Users'
 * grants there follow at their next OIDC sign-in.
 */
async function runGroupsCommand(rest: string[], io: CliIo): Promise<number> {
  if (rest.length === 0) {
    const rows = await withDatabase(io, async (db) => await createOrganizationRoleService(db, () => new Date()).listRoleGroups());
    for (const r of rows) io.stdout(`${r.organization}\t${r.mapping ?? '(no group mapping)'}\n`);
    return 0;
  }
  if (rest.length !== 2) {
    io.stderr(`${ORG_USAGE}\n`);
    return 2;
  }
  const [organization, text] = rest as [string, string];
  try {
    const r = await withDatabase(
      io,
      async (db) =>
        await setOrganizationRoleGroupsText(db, new Date(), cliActor(io.env), { organization, mapping: text === '--clear' ? null : text }),
    );
    const what = r.mapping === null ? 'has no OIDC group mapping' : `maps OIDC groups: ${r.mapping}`;
    io.stdout(`organization ${r.organization} ${what}${r.changed ? '' : ' (unchanged)'}; grants follow at each user's next sign-in\n`);
    return 0;
  } catch (err) {
    return refused(io, 'org groups', err);
  }
}

async function withService<T>(io: CliIo, work: (service: ReturnType<typeof createOrganizationAdminService>) => Promise<T>): Promise<T> {
  return await withDatabase(io, (db) => work(createOrganizationAdminService(db, () => new Date())));
}

function refused(io: CliIo, command: string, err: unknown): number {
  if (!(err instanceof AppError)) throw err;
  const detail = err.problems.length ? `: ${err.problems.map((p) => `${p.path}: ${p.message}`).join('; ')}` : '';
  io.stderr(`fleetplan ${command}: ${err.message}${detail}\n`);
  return 2;
}

export async function runOrgCommand(args: string[], io: CliIo = processIo): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === 'list' && rest.length === 0) {
    const orgs = await withService(io, async (s) => await s.list());
    if (orgs.length === 0) {
      io.stdout('no organization yet: create one with `fleetplan org create NAME`\n');
      return 0;
    }
    for (const o of orgs) {
      io.stdout(
        `${o.name}\trevision ${o.revision}\t${o.clusters} clusters (${o.managed} managed)\t${o.sectors} sectors\t${o.blockedVersions} blocked versions${o.frozen ? '\tfrozen' : ''}${o.simulated > 0 && o.simulated === o.clusters ? '\t(simulated demo)' : ''}\n`,
      );
    }
    return 0;
  }
  if (sub === 'create' && rest.length === 1) {
    try {
      const r = await withService(io, async (s) => await s.create(cliActor(io.env), rest[0]!));
      io.stdout(
        r.created
          ? `created organization ${r.name}; start fleetplan with your provider so it reads the clusters, then import the policies (fleetplan import FILE)\n`
          : `named organization ${r.name} (was ${r.renamedFrom}; its ${r.clusters} discovered clusters stay)\n`,
      );
      return 0;
    } catch (err) {
      return refused(io, 'org create', err);
    }
  }
  if (sub === 'groups') return await runGroupsCommand(rest, io);
  if (sub === 'provider' && (rest.length === 2 || rest.length === 3)) {
    const [name, kindText, ref] = rest as [string, string, string | undefined];
    const kind =
      kindText === 'none'
        ? null
        : (ORGANIZATION_PROVIDER_KINDS as readonly string[]).includes(kindText)
          ? (kindText as OrganizationProviderKind)
          : undefined;
    if (kind === undefined) {
      io.stderr(`${ORG_USAGE}\n`);
      return 2;
    }
    try {
      const r = await withService(
        io,
        async (s) => await s.setProvider(cliActor(io.env), { organization: name, kind, credentialsRef: ref ?? null }),
      );
      io.stdout(
        r.kind === null
          ? `organization ${r.organization} uses the instance's provider (FLEETPLAN_PROVIDER)\n`
          : `organization ${r.organization} uses its own ${r.kind} provider${r.credentialsRef ? ` (credentials: ${r.credentialsRef})` : ''}\n`,
      );
      return 0;
    } catch (err) {
      return refused(io, 'org provider', err);
    }
  }
  io.stderr(`${ORG_USAGE}\n`);
  return 2;
}

export async function runDemoCommand(args: string[], io: CliIo = processIo): Promise<number> {
  if (args[0] !== 'remove' || args.length > 2 || (args[1] !== undefined && args[1] !== '--yes')) {
    io.stderr(`${DEMO_USAGE}\n`);
    return 2;
  }
  if (args[1] !== '--yes') {
    io.stderr(`fleetplan demo remove: this deletes the demo fleet's clusters, policies and history; run again with --yes\n`);
    return 2;
  }
  try {
    const r = await withService(io, async (s) => await s.removeDemo(cliActor(io.env)));
    io.stdout(
      `removed the demo fleet (${r.removed}, ${r.clusters} clusters); the database now holds a blank organization for your provider's clusters\n`,
    );
    return 0;
  } catch (err) {
    return refused(io, 'demo remove', err);
  }
}
