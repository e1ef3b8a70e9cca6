// How CLI commands fail: one clear line on stderr, exit 2 for a usage mistake, 1 for anything
// else; a stack trace only with FLEETPLAN_DEBUG=1 (main.ts prints them).
// its own module: importing open-database here would load better-sqlite3 and drizzle for every command
import { DatabaseOpenError } from '@/db/database-open-error';

export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

/** The command line is wrong: printed with the command's usage, exit 2. */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly usage: string,
  ) {
    super(message);
    this.name = 'UsageError';
  }
}

/** An expected failure with a message meant for the operator (no stack needed), exit 1. */
export class CliFailure extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CliFailure';
  }
}

export type FileArgs = { file: string; flags: Set<string> };

/** `FILE [--flag ...]`: exactly one file and only the given flags; 'help' for -h/--help, else what is wrong. */
export function parseFileArgs(args: string[], allowedFlags: string[]): FileArgs | 'help' | { usageError: string } {
  const flags = new Set<string>();
  const files: string[] = [];
  for (const arg of args) {
    if (arg === '-h' || arg === '--help') return 'help';
    if (allowedFlags.includes(arg)) flags.add(arg);
    else if (arg.startsWith('-') && arg !== '-') return { usageError: `unknown option ${arg}` };
    else files.push(arg);
  }
  if (files.length === 0) return { usageError: 'missing FILE' };
  if (files.length > 1) return { usageError: `unexpected argument ${files[1]}` };
  return { file: files[0]!, flags };
}

/** one line (or, for usage errors, the line and the usage) for a failed command; the exit code */
export function describeFailure(
  command: string,
  err: unknown,
  env: Record<string, string | undefined>,
): { text: string; exitCode: number } {
  const debug = env.FLEETPLAN_DEBUG === '1';
  const stack = debug && err instanceof Error && err.stack ? `\n${err.stack}` : '';
  if (err instanceof UsageError) return { text: `fleetplan ${command}: ${err.message}\n${err.usage}${stack}\n`, exitCode: EXIT_USAGE };
  if (err instanceof CliFailure || err instanceof DatabaseOpenError) {
    return { text: `fleetplan ${command}: ${oneLine(err.message)}${stack}\n`, exitCode: EXIT_FAILURE };
  }
  const message = err instanceof Error ? `${err.message}` : String(err);
  const hint = debug ? '' : ' (FLEETPLAN_DEBUG=1 shows the stack trace)';
  return { text: `fleetplan ${command}: ${oneLine(message)}${hint}${stack}\n`, exitCode: EXIT_FAILURE };
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').trim();
}
