// `fleetplan graph import FILE [--name N] [--channel C] [--arch A] [--captured-at ISO]`,
// `fleetplan graph fetch` (from an update service) and `fleetplan graph list`: the update graphs
// stored in the database at DATABASE_URL (default data/fleetplan.db), used by the Paths page and
// graphs.solve. A file that is not a valid
// Cincinnati v1 graph: exit 2, stderr naming the file and what is wrong, nothing written.
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { closeDatabase, openDatabaseAt } from '@/db/connect';
import { parseDatabaseUrl } from '@/db/database-location';
import { AppError } from '@/server/services/app-error';
import { MAX_GRAPH_BYTES } from '@/lib/graph-document-limit';
import { EnvError, parseEnv, type UpdateServiceSettings } from '@/server/env';
import { createGraphRefreshService } from '@/server/services/graph-refresh-service';
import { createGraphService } from '@/server/services/graph-service';
import { cliActor, processIo, type CliIo } from './import-command';

const USAGE = [
  'usage: fleetplan graph import FILE [--name NAME] [--channel CHANNEL] [--arch ARCH] [--captured-at ISO-8601]',
  '       fleetplan graph list [--json]',
  '       fleetplan graph fetch [--url URL] [--channel CHANNEL]... [--arch ARCH]   (defaults: FLEETPLAN_UPDATE_SERVICE_*)',
].join('\n');

const IMPORT_OPTIONS = new Set(['--name', '--channel', '--arch', '--captured-at']);

function fail(io: CliIo, message: string): number {
  io.stderr(`fleetplan graph: ${message}\n${USAGE}\n`);
  return 2;
}

async function runImport(args: string[], io: CliIo): Promise<number> {
  let file: string | undefined;
  const opts = new Map<string, string>();
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    const eq = arg.indexOf('=');
    const key = arg.startsWith('--') && eq > 0 ? arg.slice(0, eq) : arg;
    if (IMPORT_OPTIONS.has(key)) {
      const value = eq > 0 && key !== arg ? arg.slice(eq + 1) : args[++i];
      if (value === undefined || value === '') return fail(io, `${key} needs a value`);
      opts.set(key, value);
    } else if (arg.startsWith('--')) return fail(io, `unknown option ${arg}`);
    else if (file === undefined) file = arg;
    else return fail(io, `unexpected argument ${arg}`);
  }
  if (file === undefined) return fail(io, 'missing FILE');
  let capturedAt: Date | null = null;
  const capturedText = opts.get('--captured-at');
  if (capturedText !== undefined) {
    capturedAt = new Date(capturedText);
    if (Number.isNaN(capturedAt.getTime())) return fail(io, `--captured-at ${capturedText} is not an ISO-8601 date`);
  }
  let text: string;
  try {
    const size = (await stat(file)).size;
    if (size > MAX_GRAPH_BYTES) {
      io.stderr(
        `${file}: ${(size / 1048576).toFixed(1)} MB is over the ${MAX_GRAPH_BYTES / 1048576} MB limit for a graph document; nothing imported\n`,
      );
      return 2;
    }
    text = await readFile(file, 'utf8');
  } catch (err) {
    io.stderr(`${file}: cannot read the file (${(err as NodeJS.ErrnoException).code ?? 'error'}); nothing imported\n`);
    return 2;
  }
  const db = await openDatabaseAt(parseDatabaseUrl(io.env.DATABASE_URL));
  try {
    const graphs = createGraphService(db, () => new Date());
    const meta = await graphs.import(
      {
        fileName: path.basename(file),
        text,
        name: opts.get('--name'),
        channel: opts.get('--channel') ?? null,
        architecture: opts.get('--arch') ?? null,
        capturedAt,
        source: `cli: ${path.resolve(file)}`,
      },
      cliActor(io.env),
    );
    io.stdout(
      `imported graph ${meta.name} (id ${meta.id}): ${meta.nodeCount} releases, ${meta.edgeCount} edges, ` +
        `channel ${meta.channel ?? '(from node metadata)'}, arch ${meta.architecture}\n`,
    );
    return 0;
  } catch (err) {
    if (err instanceof AppError) {
      io.stderr(`${err.message}\n`);
      return 2;
    }
    throw err;
  } finally {
    await closeDatabase(db);
  }
}

async function runList(args: string[], io: CliIo): Promise<number> {
  const json = args.includes('--json');
  const unknown = args.find((a) => a !== '--json');
  if (unknown) return fail(io, `unexpected argument ${unknown}`);
  const db = await openDatabaseAt(parseDatabaseUrl(io.env.DATABASE_URL));
  try {
    const rows = await createGraphService(db, () => new Date()).list();
    if (json) {
      io.stdout(`${JSON.stringify(rows, null, 2)}\n`);
      return 0;
    }
    if (rows.length === 0) {
      io.stdout('no update graphs stored; import one with: fleetplan graph import FILE\n');
      return 0;
    }
    const table = [
      ['ID', 'NAME', 'CHANNEL', 'ARCH', 'CAPTURED (UTC)', 'NODES', 'EDGES', 'IMPORTED (UTC)', 'SOURCE'],
      ...rows.map((r) => [
        String(r.id),
        r.name,
        r.channel ?? '-',
        r.architecture,
        r.capturedAt ? r.capturedAt.toISOString().slice(0, 10) : '-',
        String(r.nodeCount),
        String(r.edgeCount),
        r.importedAt.toISOString().slice(0, 16).replace('T', ' '),
        r.source,
      ]),
    ];
    const widths = table[0]!.map((_, c) => Math.max(...table.map((row) => (row[c] ?? '').length)));
    io.stdout(
      table.map((row) => row.map((cell, c) => (c === row.length - 1 ? cell : cell.padEnd(widths[c] ?? 0))).join('  ')).join('\n') + '\n',
    );
    return 0;
  } finally {
    await closeDatabase(db);
  }
}

/** `graph fetch`: the channels' graphs from an update service now, as the server's refresh does. */
async function runFetch(args: string[], io: CliIo): Promise<number> {
  const channels: string[] = [];
  const opts = new Map<string, string>();
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg !== '--url' && arg !== '--channel' && arg !== '--arch') return fail(io, `unexpected argument ${arg}`);
    const value = args[++i];
    if (!value) return fail(io, `${arg} needs a value`);
    if (arg === '--channel') channels.push(...value.split(',').filter(Boolean));
    else opts.set(arg, value);
  }
  let settings: UpdateServiceSettings | undefined;
  try {
    // only these settings: an unrelated bad variable must not stop a fetch
    settings = parseEnv({
      FLEETPLAN_UPDATE_SERVICE_URL: opts.get('--url') ?? io.env.FLEETPLAN_UPDATE_SERVICE_URL,
      FLEETPLAN_UPDATE_SERVICE_CHANNELS: channels.length ? channels.join(',') : io.env.FLEETPLAN_UPDATE_SERVICE_CHANNELS,
      FLEETPLAN_UPDATE_SERVICE_ARCH: opts.get('--arch') ?? io.env.FLEETPLAN_UPDATE_SERVICE_ARCH,
    }).updateService;
  } catch (err) {
    return fail(io, err instanceof EnvError ? err.problems.join('; ') : String(err));
  }
  if (!settings) return fail(io, 'no update service: give --url and --channel (or set FLEETPLAN_UPDATE_SERVICE_URL and _CHANNELS)');
  const db = await openDatabaseAt(parseDatabaseUrl(io.env.DATABASE_URL));
  try {
    const results = await createGraphRefreshService({ db, realNow: () => new Date(), settings }).refresh(cliActor(io.env));
    for (const r of results)
      if (r.ok) io.stdout(`${r.channel}: stored ${r.detail} (${r.nodes} releases)\n`);
      else io.stderr(`${r.channel}: ${r.detail}; nothing stored\n`);
    return results.every((r) => r.ok) ? 0 : 1;
  } finally {
    await closeDatabase(db);
  }
}

export async function runGraphCommand(args: string[], io: CliIo = processIo): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === '-h' || sub === '--help' || sub === 'help') {
    io.stdout(`${USAGE}\n`);
    return 0;
  }
  if (sub === 'import') return runImport(rest, io);
  if (sub === 'list') return await runList(rest, io);
  if (sub === 'fetch') return runFetch(rest, io);
  return fail(io, sub ? `unknown subcommand ${sub}` : 'missing subcommand');
}
