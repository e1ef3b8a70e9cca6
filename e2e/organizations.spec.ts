// The top bar's organization switcher in the real browser: with a second organization, choosing
// it puts ?org=NAME in the address, the pages show its (empty) fleet, the navigation keeps the
// choice, and the next visit without ?org= lands there (remembered for the user, in the database).
import { expect, test } from '@playwright/test';
import { signIn, withExtraOrganization } from './helpers';
import { openE2eDatabase } from './pages/seeded-fleet';

const SECOND = 'e2e-second-org';

function rememberedOrganization(): string | null {
  const db = openE2eDatabase();
  try {
    const row = db
      .prepare("select o.name from users u left join organizations o on o.id = u.selected_organization_id where u.username = 'demo'")
      .get() as { name: string | null } | undefined;
    return row?.name ?? null;
  } finally {
    db.close();
  }
}

withExtraOrganization(SECOND);

test('switching organizations: the address, the pages, the navigation and the remembered choice follow', async ({ page }) => {
  await signIn(page);
  await page.goto('/fleet');
  const switcher = page.getByTestId('organization-switcher');
  await expect(switcher).toHaveValue('app-sre');
  await expect(page.locator('.topbar')).not.toContainText(' 0 clusters');

  await switcher.selectOption(SECOND);
  await page.waitForURL(new RegExp(`/fleet\\?org=${SECOND}$`));
  await expect(page.getByTestId('organization-switcher')).toHaveValue(SECOND);
  await expect(page.locator('.topbar')).toContainText('0 clusters');
  await expect(page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Policies' })).toHaveAttribute(
    'href',
    `/policies?org=${SECOND}`,
  );
  expect(rememberedOrganization()).toBe(SECOND);

  // the next visit without ?org= lands on the remembered organization
  await page.goto('/fleet');
  await expect(page.getByTestId('organization-switcher')).toHaveValue(SECOND);
  await expect(page.locator('.topbar')).toContainText('0 clusters');

  await page.getByTestId('organization-switcher').selectOption('app-sre');
  await page.waitForURL(/\/fleet\?org=app-sre$/);
  await expect(page.locator('.topbar')).not.toContainText(' 0 clusters');
  expect(rememberedOrganization()).toBe('app-sre');
});
