// Visits the cluster detail, policies and versions pages on the seeded fleet: content renders,
// no console errors, screenshots saved under test-results/screenshots/ (light and dark).
import { expect, test, type Page } from '@playwright/test';
import Database from 'better-sqlite3';
import { signIn } from './helpers';

function watchErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => {
    if (m.type() !== 'error') return;
    if (/favicon/.test(m.location().url)) return;
    errors.push(m.text());
  });
  return errors;
}

async function noHorizontalOverflow(page: Page) {
  expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
}

function seeded() {
  const db = new Database(process.env.E2E_DATABASE_FILE!, { readonly: true });
  const managed = db
    .prepare(
      "select name, version from clusters where upgrade_policy is not null and json_extract(upgrade_policy, '$.schedule.location') is not null order by name limit 1",
    )
    .get() as { name: string; version: string } | undefined;
  const any = db.prepare('select name, version from clusters where upgrade_policy is not null order by name limit 1').get() as {
    name: string;
    version: string;
  };
  const blocked = db.prepare('select pattern from blocked_versions order by id limit 1').get() as { pattern: string } | undefined;
  db.close();
  return { cluster: managed ?? any, blocked };
}

for (const scheme of ['light', 'dark'] as const) {
  test.describe(`pages (${scheme})`, () => {
    test.use({ colorScheme: scheme });

    test('cluster detail explains the decision', async ({ page }) => {
      await signIn(page);
      const errors = watchErrors(page);
      const { cluster } = seeded();
      await page.goto(`/clusters/${encodeURIComponent(cluster.name)}`);
      await expect(page.getByRole('heading', { name: cluster.name, level: 1 })).toBeVisible();
      await expect(page.getByText('Engine decision now')).toBeVisible();
      await expect(page.getByTestId('decision-message')).not.toBeEmpty();
      await expect(page.getByRole('heading', { name: /Next schedule runs/ })).toBeVisible();
      // next runs in the cluster's zone and in UTC
      await expect(page.getByRole('list', { name: /Next runs in/ }).locator('li')).toHaveCount(5);
      await expect(page.getByRole('list', { name: /Next runs in/ })).toContainText('UTC');
      await expect(page.getByRole('table', { name: 'Candidate versions' }).or(page.getByText('No available upgrades'))).toBeVisible();
      await expect(page.getByRole('heading', { name: 'Upgrade history' })).toBeVisible();
      await noHorizontalOverflow(page);
      await page.screenshot({ path: `test-results/screenshots/cluster-detail-${scheme}.png`, fullPage: true });
      expect(errors).toEqual([]);
    });

    test('unknown cluster shows a not-found state', async ({ page }) => {
      await signIn(page);
      await page.goto('/clusters/no-such-cluster-xyz');
      await expect(page.getByText('No cluster named no-such-cluster-xyz')).toBeVisible();
    });

    test('policies: organization editor and cluster list', async ({ page }) => {
      await signIn(page);
      const errors = watchErrors(page);
      const { blocked } = seeded();
      await page.goto('/policies');
      await expect(page.getByRole('heading', { name: 'Policies', level: 1 })).toBeVisible();
      await expect(page.getByRole('heading', { name: 'Sectors' })).toBeVisible();
      await expect(page.getByLabel('Sector 1 name')).not.toHaveValue('');
      if (blocked) await expect(page.locator('#policy-yaml')).toHaveValue(new RegExp(blocked.pattern.replace(/[\\^$.*+?()[\]{}|]/g, '.')));
      await expect(page.getByRole('heading', { name: 'History' })).toBeVisible();
      await noHorizontalOverflow(page);
      await page.screenshot({ path: `test-results/screenshots/policies-${scheme}.png`, fullPage: true });
      await page.getByRole('link', { name: 'Cluster policies' }).click();
      await expect(page.locator('tbody tr').first()).toBeVisible();
      await page.screenshot({ path: `test-results/screenshots/policies-clusters-${scheme}.png` });
      expect(errors).toEqual([]);
    });

    test('versions: soak table and blocked versions', async ({ page }) => {
      await signIn(page);
      const errors = watchErrors(page);
      const { blocked } = seeded();
      await page.goto('/versions');
      await expect(page.getByRole('heading', { name: 'Versions', level: 1 })).toBeVisible();
      await expect(page.getByRole('table', { name: 'Version history' }).locator('tbody tr').first()).toBeVisible();
      if (blocked)
        await expect(page.locator(`tr[data-pattern="${blocked.pattern.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"]`)).toBeVisible();
      await noHorizontalOverflow(page);
      await page.screenshot({ path: `test-results/screenshots/versions-${scheme}.png`, fullPage: true });
      expect(errors).toEqual([]);
    });
  });
}
