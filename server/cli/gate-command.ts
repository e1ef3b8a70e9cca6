// `fleetplan gate list`: the provider version gates clusters have not agreed to (they hold upgrades
// to their minor: VERSION_GATE). `fleetplan gate ack CLUSTER MINOR --yes`: agree to one at the
// provider for that cluster, as the cluster page's Acknowledge button does (same service: the
// provider re-reads the agreements and writes at most once; an audit row names the CLI user).
// The provider is the one the environment configures (FLEETPLAN_PROVIDER and its settings), so
// run it where the server runs. Refusals: exit 2 with one line on stderr, and nothing written.
import { closeDatabase, openDatabaseAt } from '@/db/connect';
import { parseDatabaseUrl } from '@/db/database-location';
import { parseEnv } from '@/server/env';
import { providerOfOrganization } from '@/server/integrations/providers/create-provider';
import { findFirstOrganization } from '@/server/repositories/organization-repository';
import { AppError } from '@/server/services/app-error';
import { createVersionGateService } from '@/server/services/version-gate-service';
import { organizationScope } from '@/server/services/organization-scope';
import { takeOrgOption } from './org-option';
import { cliActor, processIo, type CliIo } from './import-command';

const USAGE = 'usage: fleetplan gate list | fleetplan gate ack CLUSTER MINOR --yes   [--org NAME]   (MINOR as in the list, e.g. 4.16)';

export async function runGateCommand(argv: string[], io: CliIo = processIo): Promise<number> {
  const scoped = takeOrgOption(argv);
  if ('error' in scoped) {
    io.stderr(`fleetplan gate: ${scoped.error}\n${USAGE}\n`);
    return 2;
  }
  const [sub, ...rest] = scoped.rest;
  const listing = sub === 'list' && rest.length === 0;
  const acking = sub === 'ack' && (rest.length === 2 || (rest.length === 3 && rest[2] === '--yes'));
  if (!listing && !acking) {
    io.stderr(`${USAGE}\n`);
    return 2;
  }
  const env = parseEnv(io.env);
  const db = await openDatabaseAt(parseDatabaseUrl(io.env.DATABASE_URL));
  try {
    const organization = organizationScope(db, { name: scoped.org });
    const service = createVersionGateService({
      db,
      realNow: () => new Date(),
      provider: async () => providerOfOrganization(db, await organization(), (await findFirstOrganization(db))?.id, env.provider),
      organization,
    });
    const pending = await service.pending();
    if (listing) {
      if (pending.length === 0) io.stdout('no cluster has a version gate to agree to\n');
      for (const g of pending) io.stdout(`${g.cluster}\t${g.minor}\t${g.gateId}\t${g.description}\n`);
      return 0;
    }
    const [cluster, minor] = rest as [string, string];
    const gate = pending.find((g) => g.cluster === cluster && g.minor === minor);
    if (!gate) {
      const ofCluster = pending.filter((g) => g.cluster === cluster).map((g) => g.minor);
      io.stderr(
        `fleetplan gate ack: ${cluster} has no pending version gate for ${minor}${ofCluster.length ? ` (pending: ${ofCluster.join(', ')})` : ''}\n`,
      );
      return 2;
    }
    if (rest[2] !== '--yes') {
      io.stderr(
        `fleetplan gate ack: this records an agreement at ${env.provider.name} for ${cluster}: "${gate.description}" — run again with --yes\n`,
      );
      return 2;
    }
    const done = await service.acknowledge({
      cluster,
      gateId: gate.gateId,
      actor: { name: cliActor(io.env), role: 'admin', via: 'system' },
    });
    io.stdout(
      done.atProvider === 'agreed'
        ? `agreed to the ${done.minor} version gate for ${done.cluster} at ${env.provider.name}; upgrades to ${done.minor} may now be planned\n`
        : `${done.cluster} had already agreed to the ${done.minor} gate at ${env.provider.name}; it no longer holds upgrades here\n`,
    );
    return 0;
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    io.stderr(`fleetplan gate ${sub}: ${err.message}\n`);
    return 2;
  } finally {
    await closeDatabase(db);
  }
}
