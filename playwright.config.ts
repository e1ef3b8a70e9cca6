// E2E: the built app (`npm run build`) served by `next start` on a fresh temporary SQLite
// database seeded with the demo fleet, driven in Debian's Chromium.
import { defineConfig } from '@playwright/test';
import os from 'node:os';
import path from 'node:path';

const PORT = Number(process.env.E2E_PORT ?? 3999);
/** the test identity provider's port: far from PORT, since parallel runs use neighbouring ports */
const OIDC_PORT = PORT + 500;
const OIDC_ISSUER = `http://127.0.0.1:${OIDC_PORT}`;
// Workers inherit this from the main process, so specs can open the same database file.
process.env.E2E_DATABASE_FILE ??= path.join(os.tmpdir(), `fleetplan-e2e-${process.pid}.db`);

// Specs that start their own `npm start`, fake provider and database (e2e/crash/processes.ts) and
// never use the shared server below: they run in a second worker, beside the specs of the shared
// server, and mostly wait on their servers (the crash test alone takes ~2 minutes), so together
// they take about as long as the shared ones. A spec not named here runs on the shared server.
const OWN_SERVER_SPECS = ['crash-restart.spec.ts', 'onboarding.spec.ts', 'version-gate.spec.ts', 'replicas-postgres.spec.ts'];

export default defineConfig({
  testDir: './e2e',
  timeout: 60_000,
  expect: { timeout: 10_000 },
  fullyParallel: false,
  // one worker per project: the shared server's specs change its one database (ticks,
  // organizations), so they run one at a time; the own-server specs run one at a time beside them.
  workers: 2,
  projects: [
    { name: 'own servers', testMatch: OWN_SERVER_SPECS, workers: 1 },
    { name: 'shared server', testIgnore: OWN_SERVER_SPECS, workers: 1 },
  ],
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
  webServer: [
    {
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
        // sign-in with the team's identity provider: the test OP below (e2e/oidc-sign-in.spec.ts)
        FLEETPLAN_OIDC_ID: 'corp',
        FLEETPLAN_OIDC_NAME: 'Corp SSO',
        FLEETPLAN_OIDC_ISSUER: OIDC_ISSUER,
        FLEETPLAN_OIDC_CLIENT_ID: 'fleetplan',
        FLEETPLAN_OIDC_CLIENT_SECRET: 'test-client-secret-not-for-production',
        FLEETPLAN_OIDC_SCOPES: 'openid profile email groups',
        FLEETPLAN_OIDC_ROLE_GROUPS: 'admin=fleet-admins;operator=sre;viewer=staff',
        // an organization's own mapping, written at start-up (e2e/oidc-organization-roles.spec.ts)
        FLEETPLAN_OIDC_ORG_ROLE_GROUPS: 'app-sre:operator=team-a',
      },
    },
    {
      // a real OpenID Connect provider (oidc-provider) on loopback: tests/fakes/test-oidc-idp.ts
      command: `node --import tsx tests/fakes/serve-oidc.ts --port ${OIDC_PORT} --redirect-uri http://127.0.0.1:${PORT}/api/auth/corp/callback`,
      url: `${OIDC_ISSUER}/.well-known/openid-configuration`,
      timeout: 60_000,
      reuseExistingServer: false,
      stdout: 'pipe',
    },
  ],
});
