// The shared DataTable on the Fleet page: sorting by a header (aria-sort), the column chooser
// remembered across reloads, and the CSV download of the rows shown.
import fs from 'node:fs';
import { expect, test } from '@playwright/test';
import { signIn } from './helpers';
import { openE2eDatabase } from './pages/seeded-fleet';

test.describe('Data table', () => {
  test('sorts, remembers the chosen columns and downloads the rows as CSV', async ({ page }) => {
    await signIn(page);
    const db = openE2eDatabase();
    const names = db.prepare('select name, region, sector from clusters order by name').all() as {
      name: string;
      region: string;
      sector: string;
    }[];
    db.close();
    const table = page.getByRole('table', { name: 'Clusters' });

    await page.goto('/fleet');
    const clusterHeader = table.getByRole('columnheader', { name: /Cluster/ });
    await expect(clusterHeader).toHaveAttribute('aria-sort', 'ascending');
    await expect(table.locator('tbody tr').first()).toHaveAttribute('data-cluster', names[0]!.name);
    await clusterHeader.getByRole('button').click();
    await expect(clusterHeader).toHaveAttribute('aria-sort', 'descending');
    await expect(table.locator('tbody tr').first()).toHaveAttribute('data-cluster', names[names.length - 1]!.name);
    await clusterHeader.getByRole('button').click();

    // Region is hidden by default; choosing it shows it, and the choice survives a reload
    await expect(table.getByRole('columnheader', { name: 'Region' })).toHaveCount(0);
    await page.getByText('Columns', { exact: true }).click();
    await page.getByRole('checkbox', { name: 'Region' }).check();
    await expect(table.getByRole('columnheader', { name: 'Region' })).toBeVisible();
    await page.getByRole('checkbox', { name: 'Workloads' }).uncheck();
    await page.reload();
    await expect(table.getByRole('columnheader', { name: 'Region' })).toBeVisible();
    await expect(table.getByRole('columnheader', { name: 'Workloads' })).toHaveCount(0);

    // CSV of every row the filters keep (all pages, not just the 50 shown): header of the visible columns, then one line per row
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'CSV' }).click()]);
    expect(download.suggestedFilename()).toBe('fleet.csv');
    const csv = fs.readFileSync(await download.path(), 'utf8').split('\r\n');
    expect(csv[0]).toBe('Cluster,Region,Version / channel,Sector,State,Soaking upgrades,Decision,Next run');
    expect(csv[1]!.startsWith(`${names[0]!.name},${names[0]!.region},`)).toBe(true);
    expect(names.length).toBeGreaterThan(50);
    expect(csv.filter(Boolean)).toHaveLength(1 + names.length);

    // JSON of a filtered view: exactly the clusters the filter keeps, by column id
    await page.getByLabel('Sector').selectOption('prod-green');
    await expect(page).toHaveURL(/sector=prod-green/);
    const inSector = names.filter((n) => n.sector === 'prod-green').map((n) => n.name);
    await expect(table.locator('tbody tr')).toHaveCount(inSector.length);
    const [json] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'JSON' }).click()]);
    expect(json.suggestedFilename()).toBe('fleet.json');
    const objects = JSON.parse(fs.readFileSync(await json.path(), 'utf8')) as { name: string; sector: string }[];
    expect(objects.map((o) => o.name)).toEqual(inSector);
    expect(new Set(objects.map((o) => o.sector))).toEqual(new Set(['prod-green']));
  });

  test('the pager jumps to a typed page and to the last one', async ({ page }) => {
    await signIn(page);
    await page.goto('/fleet');
    const pager = page.getByRole('navigation', { name: 'Pages of clusters' });
    const jump = pager.getByLabel('Page number of clusters');
    await jump.fill('2');
    await jump.press('Enter');
    await expect(pager).toContainText(/^51–\d+ of \d+ clusters · page 2 of 2/);
    await expect(page).toHaveURL(/page=2/);
    await pager.getByRole('button', { name: 'First page' }).click();
    await expect(pager).toContainText(/^1–50 of/);
    await expect(jump).toHaveValue('1');
    // past the end lands on the last page
    await jump.fill('99');
    await jump.press('Enter');
    await expect(jump).toHaveValue('2');
    await expect(pager).toContainText(/page 2 of 2/);
  });

  test('the column chooser closes on Escape and on a click outside it', async ({ page }) => {
    await signIn(page);
    await page.goto('/fleet');
    const chooser = page.locator('details.column-chooser');
    const regionBox = page.getByRole('checkbox', { name: 'Region' });

    await page.getByText('Columns', { exact: true }).click();
    await expect(regionBox).toBeVisible();
    await page.keyboard.press('Escape');
    await expect(regionBox).toHaveCount(0);
    await expect(chooser).not.toHaveAttribute('open');
    await expect(page.getByText('Columns', { exact: true })).toBeFocused();

    await page.getByText('Columns', { exact: true }).click();
    await expect(regionBox).toBeVisible();
    await regionBox.check(); // a click inside keeps it open
    await expect(regionBox).toBeVisible();
    await page.getByRole('heading', { level: 1 }).click();
    await expect(regionBox).toHaveCount(0);
    await expect(chooser).not.toHaveAttribute('open');
  });
});

test.describe('Cluster policies list', () => {
  test('the server sorts and pages it through the shared table and pager', async ({ page }) => {
    await signIn(page);
    const db = openE2eDatabase();
    const names = (db.prepare('select name from clusters order by name desc').all() as { name: string }[]).map((r) => r.name);
    db.close();
    expect(names.length).toBeGreaterThan(50);
    const table = page.getByRole('table', { name: 'Cluster policies' });

    await page.goto('/policies/clusters');
    const clusterHeader = table.getByRole('columnheader', { name: /Cluster/ });
    await expect(clusterHeader).toHaveAttribute('aria-sort', 'ascending');
    await clusterHeader.getByRole('button').click();
    await expect(clusterHeader).toHaveAttribute('aria-sort', 'descending');
    await expect(table.locator('tbody tr').first()).toHaveAttribute('data-cluster', names[0]!);
    await expect(table.locator('tbody tr')).toHaveCount(50);

    await page.getByRole('navigation', { name: 'Pages of clusters' }).getByRole('button', { name: 'Next' }).click();
    await expect(table.locator('tbody tr').first()).toHaveAttribute('data-cluster', names[50]!);
    await expect(table.locator('tbody tr')).toHaveCount(names.length - 50);
    await expect(page.getByText(`51–${names.length} of ${names.length} clusters`)).toBeVisible();
  });
});
