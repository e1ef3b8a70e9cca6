// Visits the cluster detail, policies and versions pages on the seeded fleet through page objects
// (e2e/pages/): content renders, no console errors, screenshots saved under
// test-results/screenshots/ (light and dark).
import { expect, test } from '@playwright/test';
import { signIn } from './helpers';
import { ClusterDetailPage } from './pages/cluster-detail-page';
import { PoliciesPage } from './pages/policies-page';
import { blockedVersion, managedCluster } from './pages/seeded-fleet';
import { VersionsPage } from './pages/versions-page';

for (const scheme of ['light', 'dark'] as const) {
  test.describe(`pages (${scheme})`, () => {
    test.use({ colorScheme: scheme });

    test('cluster detail explains the decision', async ({ page }) => {
      await signIn(page);
      const detail = new ClusterDetailPage(page);
      const cluster = managedCluster();
      await detail.goto(cluster.name);
      await detail.expectDecisionExplained(cluster.name);
      await detail.expectNoHorizontalOverflow();
      await detail.screenshot(`cluster-detail-${scheme}`);
      detail.expectNoErrors();
    });

    test('unknown cluster shows a not-found state', async ({ page }) => {
      await signIn(page);
      await new ClusterDetailPage(page).goto('no-such-cluster-xyz');
      await expect(page.getByText('No cluster named no-such-cluster-xyz')).toBeVisible();
    });

    test('policies: organization editor, blocked versions in the YAML, and the cluster list', async ({ page }) => {
      await signIn(page);
      const policies = new PoliciesPage(page);
      await policies.goto();
      await policies.expectOrganizationEditor();
      await policies.expectYamlMentions(blockedVersion().pattern);
      await policies.expectNoHorizontalOverflow();
      await policies.screenshot(`policies-${scheme}`);
      await policies.openClusterPolicies();
      await policies.screenshot(`policies-clusters-${scheme}`, false);
      policies.expectNoErrors();
    });

    test('versions: soak table and blocked versions', async ({ page }) => {
      await signIn(page);
      const versions = new VersionsPage(page);
      await versions.goto();
      await expect(versions.historyRows.first()).toBeVisible();
      await expect(versions.blockedRow(blockedVersion().pattern)).toBeVisible();
      await versions.expectNoHorizontalOverflow();
      await versions.screenshot(`versions-${scheme}`);
      versions.expectNoErrors();
    });
  });
}

test('the app icon is a static asset in public/, linked from every page', async ({ page, request }) => {
  const icon = await request.get('/icon.svg');
  expect(icon.status()).toBe(200);
  expect(icon.headers()['content-type']).toMatch(/^image\/svg\+xml/);
  await signIn(page);
  await expect(page.locator('head link[rel="icon"]')).toHaveAttribute('href', '/icon.svg');
});
