// Views live in the address: filters, sort, page and inputs survive a reload, can be shared, and
// Back/Forward walk through them; the Versions, Sectors and chart views link to the filtered Fleet.
import { expect, test, type Page } from '@playwright/test';
import { signIn } from './helpers';
import { openE2eDatabase } from './pages/seeded-fleet';

function collectErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  return errors;
}

function count(sql: string, ...args: unknown[]): number {
  const db = openE2eDatabase();
  try {
    return (db.prepare(sql).get(...args) as { n: number }).n;
  } finally {
    db.close();
  }
}

const status = (page: Page) => page.getByRole('region', { name: 'Clusters' }).locator('.table-tools [aria-live]');
/** the table's count as it reads it: "1 cluster", "12 clusters" */
const clustersText = (n: number) => `${n} ${n === 1 ? 'cluster' : 'clusters'}`;

test.describe('linkable views', () => {
  test('Fleet filters, sort and page are in the URL; reload keeps them and Back undoes them', async ({ page }) => {
    await signIn(page);
    const errors = collectErrors(page);
    const inSector = count("select count(*) as n from clusters where sector = 'prod-green'");
    expect(inSector).toBeGreaterThan(0);

    await page.goto('/fleet?sector=prod-green&sort=version&dir=desc');
    await expect(page.getByLabel('Sector')).toHaveValue('prod-green');
    await expect(status(page)).toHaveText(clustersText(inSector));
    await expect(page.getByRole('columnheader', { name: /Version \/ channel/ })).toHaveAttribute('aria-sort', 'descending');

    // a choice is a history entry
    await page.getByLabel('Sector').selectOption('');
    await expect(page).not.toHaveURL(/sector=/);
    await page.getByRole('button', { name: 'Next', exact: true }).click();
    await expect(page).toHaveURL(/page=2/);
    await expect(page.getByRole('navigation', { name: 'Pages of clusters' })).toContainText(/^51–/);
    // the rows of page 2, not the previous page's kept while it loads
    await expect(page.locator('table[aria-busy="true"]')).toHaveCount(0);
    const secondPageFirst = await page.locator('tbody tr').first().getAttribute('data-cluster');
    await page.goBack();
    await expect(page).not.toHaveURL(/page=2/);
    await page.goBack();
    await expect(page.getByLabel('Sector')).toHaveValue('prod-green');
    await expect(status(page)).toHaveText(clustersText(inSector));
    await page.goForward();
    await page.goForward();
    await expect(page.getByRole('navigation', { name: 'Pages of clusters' })).toContainText(/^51–/);
    await expect(page.locator('table[aria-busy="true"]')).toHaveCount(0);
    await expect(page.locator('tbody tr').first()).toHaveAttribute('data-cluster', secondPageFirst!);

    // typing writes the search once it pauses; a reload keeps it
    await page.getByLabel('Search clusters').fill('hive-prod');
    await expect(page).toHaveURL(/q=hive-prod/);
    await expect(page).not.toHaveURL(/page=2/);
    await page.reload();
    await expect(page.getByLabel('Search clusters')).toHaveValue('hive-prod');
    await expect(page.locator('tbody tr').first()).toContainText('hive-prod');
    expect(errors).toEqual([]);
  });

  test('a chart bar, a Versions row and a sector node open the Fleet filtered to their clusters', async ({ page }) => {
    await signIn(page);
    const errors = collectErrors(page);
    const db = openE2eDatabase();
    const top = db.prepare('select version, count(*) as n from clusters group by version order by n desc, version limit 1').get() as {
      version: string;
      n: number;
    };
    db.close();

    await page.goto('/versions');
    await page
      .locator('tr', { has: page.getByRole('cell', { name: top.version, exact: true }) })
      .getByRole('link', { name: String(top.n) })
      .click();
    await expect(page).toHaveURL(new RegExp(`/fleet\\?version=${top.version.replaceAll('.', '\\.')}$`));
    await expect(status(page)).toHaveText(clustersText(top.n));
    await expect(page.getByLabel('Minor')).toHaveValue(top.version);
    const rows = page.locator('tbody tr');
    for (const text of await rows.allInnerTexts()) expect(text).toContain(top.version);

    // a bar segment: the version and the upgrade state it counts
    await page.goto('/fleet');
    const idleBars = page.locator('.recharts-bar-rectangles').first().locator('.recharts-bar-rectangle path');
    await expect(idleBars.first()).toBeVisible();
    await idleBars.first().click();
    await expect(page).toHaveURL(/state=idle/);
    const clicked = new URL(page.url()).searchParams.get('version');
    expect(clicked).toMatch(/^4\.\d+\.\d+$/);
    const idleOfClicked = count("select count(*) as n from clusters where version = ? and upgrade_state = 'idle'", clicked);
    expect(idleOfClicked).toBeGreaterThan(0);
    await expect(status(page)).toHaveText(clustersText(idleOfClicked));
    await expect(page.getByLabel('State')).toHaveValue('idle');
    await page.getByRole('button', { name: 'Show all versions' }).click();
    await expect(page).not.toHaveURL(/version=/);

    await page.goto('/sectors');
    const inStage = count("select count(*) as n from clusters where sector = 'stage'");
    await page
      .locator('.sector-node[data-sector="stage"]')
      .getByRole('link', { name: clustersText(inStage) })
      .click();
    await expect(page).toHaveURL(/\/fleet\?sector=stage$/);
    await expect(page.getByLabel('Sector')).toHaveValue('stage');
    await expect(status(page)).toHaveText(clustersText(inStage));
    expect(errors).toEqual([]);
  });

  test('Soak selection, Forecast inputs and the Paths question survive a reload', async ({ page }) => {
    await signIn(page);
    const errors = collectErrors(page);

    await page.goto('/soak');
    const workload = page.getByLabel('Workload', { exact: true });
    await expect(workload).toBeVisible();
    const choices = await workload.locator('option').evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value));
    const version = await page.getByLabel('Version', { exact: true }).inputValue();
    const other = choices[choices.length - 1]!;
    await workload.selectOption(other);
    await expect(page).toHaveURL(new RegExp(`workload=${other}`));
    await page.reload();
    await expect(page.getByLabel('Version', { exact: true })).toHaveValue(version);
    await expect(workload).toHaveValue(other);
    await expect(page.getByRole('heading', { name: `Soak of ${version} for ${other}` })).toBeVisible();

    await page.goto('/forecast');
    await expect(page.getByTestId('forecast-target')).toHaveText(/^4\.\d+\.\d+$/, { timeout: 30_000 });
    await page.getByLabel('Horizon (days)').fill('30');
    await page.getByRole('button', { name: 'Run forecast' }).click();
    await expect(page).toHaveURL(/horizon=30/);
    await page.reload();
    await expect(page.getByLabel('Horizon (days)')).toHaveValue('30');
    await expect(page.getByRole('region', { name: 'When each sector has the target' })).toContainText(/not within 30 days|UTC/, {
      timeout: 30_000,
    });

    await page.goto('/paths?from=4.6.30&channel=eus-4.8');
    await expect(page.getByLabel('From version')).toHaveValue('4.6.30');
    await expect(page.getByRole('list', { name: 'Path' })).toHaveText(/4\.6\.30\s*→\s*4\.7\.60\s*→\s*4\.8\.54/);
    await page.getByLabel('From version').fill('4.7.60');
    await page.getByRole('button', { name: 'Find path' }).click();
    await expect(page).toHaveURL(/from=4\.7\.60/);
    await page.goBack();
    await expect(page.getByLabel('From version')).toHaveValue('4.6.30');
    expect(errors).toEqual([]);
  });
});
