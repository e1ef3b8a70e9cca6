// Pages follow new scheduler ticks (unless paused), and times follow the operator's zone choice.
import { expect, test, type Page } from '@playwright/test';
import { signIn } from './helpers';
import { openE2eDatabase } from './pages/seeded-fleet';

/** What a finished tick leaves behind, written straight to the server's database: a changed cluster and the tick row. */
function landTick(cluster: string, version: string): number {
  const db = openE2eDatabase({ readonly: false });
  try {
    const now = Date.now();
    db.prepare('update clusters set version = ? where name = ?').run(version, cluster);
    return Number(
      db
        .prepare("insert into scheduler_ticks (started_at, finished_at, status, dry_run, holder) values (?, ?, 'succeeded', 0, 'e2e')")
        .run(now - 1000, now).lastInsertRowid,
    );
  } finally {
    db.close();
  }
}

function firstCluster(): { name: string; version: string } {
  const db = openE2eDatabase();
  try {
    return db.prepare('select name, version from clusters order by name limit 1').get() as { name: string; version: string };
  } finally {
    db.close();
  }
}

const live = (page: Page) => page.getByTestId('live-updates');

test.describe('live updates', () => {
  test('the Fleet table shows a new tick without a reload; paused, it waits and says so', async ({ page }) => {
    await signIn(page);
    const first = firstCluster();
    await page.goto('/fleet');
    const row = page.locator(`tr[data-cluster="${first.name}"]`);
    await expect(row).toContainText(first.version);
    await expect(live(page)).toContainText('updated');

    const tick = landTick(first.name, '4.99.1');
    await expect(row).toContainText('4.99.1', { timeout: 20_000 });
    await expect(live(page)).toContainText(`tick #${tick}`);

    await live(page).getByRole('button', { name: 'Pause live' }).click();
    const waiting = landTick(first.name, '4.99.2');
    await expect(live(page).getByRole('status')).toHaveText(`new data (tick #${waiting})`, { timeout: 20_000 });
    await expect(row).toContainText('4.99.1');
    // the pause is remembered by this browser
    await page.reload();
    await expect(live(page).getByRole('button', { name: 'Resume live' })).toHaveAttribute('aria-pressed', 'true');
    await expect(row).toContainText('4.99.2');
    const afterReload = landTick(first.name, '4.99.3');
    await expect(live(page).getByRole('status')).toHaveText(`new data (tick #${afterReload})`, { timeout: 20_000 });
    await live(page).getByRole('button', { name: 'Resume live' }).click();
    await expect(row).toContainText('4.99.3', { timeout: 20_000 });
    landTick(first.name, first.version);
  });
});

test.describe('times', () => {
  test.use({ timezoneId: 'Asia/Tokyo' });

  test('instants follow the UTC / Local choice, remembered per browser; spans read in days and hours', async ({ page }) => {
    await signIn(page);
    await page.goto('/versions');
    const firstTime = page.getByRole('table', { name: 'Version history' }).locator('tbody tr').first().locator('time').first();
    await expect(firstTime).toHaveText(/ UTC$/);
    const iso = await firstTime.getAttribute('datetime');

    await page.getByRole('group', { name: 'Time zone' }).getByRole('button', { name: 'Local' }).click();
    await expect(firstTime).toHaveText(/ GMT\+9$/);
    const hour = (new Date(iso!).getUTCHours() + 9) % 24;
    await expect(firstTime).toContainText(` ${String(hour).padStart(2, '0')}:`);
    await expect(firstTime).toHaveAttribute('title', / UTC$/);
    await page.reload();
    await expect(firstTime).toHaveText(/ GMT\+9$/);
    await page.getByRole('group', { name: 'Time zone' }).getByRole('button', { name: 'UTC' }).click();
    await expect(firstTime).toHaveText(/ UTC$/);

    // the Fleet's next runs are relative, the instant on hover
    await page.goto('/fleet');
    const nextRun = page.locator('tbody tr time').first();
    await expect(nextRun).toHaveText(/^(in \d+ (s|min|h|d)( \d+ (min|h))?|\d+ (s|min|h|d)( \d+ (min|h))? ago|now)$/);
    await expect(nextRun).toHaveAttribute('title', /^\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC$/);
  });
});
