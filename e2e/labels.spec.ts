// Labels and selectors (issue 14 item 5): an operator sets fleetplan labels on two clusters from
// their pages (a bad change is refused with the server's message and nothing is written), the
// Fleet filters by a label selector from the address and from its box (an invalid one shows the
// parser's message), and an exclusion by selector shows its matching clusters before it is saved.
import { expect, test, type Page } from '@playwright/test';
import { signIn } from './helpers';
import { openE2eDatabase } from './pages/seeded-fleet';

const LABEL = 'e2e-rollout';

function firstTwoClusters(): [string, string] {
  const db = openE2eDatabase();
  try {
    const rows = db.prepare('select name from clusters order by name limit 2').all() as { name: string }[];
    if (rows.length < 2) throw new Error('the seeded demo fleet has fewer than two clusters');
    return [rows[0]!.name, rows[1]!.name];
  } finally {
    db.close();
  }
}

function fleetplanLabelsOf(name: string): Record<string, string> {
  const db = openE2eDatabase();
  try {
    const row = db.prepare('select fleetplan_labels as l from clusters where name = ?').get(name) as { l: string };
    return JSON.parse(row.l) as Record<string, string>;
  } finally {
    db.close();
  }
}

async function setLabels(page: Page, cluster: string, changes: string) {
  await page.goto(`/clusters/${encodeURIComponent(cluster)}`);
  const editor = page.getByRole('form', { name: 'Change labels' });
  await editor.getByLabel('Label changes').fill(changes);
  await editor.getByRole('button', { name: 'Apply' }).click();
}

test('labels set on the cluster page filter the Fleet and scope an exclusion by selector', async ({ page }) => {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.setViewportSize({ width: 1440, height: 900 });
  await signIn(page);
  const [a, b] = firstTwoClusters();

  // a bad change is refused whole: nothing is written
  await setLabels(page, a, `env=${LABEL} Bad_=x`);
  const editor = page.getByRole('form', { name: 'Change labels' });
  await expect(editor.getByRole('alert')).toContainText("'Bad_=x'");
  expect(fleetplanLabelsOf(a)).toEqual({});

  await setLabels(page, a, `env=${LABEL} tier=web`);
  await expect(editor.getByRole('status')).toHaveText('Labels saved.');
  const chips = page.getByRole('list', { name: 'Labels' });
  await expect(chips).toContainText(`env=${LABEL}`);
  await expect(chips).toContainText('tier=web');
  expect(fleetplanLabelsOf(a)).toEqual({ env: LABEL, tier: 'web' });
  await setLabels(page, b, `env=${LABEL} tier=db`);
  await expect(editor.getByRole('status')).toHaveText('Labels saved.');
  await page.screenshot({ path: 'test-results/screenshots/labels-cluster.png', fullPage: true });

  // the Fleet by selector: from the address, then typed
  await page.goto(`/fleet?selector=${encodeURIComponent(`env=${LABEL}`)}`);
  await expect(page.getByText('2 clusters', { exact: true })).toBeVisible();
  await expect(page.locator(`tr[data-cluster="${a}"]`)).toContainText('tier=web');
  await expect(page.locator(`tr[data-cluster="${b}"]`)).toBeVisible();
  await page.getByLabel('Label selector').fill(`env=${LABEL},tier notin (db)`);
  await expect(page.getByText('1 cluster', { exact: true })).toBeVisible();
  await expect(page).toHaveURL(/selector=env%3De2e-rollout%2Ctier(\+|%20)notin(\+|%20)%28db%29/);
  await page.getByLabel('Label selector').fill(`env in (${LABEL}`);
  await expect(page.getByRole('alert').filter({ hasText: 'at character' })).toHaveText(
    "at character 20: expected ',' or ')', found the end of the selector",
  );
  await page.getByLabel('Label selector').fill(`env=${LABEL}`);
  await expect(page.getByText('2 clusters', { exact: true })).toBeVisible();
  await page.screenshot({ path: 'test-results/screenshots/labels-fleet.png', fullPage: true });

  // an exclusion by selector: previewed with its clusters, then listed with them
  await page.goto('/scheduler');
  await page.getByRole('button', { name: 'New exclusion' }).click();
  const form = page.getByRole('form', { name: 'New exclusion' });
  await form.getByLabel('Scope').selectOption('selector');
  await form.getByLabel(/^Subject/).fill(`env=${LABEL}`);
  await expect(form.getByText(/Matches 2 of \d+ clusters/)).toBeVisible();
  await expect(form.getByRole('link', { name: a })).toBeVisible();
  await expect(form.getByRole('link', { name: b })).toBeVisible();
  await form.getByLabel(/^Reason/).fill('rollout rehearsal');
  await page.screenshot({ path: 'test-results/screenshots/labels-exclusion-form.png', fullPage: true });
  await form.getByRole('button', { name: 'Create exclusion' }).click();
  await expect(form).toBeHidden();
  const row = page.getByRole('row', { name: new RegExp(`env=${LABEL}`) });
  await expect(row).toContainText('2 clusters now');
  await expect(row).toContainText('selector');

  const db = openE2eDatabase();
  try {
    expect(db.prepare("select scope, subject, reason from maintenance_exclusions where scope = 'selector'").all()).toEqual([
      { scope: 'selector', subject: `env=${LABEL}`, reason: 'rollout rehearsal' },
    ]);
  } finally {
    db.close();
  }
  expect(errors).toEqual([]);
});
