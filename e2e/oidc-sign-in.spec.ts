// Sign-in with the team's identity provider: the login page's "Sign in with Corp SSO" goes to a
// real OpenID Connect provider (oidc-provider, started by playwright.config.ts) and back, the
// user's groups decide the role, and a user in no mapped group is told so on the login page.
import { expect, test } from '@playwright/test';
import { nextSignInAs } from './helpers';

test('an SRE signs in through the identity provider and lands where they were going, as an operator', async ({ page, request }) => {
  await nextSignInAs(request, { sub: 'e2e-olivia', preferred_username: 'olivia', groups: ['staff', 'sre'] });
  await page.goto('/versions');
  await expect(page).toHaveURL(/\/login\?next=%2Fversions$/);
  await page.getByRole('link', { name: 'Sign in with Corp SSO' }).click();
  await page.waitForURL((url) => url.pathname === '/versions');
  const menu = page.getByRole('button', { name: 'Signed in as olivia' });
  await expect(menu).toBeVisible();
  await expect(menu).toContainText('operator');
});

test('a user in none of the mapped groups is refused with the reason, and gets no session', async ({ page, request }) => {
  await nextSignInAs(request, { sub: 'e2e-mallory', preferred_username: 'mallory', groups: ['marketing'] });
  await page.goto('/fleet');
  await page.getByRole('link', { name: 'Sign in with Corp SSO' }).click();
  await page.waitForURL((url) => url.pathname === '/login' && url.searchParams.has('error'));
  await expect(page.getByRole('alert').filter({ hasText: 'Corp SSO' })).toContainText(
    'mallory signed in at Corp SSO but is in none of the groups',
  );
  await page.goto('/fleet');
  await expect(page).toHaveURL(/\/login\?next=%2Ffleet$/);
});
