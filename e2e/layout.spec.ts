// Layout at the widths operators use (1440 and 1920 px): tables scroll with the page (no box
// with its own scrollbar inside it), the Fleet table's last column fits at 1440, the forecast's
// timeline fits the panel and runs to the horizon, Soak tells measured and projected apart, and
// the version chart counts the clusters the table's filters select.
import { expect, test, type Page } from '@playwright/test';
import { signIn } from './helpers';
import { openE2eDatabase } from './pages/seeded-fleet';

/** Boxes inside the page that scroll on their own (vertically, or sideways when `axis` is x). */
function innerScrollers(page: Page, selector: string, axis: 'x' | 'y') {
  return page.evaluate(
    ([sel, ax]) =>
      [...document.querySelectorAll(sel)].filter((e) =>
        ax === 'y' ? e.scrollHeight > e.clientHeight + 2 : e.scrollWidth > e.clientWidth + 2,
      ).length,
    [selector, axis] as const,
  );
}

for (const width of [1440, 1920]) {
  test.describe(`layout at ${width} px`, () => {
    test.use({ viewport: { width, height: 900 } });

    test('Fleet and Versions tables scroll with the page; the Fleet table fits', async ({ page }) => {
      await signIn(page);
      for (const path of ['/fleet', '/versions']) {
        await page.goto(path);
        await expect(page.locator('table.data').first()).toBeVisible();
        await expect(page.locator('table.data tbody tr').first()).toBeVisible();
        expect(await innerScrollers(page, '.table-scroll', 'y'), `${path}: a table scrolls inside the page`).toBe(0);
      }
      await page.goto('/fleet');
      await expect(page.locator('table.data tbody tr').first()).toBeVisible();
      expect(await innerScrollers(page, '.table-scroll', 'x'), 'the Fleet table needs a sideways scrollbar').toBe(0);
      await expect(page.getByRole('columnheader', { name: 'Next run' })).toBeInViewport();
    });

    test('the forecast timeline fits its panel and its axis ends at the horizon', async ({ page }) => {
      await signIn(page);
      await page.goto('/forecast');
      const timeline = page.locator('.gantt-scroll');
      await expect(timeline.locator('.gantt-row').nth(2)).toBeVisible();
      expect(await innerScrollers(page, '.gantt-scroll', 'x')).toBe(0);
      expect(await innerScrollers(page, '.gantt-scroll', 'y')).toBe(0);
      const until = await page.locator('.gantt-horizon').getAttribute('title');
      expect(until).toMatch(/^Forecast horizon \d{4}-\d{2}-\d{2}/);
      await expect(page.locator('.gantt-horizon span')).toHaveText(/^\d{2}-\d{2} end$/);
      await expect(page.locator('.gantt-horizon span')).toBeInViewport();
    });
  });
}

test('Soak draws the measured and the projected soak in different colours', async ({ page }) => {
  await signIn(page);
  await page.goto('/soak');
  const legend = page.locator('.recharts-legend-item');
  await expect(legend.filter({ hasText: 'soak (measured)' })).toBeVisible();
  const colours = await page.evaluate(() =>
    Object.fromEntries(
      [...document.querySelectorAll('.recharts-legend-item')].map((item) => [
        item.textContent?.trim(),
        item.querySelector('path, line')?.getAttribute('stroke') ?? item.querySelector('path')?.getAttribute('fill'),
      ]),
    ),
  );
  expect(colours['soak (measured)']).toBeTruthy();
  expect(colours['projected at current rate']).toBeTruthy();
  expect(colours['soak (measured)']).not.toBe(colours['projected at current rate']);
});

test("the version chart counts the clusters the table's filters select", async ({ page }) => {
  await signIn(page);
  await page.goto('/fleet');
  const chart = page.getByRole('region', { name: 'Version distribution' });
  await expect(chart.locator('.recharts-bar-rectangle').first()).toBeVisible();
  await page.getByLabel('Sector').selectOption('dev');
  await expect(chart).toContainText("of the clusters the table's filters select");
  const db = openE2eDatabase();
  const shown = (db.prepare("select count(*) n from clusters where sector = 'dev'").get() as { n: number }).n;
  db.close();
  await expect(page.getByText(`${shown} clusters`, { exact: true })).toBeVisible();
  // the y axis says what it counts; the bars add up to the table's count
  await expect(chart.locator('.recharts-label')).toHaveText('clusters');
  const totals = await page.evaluate(async () => {
    const input = encodeURIComponent(JSON.stringify({ filter: { sector: 'dev' } }));
    const res = await fetch(`/api/trpc/clusters.versionDistribution?input=${input}`);
    const body = (await res.json()) as { result: { data: { total: number }[] } };
    return body.result.data.reduce((n, r) => n + r.total, 0);
  });
  expect(totals).toBe(shown);
});
