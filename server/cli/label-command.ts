// `fleetplan label CLUSTER key=value key- … [--org NAME]`: fleetplan's labels of a cluster, as
// `kubectl label` writes them (key=value sets, key- removes; a set overwrites). Without changes it
// prints the cluster's labels, one `key=value` a line with where each comes from. On the database
// directly, through the same service as the cluster page: every change checked before anything is
// written, audited (actor FLEETPLAN_ACTOR or cli:$USER). Refusals: exit 2 with one line on stderr.
import { closeDatabase, openDatabaseAt } from '@/db/connect';
import { parseDatabaseUrl } from '@/db/database-location';
import { AppError } from '@/server/services/app-error';
import { createClusterService } from '@/server/services/cluster-service';
import { createLabelService } from '@/server/services/label-service';
import { organizationScope } from '@/server/services/organization-scope';
import { takeOrgOption } from './org-option';
import { cliActor, processIo, type CliIo } from './import-command';

const USAGE = 'usage: fleetplan label CLUSTER [key=value ...] [key- ...] [--org NAME]';

export async function runLabelCommand(args: string[], io: CliIo = processIo): Promise<number> {
  const scoped = takeOrgOption(args);
  if ('error' in scoped) {
    io.stderr(`fleetplan label: ${scoped.error}\n`);
    return 2;
  }
  const [cluster, ...changes] = scoped.rest;
  if (!cluster || cluster.startsWith('-')) {
    io.stderr(`fleetplan label: name the cluster\n${USAGE}\n`);
    return 2;
  }
  const db = await openDatabaseAt(parseDatabaseUrl(io.env.DATABASE_URL));
  try {
    const scope = organizationScope(db, { name: scoped.org });
    if (changes.length === 0) {
      const c = await createClusterService(db, () => new Date(), scope).byName(cluster);
      const keys = Object.keys(c.labels).sort();
      if (keys.length === 0) io.stdout('no labels\n');
      for (const key of keys) {
        const ours = Object.prototype.hasOwnProperty.call(c.fleetplanLabels, key);
        io.stdout(`${key}=${c.labels[key]}\t${ours ? 'fleetplan' : 'provider'}\n`);
      }
      return 0;
    }
    const r = await createLabelService(db, () => new Date(), scope).setLabels({
      cluster,
      changes,
      actor: { name: cliActor(io.env), role: 'operator', via: 'system' },
    });
    for (const key of r.notFound) io.stderr(`fleetplan label: label "${key}" not found among fleetplan's labels of ${r.cluster}\n`);
    io.stdout(r.changed ? `cluster/${r.cluster} labeled\n` : `cluster/${r.cluster} not labeled (no change)\n`);
    return 0;
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    const detail = err.problems.length ? `: ${err.problems.map((p) => p.message).join('; ')}` : '';
    io.stderr(`fleetplan label: ${err.problems.length ? 'refused' : err.message}${detail}\n`);
    return 2;
  } finally {
    await closeDatabase(db);
  }
}
