// "Why not?" shows what really holds a cluster: every blocker in the order the scheduler meets
// it, the first that still holds at the next run marked, and "will never upgrade as configured"
// when no newer version can ever pass (on the cluster page and as a flag in the Fleet table).
// The demo's telemeter clusters all wait for soak on versions no telemeter cluster runs or can
// reach first; its unhealthy managed clusters are held by the health gate.
import { expect, test } from '@playwright/test';
import { signIn } from './helpers';
import { openE2eDatabase } from './pages/seeded-fleet';

test.describe('Why not?', () => {
  test('a cluster that can never soak its next version says so, on its page and in the Fleet table', async ({ page }) => {
    await signIn(page);
    await page.goto('/clusters/telemeter-stage-01');
    const never = page.getByTestId('never-upgrades');
    await expect(never).toContainText('Will never upgrade as configured');
    await expect(never).toContainText('never soaks 2 days for workload telemeter');
    const holding = page.locator('ol.blockers li[data-holding]');
    await expect(holding).toHaveCount(1);
    await expect(holding).toContainText('Soak');
    await expect(holding).toContainText('still holds at the next run');

    await page.goto('/fleet');
    await page.getByLabel('Search clusters').fill('telemeter-stage-01');
    const row = page.locator('tr[data-cluster="telemeter-stage-01"]');
    await expect(row.getByText('never upgrades')).toBeVisible();
    await expect(row.getByText('never upgrades')).toHaveAttribute('title', /never soaks 2 days for workload telemeter/);

    // the Fleet page lists them all on request, in the address
    await page.getByLabel('Search clusters').fill('');
    const toggle = page.getByLabel(/never upgrades \(\d+\)/);
    const count = Number((await toggle.locator('..').innerText()).match(/\((\d+)\)/)![1]);
    expect(count).toBeGreaterThan(0);
    // a click writes the address; the box follows it (check() would read it back before that)
    await toggle.click();
    await expect(page).toHaveURL(/never=1/);
    await expect(toggle).toBeChecked();
    await expect(page.getByText(`${count} cluster${count === 1 ? '' : 's'}`, { exact: true })).toBeVisible();
    await expect(page.locator('tbody tr')).toHaveCount(Math.min(count, 50));
    for (const badge of await page.locator('tbody tr').all()) await expect(badge.getByText('never upgrades')).toBeVisible();
  });

  test('an unhealthy cluster is held by the health gate, listed first, before the window and the version rules', async ({ page }) => {
    const db = openE2eDatabase();
    const unhealthy = db
      .prepare(
        'select name, health_issues from clusters where healthy = 0 and upgrade_policy is not null and current_upgrade is null order by name limit 1',
      )
      .get() as { name: string; health_issues: string } | undefined;
    db.close();
    expect(unhealthy, 'the demo fleet has an unhealthy managed cluster').toBeDefined();
    const issue = (JSON.parse(unhealthy!.health_issues) as string[])[0]!;

    await signIn(page);
    await page.goto(`/clusters/${unhealthy!.name}`);
    const blockers = page.getByRole('list', { name: /What stands in the way/ });
    await expect(blockers.locator('li').first()).toContainText('Gate: health');
    const holding = blockers.locator('li[data-holding]');
    await expect(holding).toContainText('Gate: health');
    await expect(holding).toContainText(issue);
    await expect(page.getByTestId('never-upgrades')).toHaveCount(0);
  });
});
