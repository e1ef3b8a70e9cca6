import { expect, test } from '@playwright/test';
import { signIn } from './helpers';
import { openE2eDatabase } from './pages/seeded-fleet';

test.describe('Fleet page', () => {
  test('lists the seeded clusters from the database', async ({ page }) => {
    await signIn(page);
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e)));

    const db = openE2eDatabase();
    const total = (db.prepare('select count(*) as n from clusters').get() as { n: number }).n;
    const first = db.prepare('select name, version from clusters order by name limit 1').get() as { name: string; version: string };
    db.close();
    expect(total).toBeGreaterThan(40);

    await page.goto('/fleet');
    await expect(page.getByRole('heading', { name: 'Fleet', exact: true })).toBeVisible();
    await expect(page.getByText(`${total} clusters`, { exact: true })).toBeVisible();
    const row = page.locator(`tr[data-cluster="${first.name}"]`);
    await expect(row).toBeVisible();
    await expect(row).toContainText(first.version);

    await page.getByLabel('Search clusters').fill('hive-prod');
    await expect(page.locator('tbody tr').first()).toContainText('hive-prod');
    await expect(page.getByText(/^\d+ clusters$/)).not.toHaveText(`${total} clusters`);

    await page.getByLabel('Search clusters').fill('');
    await page.getByLabel('Sector').selectOption('prod-green');
    await expect(page.locator('tbody tr').first()).toContainText('prod-green');

    await page.screenshot({ path: 'test-results/screenshots/fleet.png', fullPage: true });
    expect(errors).toEqual([]);
  });

  test('health endpoint checks the database', async ({ request }) => {
    const res = await request.get('/api/healthz');
    expect(res.status()).toBe(200);
    expect(await res.json()).toMatchObject({ status: 'ok', database: 'ok' });
  });

  test('metrics need an identity: anonymous scrapes get 401, a session gets the fleet', async ({ page, request }) => {
    const anonymous = await request.get('/api/metrics');
    expect(anonymous.status()).toBe(401);
    expect(await anonymous.text()).not.toContain('aus_cluster');

    await signIn(page);
    const res = await page.request.get('/api/metrics');
    expect(res.status()).toBe(200);
    const text = await res.text();
    expect(text).toMatch(/^aus_cluster_upgrade_policy_info\{[^}]*org_name="app-sre"[^}]*cluster_name="ocm-prod-green-01"/m);
    expect(text).toMatch(/^aus_organization_version_data\{integration="fleetplan",ocm_env="simulator",org_id="\d+",version=/m);
  });
});
