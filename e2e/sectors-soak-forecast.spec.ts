import fs from 'node:fs';
import { expect, test, type Page } from '@playwright/test';
import { signIn } from './helpers';

/** Console errors and page errors raised after this call (a missing favicon is not an error of ours). */
function collectErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => {
    if (m.type() === 'error' && !/favicon/i.test(m.text() + (m.location().url ?? ''))) errors.push(m.text());
  });
  return errors;
}

test.describe('Sectors, Soak and Forecast pages', () => {
  test('Sectors shows the dependency graph and what blocks the next sector', async ({ page }) => {
    await signIn(page);
    const errors = collectErrors(page);
    await page.goto('/sectors');
    await expect(page.getByRole('heading', { name: 'Sectors', level: 1 })).toBeVisible();
    for (const name of ['dev', 'stage', 'prod-blue', 'prod-green']) {
      await expect(page.locator(`.react-flow__node[data-id="${name}"]`)).toBeVisible();
    }
    await expect(page.locator('.react-flow__edge')).toHaveCount(4);
    await expect(page.getByRole('region', { name: 'What blocks the next sector' })).toContainText(
      /waits: .* still runs 4\.\d+\.\d+ for workload/,
    );
    await page.screenshot({ path: 'test-results/screenshots/sectors.png', fullPage: true });
    expect(errors).toEqual([]);
  });

  test('drawing an edge that closes a cycle is refused before saving', async ({ page }) => {
    await signIn(page);
    await page.goto('/sectors');
    const source = page.locator('.react-flow__node[data-id="prod-green"] .react-flow__handle.source');
    const target = page.locator('.react-flow__node[data-id="dev"] .react-flow__handle.target');
    await expect(source).toBeVisible();
    const a = (await source.boundingBox())!;
    const b = (await target.boundingBox())!;
    await page.mouse.move(a.x + a.width / 2, a.y + a.height / 2);
    await page.mouse.down();
    await page.mouse.move((a.x + b.x) / 2, (a.y + b.y) / 2 + 40, { steps: 8 });
    await page.mouse.move(b.x + b.width / 2, b.y + b.height / 2, { steps: 8 });
    await page.mouse.up();
    const message = page.getByTestId('sector-message');
    await expect(message).toContainText('Refused');
    await expect(message).toContainText('cycle');
    await expect(message).toContainText('prod-green → prod-blue → stage → dev → prod-green');
    // nothing changed: no unsaved edit, four edges still
    await expect(page.getByRole('button', { name: 'Save dependencies' })).toBeDisabled();
    await expect(page.locator('.react-flow__edge')).toHaveCount(4);
    await page.screenshot({ path: 'test-results/screenshots/sectors-cycle-refused.png' });

    // the keyboard way gives the same refusal
    await page.getByLabel('Dependent sector').selectOption('stage');
    await page.getByLabel('Dependency sector').selectOption('prod-blue');
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    await expect(message).toContainText('prod-blue → stage → prod-blue');
  });

  test('Soak charts a version against the thresholds of the clusters waiting for it', async ({ page }) => {
    await signIn(page);
    const errors = collectErrors(page);
    await page.goto('/soak');
    await expect(page.getByRole('heading', { name: 'Soak', level: 1 })).toBeVisible();
    await expect(page.getByLabel('Version', { exact: true })).toHaveValue(/^4\.\d+\.\d+$/);
    await expect(page.getByRole('region', { name: 'Soak over time' }).locator('.recharts-surface').first()).toBeVisible();
    const table = page.getByRole('region', { name: 'Thresholds and estimated dates' });
    await expect(table.locator('tbody tr').first()).toBeVisible();
    await expect(table).toContainText('UTC');
    await page.screenshot({ path: 'test-results/screenshots/soak.png', fullPage: true });
    expect(errors).toEqual([]);
  });

  test('Forecast predicts per sector when the target arrives and draws the timeline', async ({ page }) => {
    await signIn(page);
    const errors = collectErrors(page);
    await page.goto('/forecast');
    await expect(page.getByRole('heading', { name: 'Forecast', level: 1 })).toBeVisible();
    await expect(page.getByTestId('forecast-target')).toHaveText(/^4\.\d+\.\d+$/, { timeout: 30_000 });
    const sectors = page.getByRole('region', { name: 'When each sector has the target' });
    await expect(sectors.locator('tr[data-sector="dev"]')).toContainText('UTC');
    await expect(page.locator('.gantt-bar').first()).toBeVisible();
    await page.locator('.gantt-bar').first().focus();
    await expect(page.locator('.gantt-detail')).toContainText('→');

    // what-if: prod-blue without soak, not saved
    await page.getByText('What-if: change policy parameters').click();
    await page.getByLabel('Sector for soakDays').selectOption('prod-blue');
    await page.getByLabel('soakDays', { exact: true }).fill('0');
    await page.getByRole('button', { name: 'Set' }).first().click();
    await page.getByRole('button', { name: 'Run with what-if' }).click();
    await expect(page.getByText('what-if: not saved')).toBeVisible();
    await expect(sectors.locator('tr[data-sector="prod-blue"]')).toBeVisible();
    await page.screenshot({ path: 'test-results/screenshots/forecast.png', fullPage: true });
    expect(errors).toEqual([]);
  });

  test('Forecast downloads every cluster of the current forecast as CSV, beyond the page shown', async ({ page }) => {
    await signIn(page);
    await page.goto('/forecast');
    await expect(page.getByTestId('forecast-target')).toHaveText(/^4\.\d+\.\d+$/, { timeout: 30_000 });
    const region = page.getByRole('region', { name: 'Predicted upgrades per cluster' });
    const total = Number(/(\d+) clusters/.exec(await region.getByText(/^\d+ clusters$/).innerText())![1]);
    const [file] = await Promise.all([page.waitForEvent('download'), region.getByRole('button', { name: 'CSV', exact: true }).click()]);
    expect(file.suggestedFilename()).toBe('forecast.csv');
    const lines = fs
      .readFileSync(await file.path(), 'utf8')
      .trimEnd()
      .split('\r\n');
    expect(lines[0]).toBe(
      'cluster,sector,managed,start version,upgrade from,upgrade to,upgrade via,upgrade start (UTC),upgrade end (UTC),in flight,final version,on target at (UTC)',
    );
    // a line per upgrade, at least one per cluster: every cluster is in the file, not just this page's
    expect(new Set(lines.slice(1).map((l) => l.split(',')[0])).size).toBe(total);
  });
});
