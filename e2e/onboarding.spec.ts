// First run without the demo (issue 12): `npm start` with the OCM provider against the fake OCM
// (its own process, answering as clusters_mgmt does) on an empty database. The admin signs in,
// follows the set-up banner, names the organization, tests the connection, imports the
// organization file through the page, and the scheduler then acts: OCM receives an upgrade policy.
import { expect, test } from '@playwright/test';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { query, startOcmFleetplan, waitUntil } from './crash/processes';

const ADMIN_PASSWORD = 'onboarding-admin-password';
const CLUSTERS = [
  { id: 'c-stage', name: 'stage-1', version: '4.15.20', releases: ['4.15.20', '4.15.21'] },
  { id: 'c-prod', name: 'prod-1', version: '4.15.20', releases: ['4.15.20', '4.15.21'] },
];

test.describe.configure({ mode: 'serial' });

test('an empty database and a real provider: the admin sets up the organization in the browser and the scheduler acts', async ({
  browser,
}) => {
  test.setTimeout(180_000);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fleetplan-onboarding-e2e-'));
  const running = await startOcmFleetplan(dir, { clusters: CLUSTERS }, ADMIN_PASSWORD);
  const { fake, dbFile, base } = running;
  try {
    const context = await browser.newContext({ baseURL: base, viewport: { width: 1440, height: 900 } });
    const page = await context.newPage();

    // sign in as the admin the first start created
    await page.goto('/fleet');
    await expect(page).toHaveURL(/\/login/);
    await expect(page.getByRole('button', { name: /demo/i })).toHaveCount(0);
    await page.getByLabel('Username').fill('admin');
    await page.getByLabel('Password').fill(ADMIN_PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.waitForURL((url) => url.pathname === '/fleet');

    // every page says the set-up is not finished
    const banner = page.getByTestId('setup-banner');
    await expect(banner).toContainText('not set up yet');
    await banner.getByRole('link', { name: 'Continue the set-up' }).click();
    await expect(page).toHaveURL(/\/setup$/);
    await expect(page.getByRole('heading', { name: 'Set up your fleet', level: 1 })).toBeVisible();

    // 1. name the organization
    const name = page.getByRole('form', { name: 'Name the organization' });
    await name.getByLabel('Name').fill('app-sre');
    await name.getByRole('button', { name: 'Save name' }).click();
    await expect(page.getByTestId('setup-org-name')).toHaveText('app-sre');

    // 2. the provider answers: the fake's two clusters
    await expect(page.getByTestId('setup-provider')).toHaveText('ocm');
    await page.getByRole('button', { name: 'Test connection' }).click();
    await expect(page.getByTestId('connection-result')).toContainText('the provider lists 2 clusters (stage-1, prod-1)');
    // the scheduler's first tick stores them (unmanaged until the import)
    await waitUntil('the scheduler to store the two clusters', () => query(dbFile, 'select name from clusters').length === 2, 30_000);

    // 3. import the organization file: a cluster the fleet does not have is refused first
    const yaml = (clusters: string[]) =>
      [
        '$schema: /openshift/openshift-cluster-manager-1.yml',
        'name: app-sre',
        'upgradePolicyClusters:',
        ...clusters.map((n) => `- name: ${n}\n  upgradePolicy: {workloads: [web], schedule: "* * * * *", conditions: {soakDays: 0}}`),
        '',
      ].join('\n');
    const file = page.getByLabel('Organization file (YAML)');
    await file.fill(yaml(['stage-1', 'prod-1', 'ghost-1']));
    await page.getByRole('button', { name: 'Check', exact: true }).click();
    await expect(page.getByTestId('import-problems')).toContainText('no cluster named ghost-1 in the fleet');
    await expect(page.getByRole('button', { name: 'Import', exact: true })).toBeDisabled();
    expect(query(dbFile, 'select name from clusters where upgrade_policy is not null')).toEqual([]);

    await file.fill(yaml(['stage-1', 'prod-1']));
    await page.getByRole('button', { name: 'Check', exact: true }).click();
    await expect(page.getByTestId('import-check')).toContainText('Clusters: 2 managed, 0 without a policy');
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    await expect(page.getByTestId('import-done')).toBeVisible();
    await expect(page.getByTestId('setup-complete')).toContainText('2 of 2 clusters have an upgrade policy');
    await page.screenshot({ path: 'test-results/screenshots/setup.png', fullPage: true });

    // the scheduler acts: OCM is asked for an upgrade policy (every-minute schedule, no soak)
    await expect
      .poll(async () => (await fake.get<{ writes: { cluster: string; method: string; version?: string }[] }>('/_fake/writes')).writes, {
        timeout: 60_000,
        intervals: [1_000],
      })
      .toEqual(expect.arrayContaining([expect.objectContaining({ method: 'POST', version: '4.15.21' })]));
    // and the banner is gone everywhere
    await page.goto('/fleet');
    await expect(page.getByRole('heading', { name: 'Fleet', level: 1 })).toBeVisible();
    await expect(page.getByTestId('setup-banner')).toHaveCount(0);
    await context.close();
  } finally {
    await running.stop();
  }
});
