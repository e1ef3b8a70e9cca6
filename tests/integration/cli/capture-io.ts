// The CLI commands' io for tests: a database file, the audit actor `cli:test`, and what they print.
import type { CliIo } from '@/server/cli/import-command';

export function captureIo(dbFile: string): CliIo & { out: string; err: string } {
  const o = {
    out: '',
    err: '',
    env: { DATABASE_URL: dbFile, FLEETPLAN_ACTOR: 'cli:test' },
    stdout: (t: string) => void (o.out += t),
    stderr: (t: string) => void (o.err += t),
  };
  return o;
}
