// E2E: the built app (`npm run build`) served by `next start` on a fresh temporary SQLite
// database seeded with the demo fleet, driven in Debian's Chromium.
import { defineConfig } from '@playwright/test';
import os from 'node:os';
import path from 'node:path';

const PORT = Number(process.env.E2E_PORT ?? 3999);
// Workers inherit this from the main process, so specs can open the same database file.
process.env.E2E_DATABASE_FILE ??= path.join(os.tmpdir(), `fleetplan-e2e-${process.pid}.db`);

export default defineConfig({
  testDir: './e2e',
  timeout: 60_000,
  expect: { timeout: 10_000 },
  fullyParallel: false,
  workers: 1,
  retries: 0,
  reporter: [['list'], ['json', { outputFile: 'test-results/e2e-results.json' }]],
  outputDir: 'test-results/artifacts',
  use: {
    baseURL: `http://127.0.0.1:${PORT}`,
    viewport: { width: 1280, height: 800 },
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
    },
  },
  webServer: {
    command: `node scripts/e2e-server.mjs`,
    url: `http://127.0.0.1:${PORT}/api/healthz`,
    timeout: 120_000,
    reuseExistingServer: false,
    stdout: 'pipe',
    env: {
      PORT: String(PORT),
      DATABASE_URL: process.env.E2E_DATABASE_FILE,
      FLEETPLAN_SCHEDULER: 'off',
      FLEETPLAN_DEMO_LOGIN: '1',
      NEXT_TELEMETRY_DISABLED: '1',
    },
  },
});
