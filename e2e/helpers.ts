// Shared e2e helpers.
import type { Page } from '@playwright/test';

/** Signs in through the login page when the app asks for it (demo login), else does nothing. */
export async function signIn(page: Page): Promise<void> {
  await page.goto('/fleet');
  if (!page.url().includes('/login')) return;
  const demo = page.getByRole('button', { name: /demo/i });
  await demo.click();
  await page.waitForURL((url) => !url.pathname.startsWith('/login'));
}
