// `fleetplan blocked list | add PATTERN --reason TEXT | remove PATTERN`: the instance's blocked
// versions (every organization's clusters; beside each organization's own list, which the
// organization file and the policy editor hold). Refusals: exit 2 with one line, nothing written.
import { closeDatabase, openDatabaseAt } from '@/db/connect';
import { parseDatabaseUrl } from '@/db/database-location';
import { AppError } from '@/server/services/app-error';
import { createInstanceBlockedVersionService } from '@/server/services/instance-blocked-version-service';
import { cliActor, processIo, type CliIo } from './import-command';

const USAGE = 'usage: fleetplan blocked list | fleetplan blocked add PATTERN --reason TEXT | fleetplan blocked remove PATTERN';

export async function runBlockedCommand(args: string[], io: CliIo = processIo): Promise<number> {
  const [sub, ...rest] = args;
  let reason: string | undefined;
  const positional: string[] = [];
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i]!;
    if (arg === '--reason') reason = rest[++i];
    else if (arg.startsWith('--reason=')) reason = arg.slice('--reason='.length);
    else positional.push(arg);
  }
  const valid =
    (sub === 'list' && rest.length === 0) ||
    (sub === 'add' && positional.length === 1 && reason !== undefined) ||
    (sub === 'remove' && positional.length === 1 && reason === undefined);
  if (!valid) {
    io.stderr(`${USAGE}\n`);
    return 2;
  }
  const db = await openDatabaseAt(parseDatabaseUrl(io.env.DATABASE_URL));
  try {
    const service = createInstanceBlockedVersionService(db, () => new Date());
    if (sub === 'list') {
      const rows = await service.list();
      if (rows.length === 0) io.stdout('no version is blocked instance-wide\n');
      for (const b of rows) io.stdout(`${b.pattern}\t${b.reason}\t(${b.createdBy}, ${b.createdAt})\n`);
    } else if (sub === 'add') {
      const r = await service.add(cliActor(io.env), { pattern: positional[0]!, reason: reason! });
      io.stdout(`blocked ${r.pattern} instance-wide (every organization)\n`);
    } else {
      const r = await service.remove(cliActor(io.env), { pattern: positional[0]! });
      io.stdout(`unblocked ${r.pattern} instance-wide\n`);
    }
    return 0;
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    io.stderr(`fleetplan blocked ${sub}: ${err.message}\n`);
    return 2;
  } finally {
    await closeDatabase(db);
  }
}
