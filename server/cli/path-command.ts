// `fleetplan path`: file I/O and flags around the pure solver in server/domain/path (contracts/path.md).
import { readFile } from 'node:fs/promises';
import { loadGraphSet, type GraphDocumentText } from '../domain/path/load-graph-set';
import { solveUpgradePath } from '../domain/path/solve-upgrade-path';
import { renderImageSet } from '../domain/path/imageset';
import { normalizeVersion } from '../domain/version/version';

const EXIT_PATH = 0;
const EXIT_INVALID = 2;
const EXIT_NO_PATH = 3;

const USAGE = `usage: fleetplan path --graph FILE [--graph FILE ...] --from VERSION
                     [--channel NAME] [--to VERSION] [--allow-conditional]
                     [--format json|imageset]
`;

type Format = 'json' | 'imageset';

interface PathArgs {
  graphs: string[];
  from: string | null;
  to: string | null;
  channel: string | null;
  allowConditional: boolean;
  format: Format;
}

type ParsedArgs = { ok: true; args: PathArgs } | { ok: false; error: string } | { ok: 'help' };

const VALUE_FLAGS = new Set(['--graph', '--from', '--to', '--channel', '--format']);

export function parsePathArgs(argv: readonly string[]): ParsedArgs {
  const args: PathArgs = { graphs: [], from: null, to: null, channel: null, allowConditional: false, format: 'json' };
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i] as string;
    if (word === '--help' || word === '-h') return { ok: 'help' };
    if (word === '--allow-conditional') {
      args.allowConditional = true;
      continue;
    }
    const eq = word.indexOf('=');
    const flag = word.startsWith('--') && eq > 0 ? word.slice(0, eq) : word;
    if (!VALUE_FLAGS.has(flag)) {
      return { ok: false, error: word.startsWith('-') ? `unknown option ${word}` : `unexpected argument ${JSON.stringify(word)}` };
    }
    let value: string | undefined;
    if (flag !== word) value = word.slice(eq + 1);
    else value = argv[++i];
    if (value === undefined || value === '') return { ok: false, error: `${flag} needs a value` };
    switch (flag) {
      case '--graph':
        args.graphs.push(value);
        break;
      case '--from':
      case '--to':
      case '--channel': {
        const key = flag.slice(2) as 'from' | 'to' | 'channel';
        if (args[key] !== null && args[key] !== value) return { ok: false, error: `${flag} given twice (${args[key]}, ${value})` };
        args[key] = value;
        break;
      }
      case '--format':
        if (value !== 'json' && value !== 'imageset')
          return { ok: false, error: `unknown --format ${JSON.stringify(value)} (json or imageset)` };
        args.format = value;
        break;
    }
  }
  if (args.graphs.length === 0) return { ok: false, error: 'no --graph FILE given' };
  if (args.from === null) return { ok: false, error: 'no --from VERSION given' };
  for (const [flag, v] of [
    ['--from', args.from],
    ['--to', args.to],
  ] as const) {
    if (v !== null && normalizeVersion(v) === null) {
      return { ok: false, error: `${flag} ${JSON.stringify(v)} is not a SemVer version (MAJOR.MINOR.PATCH[-PRE][+BUILD])` };
    }
  }
  return { ok: true, args };
}

export interface PathCommandIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  readText: (file: string) => Promise<string>;
}

const processIo: PathCommandIo = {
  stdout: (t) => void process.stdout.write(t),
  stderr: (t) => void process.stderr.write(t),
  readText: (f) => readFile(f, 'utf8'),
};

/** Runs `fleetplan path ARGS`; returns the exit code (0 path, 3 no path, 2 invalid input). */
export async function runPathCommand(argv: string[], io: PathCommandIo = processIo): Promise<number> {
  const parsed = parsePathArgs(argv);
  if (parsed.ok === 'help') {
    io.stdout(USAGE);
    return EXIT_PATH;
  }
  if (!parsed.ok) {
    io.stderr(`fleetplan path: ${parsed.error}\n${USAGE}`);
    return EXIT_INVALID;
  }
  const { args } = parsed;

  const documents: GraphDocumentText[] = [];
  for (const file of args.graphs) {
    try {
      documents.push({ source: file, text: await io.readText(file) });
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      const why =
        code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a directory' : err instanceof Error ? err.message : String(err);
      io.stderr(`fleetplan path: ${file}: cannot read: ${why}\n`);
      return EXIT_INVALID;
    }
  }
  const loaded = loadGraphSet(documents);
  if (!loaded.ok) {
    io.stderr(`fleetplan path: ${loaded.source}: ${loaded.error}\n`);
    return EXIT_INVALID;
  }
  const { index } = loaded;
  const answer = solveUpgradePath(index, {
    from: args.from as string,
    to: args.to,
    channel: args.channel,
    allowConditional: args.allowConditional,
  });

  if (args.format === 'imageset') {
    if (answer.path === null) {
      io.stderr(`fleetplan path: no path (${answer.reason}): ${answer.message}\n`);
      return EXIT_NO_PATH;
    }
    const imageset = renderImageSet(index, answer, { channel: args.channel });
    for (const w of imageset.warnings) io.stderr(`fleetplan path: ${w}\n`);
    io.stdout(imageset.yaml);
    return EXIT_PATH;
  }

  io.stdout(`${JSON.stringify(answer, null, 2)}\n`);
  if (answer.path === null) {
    io.stderr(`fleetplan path: no path (${answer.reason}): ${answer.message}\n`);
    return EXIT_NO_PATH;
  }
  return EXIT_PATH;
}
