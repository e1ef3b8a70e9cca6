// `npm start` (scripts/start.mjs) checks the settings before anything else: a bad value stops it
// with exit 1 and a message naming the variable, and the database is not even created.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

function start(env: Record<string, string>) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fleetplan-start-'));
  const dbFile = path.join(dir, 'fleet.db');
  const r = spawnSync(process.execPath, ['scripts/start.mjs'], {
    cwd: process.cwd(),
    env: { NODE_ENV: 'production', PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? dir, DATABASE_URL: dbFile, PORT: '1', ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
  const dbCreated = fs.existsSync(dbFile);
  fs.rmSync(dir, { recursive: true, force: true });
  return { ...r, dbCreated };
}

describe('npm start with invalid settings', () => {
  it.each([
    [{ FLEETPLAN_TICK_SECONDS: 'abc' }, /FLEETPLAN_TICK_SECONDS must be a number from 1 to 86400, not 'abc'/],
    [{ FLEETPLAN_PROVIDER: 'aws' }, /FLEETPLAN_PROVIDER must be one of simulator, ocm, kubernetes, not 'aws'/],
    // a provider that could never be built: refused at start, not one skipped tick after another
    [{ FLEETPLAN_PROVIDER: 'ocm' }, /FLEETPLAN_PROVIDER=ocm needs credentials/],
    [{ FLEETPLAN_DELIVERY_CONCURRENCY: '0' }, /FLEETPLAN_DELIVERY_CONCURRENCY must be a whole number from 1 to 64, not '0'/],
  ])('%o: exits 1 naming the variable, before touching the database', (env, message) => {
    const r = start(env);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^fleetplan: invalid configuration:/);
    expect(r.stderr).toMatch(message);
    expect(r.stdout).toBe('');
    expect(r.dbCreated).toBe(false);
  });
});
