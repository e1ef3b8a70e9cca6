// `fleetplan plan FILE [--now ISO-8601]` (contracts/plan.md): the decision engine for scripts and checks.
import { readFile } from 'node:fs/promises';
import { decideUpgrades } from '../domain/plan/decide-upgrades';
import { parsePlanDocument } from '../domain/plan/parse-plan-document';
import type { Problem } from '../domain/plan/types';

const USAGE = 'usage: fleetplan plan FILE [--now ISO-8601]';

type PlanArgs = { file: string; now?: string };

function parseArgs(args: string[]): PlanArgs | string {
  let file: string | undefined;
  let now: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === '--now') {
      const value = args[i + 1];
      if (value === undefined) return '--now needs a value';
      now = value;
      i++;
    } else if (arg.startsWith('--now=')) {
      now = arg.slice('--now='.length);
    } else if (arg === '-h' || arg === '--help') {
      return 'help';
    } else if (arg.startsWith('--') && arg.length > 2) {
      return `unknown option ${arg}`;
    } else if (file === undefined) {
      file = arg;
    } else {
      return `unexpected argument ${arg}`;
    }
  }
  if (file === undefined) return 'missing FILE';
  return now === undefined ? { file } : { file, now };
}

function formatProblem(p: Problem): string {
  if (p.path.startsWith('line ')) return `${p.path}: ${p.message}`;
  return p.line === undefined ? `${p.path}: ${p.message}` : `${p.path}: line ${p.line}: ${p.message}`;
}

/**
 * Runs the command. Exit 0 with one JSON document on stdout; 2 with `PATH: message` lines on
 * stderr (and nothing on stdout) for invalid input or usage; exceptions propagate (exit 1).
 */
export async function runPlanCommand(args: string[]): Promise<number> {
  const parsed = parseArgs(args);
  if (parsed === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (typeof parsed === 'string') {
    process.stderr.write(`fleetplan plan: ${parsed}\n${USAGE}\n`);
    return 2;
  }
  let text: string;
  try {
    text = await readFile(parsed.file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'error';
    process.stderr.write(`${parsed.file}: cannot read the file (${code})\n`);
    return 2;
  }
  const result = await parsePlanDocument(text, parsed.now === undefined ? {} : { now: parsed.now });
  if (!result.ok) {
    process.stderr.write(result.problems.map((p) => `${formatProblem(p)}\n`).join(''));
    return 2;
  }
  const plan = decideUpgrades(result.input);
  process.stdout.write(`${JSON.stringify(plan, null, 2)}\n`);
  return 0;
}
