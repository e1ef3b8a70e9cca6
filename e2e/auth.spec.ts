// Sign-in regression in the browser: `next` after sign-in never leaves the site (tab, newline,
// backslash and dot-segment tricks that browsers turn into `//host`).
import { expect, test } from '@playwright/test';

test.describe('after sign-in', () => {
  for (const next of ['%2F%09%2F127.0.0.1:3290/x', '%2F%0A%2F127.0.0.1:3290/x', '%2F%5C127.0.0.1:3290/x', '%2F.%2F%2F127.0.0.1:3290/x']) {
    test(`stays on this origin for next=${next}`, async ({ page, baseURL }) => {
      await page.goto(`/login?next=${next}`);
      await page.getByRole('button', { name: /demo/i }).click();
      await page.waitForURL((url) => !url.pathname.startsWith('/login'));
      const landed = new URL(page.url());
      expect(landed.origin).toBe(new URL(baseURL!).origin);
      expect(landed.pathname).toBe('/fleet');
    });
  }

  test('goes to a same-site next path', async ({ page }) => {
    await page.goto('/login?next=%2Fpolicies');
    await page.getByRole('button', { name: /demo/i }).click();
    await page.waitForURL(/\/policies$/);
  });
});
