// The committed migrations are what the schemas say: `drizzle-kit generate` finds nothing to add,
// for SQLite (db/schema.ts → db/migrations) and PostgreSQL (db/pg-schema.ts → db/pg-migrations).
// It runs on copies of the migration folders, so a forgotten `npm run db:generate` fails here
// instead of writing files into the checkout.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = path.resolve(__dirname, '..');
const DRIZZLE_KIT = path.join(ROOT, 'node_modules', '.bin', 'drizzle-kit');
let dir: string;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fleetplan-generate-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function generate(dialect: 'sqlite' | 'postgresql', schema: string, migrations: string) {
  const out = path.join(dir, dialect);
  fs.cpSync(path.join(ROOT, migrations), out, { recursive: true });
  // drizzle-kit reads paths relative to its working directory (it prefixes them with ./)
  const config = path.join(dir, `${dialect}.config.ts`);
  fs.writeFileSync(config, `export default ${JSON.stringify({ dialect, schema: `./${schema}`, out: path.relative(ROOT, out) })};\n`);
  const before = fs.readdirSync(out).sort();
  const run = spawnSync(DRIZZLE_KIT, ['generate', '--config', config], { cwd: ROOT, encoding: 'utf8' });
  return { output: `${run.stdout}${run.stderr}`, status: run.status, added: fs.readdirSync(out).filter((f) => !before.includes(f)) };
}

describe('committed migrations', () => {
  it.each([
    ['sqlite', 'db/schema.ts', 'db/migrations'],
    ['postgresql', 'db/pg-schema.ts', 'db/pg-migrations'],
  ] as const)(
    '%s: drizzle-kit generate finds no schema changes',
    (dialect, schema, migrations) => {
      const result = generate(dialect, schema, migrations);
      expect(result.output).toContain('No schema changes');
      expect(result.added).toEqual([]);
      expect(result.status).toBe(0);
    },
    60_000,
  );
});
