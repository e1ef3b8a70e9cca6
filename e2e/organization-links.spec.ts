// Links keep the organization: on the organization the address names (?org=NAME), following the
// app's own links — Fleet → a cluster's page ("why not?") →
// the main navigation's Sectors → a sector's clusters, and Back — keeps ?org= in every address,
// and every page shows that organization's data. A second, empty organization exists, so a link
// that dropped ?org= could land on it (the user's remembered choice).
import { expect, test } from '@playwright/test';
import { signIn, withExtraOrganization } from './helpers';
import { openE2eDatabase } from './pages/seeded-fleet';

const OTHER = 'e2e-links-other';
const ORG = 'app-sre';
const CLUSTER = 'telemeter-stage-01';
const keepsOrg = new RegExp(`[?&]org=${ORG}(&|$)`);

withExtraOrganization(OTHER);

test('following links from Fleet to a cluster, Sectors and back keeps ?org= and the organization', async ({ page }) => {
  await signIn(page);
  // the user's remembered organization is the other (empty) one: only ?org= says which to show
  const db = openE2eDatabase({ readonly: false });
  try {
    db.prepare("update users set selected_organization_id = (select id from organizations where name = ?) where username = 'demo'").run(
      OTHER,
    );
  } finally {
    db.close();
  }

  await page.goto(`/fleet?org=${ORG}`);
  await page.getByLabel('Search clusters').fill(CLUSTER);
  const row = page.locator(`tr[data-cluster="${CLUSTER}"]`);
  await expect(row).toBeVisible();
  await expect(page).toHaveURL(keepsOrg);

  await row.getByRole('link', { name: CLUSTER }).click();
  await page.waitForURL((url) => url.pathname === `/clusters/${CLUSTER}`);
  await expect(page).toHaveURL(keepsOrg);
  // the cluster's "why not?" (only the demo organization has this cluster)
  await expect(page.getByTestId('never-upgrades')).toContainText('Will never upgrade as configured');

  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Sectors' }).click();
  await page.waitForURL((url) => url.pathname === '/sectors');
  await expect(page).toHaveURL(keepsOrg);
  const prodBlue = page.locator('[data-sector="prod-blue"]');
  await expect(prodBlue).toBeVisible();

  await prodBlue.getByRole('link', { name: /clusters/ }).click();
  await page.waitForURL((url) => url.pathname === '/fleet' && url.searchParams.get('sector') === 'prod-blue');
  await expect(page).toHaveURL(keepsOrg);
  await expect(page.locator('tbody tr').first()).toBeVisible();

  await page.goBack();
  await page.goBack();
  await page.waitForURL((url) => url.pathname === `/clusters/${CLUSTER}`);
  await expect(page).toHaveURL(keepsOrg);
  await expect(page.getByTestId('never-upgrades')).toBeVisible();

  // the breadcrumb back to the fleet
  await page.getByRole('link', { name: 'Fleet', exact: true }).first().click();
  await page.waitForURL((url) => url.pathname === '/fleet');
  await expect(page).toHaveURL(keepsOrg);
  await expect(page.getByTestId('organization-switcher')).toHaveValue(ORG);
});
