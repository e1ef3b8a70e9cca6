// Unit and integration tests (vitest). E2E lives in e2e/ and runs under Playwright.
import { defineConfig } from 'vitest/config';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.dirname(fileURLToPath(import.meta.url));

export default defineConfig({
  resolve: { alias: { '@': root } },
  test: {
    include: ['server/**/*.test.ts', 'lib/**/*.test.ts', 'db/**/*.test.ts', 'components/**/*.test.ts', 'tests/**/*.test.ts'],
    environment: 'node',
    testTimeout: 30_000,
    // Set-up hooks seed demo fleets, start identity providers and bundle workers: seconds on a
    // quiet machine, more beside a second worker and the typecheck on CI's two cores. vitest's
    // default of 10 s is the only wall-time limit such a hook has; this one only bounds a hang.
    hookTimeout: 60_000,
    pool: 'threads',
    // Two files at a time. vitest's default is one worker fewer than the cores: one on the 2-core
    // machines this runs on, which left a core idle for much of the run (many files wait on child
    // processes, servers and PostgreSQL). The two tests that failed under a second worker's load
    // timed the machine (a property test's time limit, the Kubernetes exec plugin's 500 ms on a
    // real clock); they no longer do.
    maxWorkers: 2,
  },
});
