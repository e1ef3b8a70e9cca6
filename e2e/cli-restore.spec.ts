// `fleetplan restore` against the database of the running e2e server (scheduler off, like
// playwright.config.ts starts it): refused, and the server keeps serving its own data. Before,
// restore only looked for scheduler leases, so it swapped the file under this server and every
// later write went to the old, unlinked file.
import { expect, test } from '@playwright/test';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { signIn } from './helpers';
import { openE2eDatabase } from './pages/seeded-fleet';

function fleetplan(args: string[]) {
  return spawnSync(process.execPath, ['bin/fleetplan.mjs', ...args], {
    cwd: process.cwd(),
    env: { ...process.env, DATABASE_URL: process.env.E2E_DATABASE_FILE },
    encoding: 'utf8',
    timeout: 60_000,
  });
}

test('restore refuses while the server has the database open, and the server keeps working', async ({ page }) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fleetplan-e2e-restore-'));
  try {
    const backup = path.join(dir, 'backup.db');
    const made = fleetplan(['backup', backup]);
    expect(made.stderr).toBe('');
    expect(made.status).toBe(0);

    const restore = fleetplan(['restore', backup]);
    expect(restore.stderr).toMatch(/^fleetplan restore: another process has .* open \(a running fleetplan server/);
    expect(restore.status).toBe(1);

    const db = openE2eDatabase();
    const total = (db.prepare('select count(*) as n from clusters').get() as { n: number }).n;
    db.close();
    expect(total).toBeGreaterThan(40);
    await signIn(page);
    await page.goto('/fleet');
    await expect(page.getByText(`${total} clusters`, { exact: true })).toBeVisible();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
