// Group → role mapping per organization in the real browser: playwright.config.ts starts the
// server with FLEETPLAN_OIDC_ORG_ROLE_GROUPS='app-sre:operator=team-a' (written into the database
// at start-up), and FLEETPLAN_OIDC_ROLE_GROUPS maps no group `team-a`. A user of group team-a
// signs in through the test identity provider, sees the demo organization only, as an operator
// there, and another organization does not exist for them.
import { expect, test } from '@playwright/test';
import { nextSignInAs, withExtraOrganization } from './helpers';
import { openE2eDatabase } from './pages/seeded-fleet';

const OTHER = 'e2e-team-b';

withExtraOrganization(OTHER);

test('a user of group team-a signs in through the identity provider and sees organization app-sre only, as an operator', async ({
  page,
  request,
}) => {
  await nextSignInAs(request, { sub: 'e2e-tina', preferred_username: 'tina', groups: ['team-a'] });
  await page.goto('/fleet');
  await expect(page).toHaveURL(/\/login\?next=%2Ffleet$/);
  await page.getByRole('link', { name: 'Sign in with Corp SSO' }).click();
  await page.waitForURL((url) => url.pathname === '/fleet');

  const menu = page.getByRole('button', { name: 'Signed in as tina' });
  await expect(menu).toContainText('operator');
  // one organization to see: its name, no switcher (the instance holds two)
  await expect(page.getByTestId('organization-name')).toHaveText('app-sre');
  await expect(page.locator('tbody tr').first()).toBeVisible();

  const db = openE2eDatabase();
  try {
    expect(
      db
        .prepare(
          "select o.name as organization, r.role, r.source, u.organizations_only as organizationsOnly from organization_roles r join users u on u.id = r.user_id join organizations o on o.id = r.organization_id where u.username = 'tina'",
        )
        .all(),
    ).toEqual([{ organization: 'app-sre', role: 'operator', source: 'oidc', organizationsOnly: 1 }]);
  } finally {
    db.close();
  }

  // the other organization does not exist for her
  await page.goto(`/fleet?org=${OTHER}`);
  await expect(page.getByText(`There is no organization named "${OTHER}"`).first()).toBeVisible();
});
