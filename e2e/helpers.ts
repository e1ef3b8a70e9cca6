// Shared e2e helpers.
import { expect, test, type APIRequestContext, type Page } from '@playwright/test';
import { openE2eDatabase } from './pages/seeded-fleet';

/**
 * Signs in with the demo sign-in (the e2e server runs with FLEETPLAN_DEMO_LOGIN=1). Every page
 * needs a session, so a fresh browser context must land on the login page first: if it does not,
 * the app has stopped asking and the test fails here rather than passing without signing in.
 */
export async function signIn(page: Page): Promise<void> {
  await page.goto('/fleet');
  await expect(page).toHaveURL(/\/login\?next=%2Ffleet$/);
  await page.getByRole('button', { name: /demo/i }).click();
  await page.waitForURL((url) => !url.pathname.startsWith('/login'));
}

/** One tick through the Scheduler page's "Run now" (the e2e server's scheduler loop is off), waited for until it succeeded. */
export async function runTick(page: Page): Promise<void> {
  await page.goto('/scheduler');
  await page.getByRole('button', { name: 'Run now', exact: true }).click();
  await expect(page.getByTestId('run-result')).toContainText(/#\d+ succeeded/, { timeout: 60_000 });
}

/** the test identity provider playwright.config.ts starts (500 above the app's port) */
const IDP = `http://127.0.0.1:${Number(process.env.E2E_PORT ?? 3999) + 500}`;

/** Tells the test identity provider who the next sign-in through it is. */
export async function nextSignInAs(
  request: APIRequestContext,
  account: { sub: string; preferred_username: string; groups: string[] },
): Promise<void> {
  const res = await request.post(`${IDP}/_test/login-as`, { data: account });
  expect(res.ok()).toBe(true);
}

/**
 * Adds an empty organization `name` for the spec file's tests, and removes it afterwards with
 * every user's remembered choice, so the other specs see the demo's single organization again.
 */
export function withExtraOrganization(name: string): void {
  test.beforeAll(() => {
    const db = openE2eDatabase({ readonly: false });
    try {
      db.prepare('insert into organizations (name, updated_at) values (?, ?)').run(name, Date.now());
    } finally {
      db.close();
    }
  });
  test.afterAll(() => {
    const db = openE2eDatabase({ readonly: false });
    try {
      db.prepare('update users set selected_organization_id = null').run();
      db.prepare('delete from organizations where name = ?').run(name);
    } finally {
      db.close();
    }
  });
}
