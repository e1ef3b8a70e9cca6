// While the server computes a forecast for the fleet's latest data, it answers with the last one of
// the same configuration, marked stale (forecast-service.ts; tested there against the real thread).
// Here the page's side: the first answer is marked stale on its way to the browser, so the page
// must say so and ask again until a fresh forecast replaces it.
import { expect, test } from '@playwright/test';
import { signIn } from './helpers';

test('a stale forecast is marked on the page and replaced when the fresh one is answered', async ({ page }) => {
  await signIn(page);
  let markedStale = 0;
  let answered = 0;
  await page.route(/\/api\/trpc\/[^?]*forecast\.run/, async (route) => {
    const response = await route.fetch();
    const body = (await response.json()) as { result?: { data?: { stale?: boolean } } }[] | { result?: { data?: { stale?: boolean } } };
    // a batch answers its procedures in the order the path names them
    const procedures = decodeURIComponent(new URL(route.request().url()).pathname.replace(/^\/api\/trpc\//, '')).split(',');
    const answers = Array.isArray(body) ? body : [body];
    procedures.forEach((procedure, i) => {
      const data = answers[i]?.result?.data;
      if (procedure !== 'forecast.run' || !data) return;
      answered++;
      // (earlier specs' ticks may have left the server's own first answer stale already)
      if (markedStale === 0) {
        data.stale = true;
        markedStale++;
      }
    });
    await route.fulfill({ response, json: body });
  });

  await page.goto('/forecast');
  const banner = page.getByTestId('forecast-stale');
  await expect(banner).toContainText('The fleet has changed since this forecast was computed', { timeout: 30_000 });
  await expect(page.getByText('updating…')).toBeVisible();
  // asked again two seconds later, answered fresh
  await expect(banner).toBeHidden({ timeout: 15_000 });
  await expect(page.getByText('updating…')).toBeHidden();
  await expect(page.getByTestId('forecast-target')).toHaveText(/^4\.\d+\.\d+$/);
  expect(markedStale).toBe(1);
  expect(answered).toBeGreaterThanOrEqual(2);
});
