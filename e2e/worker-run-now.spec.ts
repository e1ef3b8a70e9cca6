// "Run now" and "Dry run" on the Scheduler page go to the scheduler's worker thread of the real
// production server (the e2e server runs the scheduler loop off, so only these ticks run): the
// answer comes back to the page, and the tick is in the database. Runs last (file order): its
// ticks record decisions the other specs do not expect.
import { expect, test } from '@playwright/test';
import { signIn } from './helpers';
import { openE2eDatabase } from './pages/seeded-fleet';

test('a dry run from the Scheduler page is run by the scheduler thread and recorded', async ({ page }) => {
  await signIn(page);
  const db = openE2eDatabase();
  const before = (db.prepare('select count(*) n from scheduler_ticks').get() as { n: number }).n;
  db.close();
  await page.goto('/scheduler');
  await page.getByRole('button', { name: 'Dry run', exact: true }).click();
  const result = page.getByTestId('run-result');
  await expect(result).toContainText(/Dry run #\d+ succeeded/, { timeout: 30_000 });
  const tickId = Number((await result.innerText()).match(/Dry run #(\d+) succeeded/)![1]);

  const after = openE2eDatabase();
  const tick = after.prepare('select status, dry_run as dryRun, holder from scheduler_ticks where id = ?').get(tickId) as {
    status: string;
    dryRun: number;
    holder: string;
  };
  const count = (after.prepare('select count(*) n from scheduler_ticks').get() as { n: number }).n;
  after.close();
  expect(tick).toMatchObject({ status: 'succeeded', dryRun: 1 });
  expect(tick.holder).toMatch(/^.+:\d+$/);
  expect(count).toBe(before + 1);
});
