// Shared e2e helpers.
import { expect, type Page } from '@playwright/test';

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
