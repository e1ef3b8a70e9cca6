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
    pool: 'threads',
  },
});
