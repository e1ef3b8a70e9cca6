// The policy edit flow in the real browser: edit (form and YAML stay in sync) → live validation
// at the field → impact preview → save → history → revert, checking the DATABASE after each
// write; and a concurrent edit is reported as a conflict, never silently overwritten.
import { expect, test, type Page } from '@playwright/test';
import { signIn } from './helpers';
import { openE2eDatabase } from './pages/seeded-fleet';

interface Row {
  name: string;
  policy_revision: number;
  upgrade_policy: string;
}

/** The part of a stored cluster policy (clusters.upgrade_policy, policy_revisions.before/after) this flow edits. */
interface StoredPolicy {
  conditions: { soakDays: number };
}

function openDb(readonly = true) {
  return openE2eDatabase({ readonly });
}

/** A managed cluster with a numeric soakDays (the field this flow edits). */
function pickCluster(): { name: string; revision: number; soakDays: number } {
  const db = openDb();
  const rows = db
    .prepare('select name, policy_revision, upgrade_policy from clusters where upgrade_policy is not null order by name')
    .all() as Row[];
  db.close();
  for (const r of rows) {
    const soak = (JSON.parse(r.upgrade_policy) as { conditions?: { soakDays?: unknown } }).conditions?.soakDays;
    if (typeof soak === 'number' && !r.name.includes('dev')) return { name: r.name, revision: r.policy_revision, soakDays: soak };
  }
  throw new Error('the seeded fleet has no managed cluster with soakDays');
}

function readCluster(name: string): { revision: number; soakDays: unknown } {
  const db = openDb();
  const r = db.prepare('select policy_revision, upgrade_policy from clusters where name = ?').get(name) as Row;
  db.close();
  return {
    revision: r.policy_revision,
    soakDays: (JSON.parse(r.upgrade_policy) as { conditions?: { soakDays?: unknown } }).conditions?.soakDays,
  };
}

async function openEditor(page: Page, name: string) {
  await page.goto(`/policies/clusters/${encodeURIComponent(name)}`);
  await expect(page.getByRole('heading', { name: `Policy of ${name}` })).toBeVisible();
  await expect(page.getByLabel(/^Soak days/)).toBeVisible();
}

test.describe('Policy editor', () => {
  test('edit → preview → save → history → revert, checked in the database', async ({ page }) => {
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await signIn(page);
    const target = pickCluster();
    const newSoak = target.soakDays + 7;
    await openEditor(page, target.name);

    // an invalid value is reported at its field, and Save stays disabled
    const soak = page.getByLabel(/^Soak days/);
    await soak.fill('-3');
    await expect(soak).toHaveAttribute('aria-invalid', 'true');
    await expect(page.locator('.field-errors').first()).toContainText(/soakDays|negative|>= 0|0 or more/i);
    await expect(page.getByRole('button', { name: 'Save' })).toBeDisabled();

    // form → YAML
    await soak.fill(String(newSoak));
    await expect(page.locator('#policy-yaml')).toHaveValue(new RegExp(`soakDays: ${newSoak}\\b`));
    await expect(page.getByRole('heading', { name: /Validation/ })).toContainText('valid');
    await expect(soak).not.toHaveAttribute('aria-invalid', 'true');
    // the diff names the field; the impact preview answers (changes or none)
    await expect(page.getByRole('table', { name: 'Changes' })).toContainText('conditions.soakDays');
    await expect(page.getByTestId('impact-summary')).toContainText(/\d+ of \d+ decisions change/);

    // an optional reason goes with the save into the history
    const reason = page.getByRole('textbox', { name: /Reason for this change/ });
    await reason.fill('stage soaked too briefly last week');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect(page.getByText(`Saved as revision ${target.revision + 1}.`)).toBeVisible();
    await expect(reason).toHaveValue('');
    expect(readCluster(target.name)).toEqual({ revision: target.revision + 1, soakDays: newSoak });
    const db = openDb();
    const rev = db
      .prepare(
        "select actor, summary, before, after from policy_revisions where scope = 'cluster' and subject = ? order by id desc limit 1",
      )
      .get(target.name) as { actor: string; summary: string; before: string; after: string };
    db.close();
    expect(rev.summary).toContain('conditions.soakDays');
    expect(rev.summary).toMatch(/: stage soaked too briefly last week$/);
    expect((JSON.parse(rev.after) as StoredPolicy).conditions.soakDays).toBe(newSoak);
    expect((JSON.parse(rev.before) as StoredPolicy).conditions.soakDays).toBe(target.soakDays);

    // history shows the change with its diff; revert restores the previous value
    const entry = page.locator(`li[data-revision]`).filter({ hasText: `rev ${target.revision + 1}` });
    await expect(entry).toBeVisible();
    await expect(entry).toContainText('stage soaked too briefly last week');
    await entry.getByRole('button', { name: /Diff/ }).click();
    await expect(entry.getByRole('table', { name: 'Changes' })).toContainText(String(newSoak));
    // a revert is confirmed with what it undoes in view, and may say why
    await entry.getByRole('button', { name: 'Revert…', exact: true }).click();
    const confirm = entry.getByRole('group', { name: `Revert rev ${target.revision + 1}` });
    await expect(confirm.getByRole('table', { name: 'Changes' })).toContainText(String(newSoak));
    await confirm.getByRole('textbox', { name: 'Reason for the revert' }).fill('soak change was meant for stage only');
    await confirm.getByRole('button', { name: `Revert rev ${target.revision + 1}` }).click();
    await expect(page.locator('li[data-revision]').filter({ hasText: `rev ${target.revision + 2}` })).toContainText(
      `reverted rev ${target.revision + 1} (`,
    );
    await expect(page.locator('li[data-revision]').filter({ hasText: `rev ${target.revision + 2}` })).toContainText(
      'soak change was meant for stage only',
    );
    await expect.poll(() => readCluster(target.name)).toEqual({ revision: target.revision + 2, soakDays: target.soakDays });
    await expect(soak).toHaveValue(String(target.soakDays));

    await page.screenshot({ path: 'test-results/screenshots/policy-edit.png', fullPage: true });
    expect(errors).toEqual([]);
  });

  test('leaving the editor with unsaved changes asks first, and staying keeps them', async ({ page }) => {
    await signIn(page);
    const target = pickCluster();
    await openEditor(page, target.name);
    const soak = page.getByLabel(/^Soak days/);
    await soak.fill(String(target.soakDays + 3));
    const questions: string[] = [];
    page.once('dialog', (d) => {
      questions.push(d.message());
      void d.dismiss();
    });
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Fleet' }).click();
    await expect.poll(() => questions).toEqual(['Leave the editor? Your unsaved changes are lost.']);
    await expect(page).toHaveURL(/\/policies\/clusters\//);
    await expect(soak).toHaveValue(String(target.soakDays + 3));
    page.once('dialog', (d) => void d.accept());
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Fleet' }).click();
    await expect(page).toHaveURL(/\/fleet/);
    expect(readCluster(target.name).soakDays).toBe(target.soakDays);
  });

  test('YAML edits update the form', async ({ page }) => {
    await signIn(page);
    const target = pickCluster();
    await openEditor(page, target.name);
    const yaml = page.locator('#policy-yaml');
    const text = await yaml.inputValue();
    await yaml.fill(text.replace(/soakDays: [\d.]+/, 'soakDays: 42'));
    await expect(page.getByLabel(/^Soak days/)).toHaveValue('42');
    await yaml.fill('workloads: [oops');
    await expect(page.getByText(/^YAML:/)).toBeVisible();
    await expect(page.getByRole('button', { name: 'Save' })).toBeDisabled();
    // nothing was written
    expect(readCluster(target.name).soakDays).toBe(target.soakDays);
  });

  test('a concurrent change is a conflict, not an overwrite', async ({ page }) => {
    await signIn(page);
    const target = pickCluster();
    await openEditor(page, target.name);
    // someone else saves meanwhile: bump the stored revision and soakDays behind the editor's back
    const theirs = target.soakDays + 100;
    const db = openDb(false);
    const row = db.prepare('select upgrade_policy, policy_revision from clusters where name = ?').get(target.name) as Row;
    const policy = JSON.parse(row.upgrade_policy) as StoredPolicy;
    policy.conditions.soakDays = theirs;
    db.prepare('update clusters set upgrade_policy = ?, policy_revision = ? where name = ?').run(
      JSON.stringify(policy),
      row.policy_revision + 1,
      target.name,
    );
    db.close();
    const before = readCluster(target.name);

    await page.getByLabel(/^Soak days/).fill(String(target.soakDays + 1));
    await expect(page.getByRole('heading', { name: /Validation/ })).toContainText('valid');
    // the validation of this draft has answered (the heading may still show the last one's): the
    // impact preview asks only then; a click before it can land while Save turns disabled
    await expect(page.getByTestId('impact-summary')).toContainText(/\d+ of \d+ decisions change/);
    await page.getByRole('button', { name: 'Save' }).click();
    await expect(page.getByTestId('conflict')).toBeVisible();
    expect(readCluster(target.name)).toEqual(before);
    await page.getByRole('button', { name: /Reload theirs/ }).click();
    await expect(page.getByLabel(/^Soak days/)).toHaveValue(String(theirs));
    await expect(page.getByTestId('conflict')).toHaveCount(0);
  });
});

test.describe('Forecast impact', () => {
  test('blocking every version shows, before saving, which clusters no longer reach the target', async ({ page }) => {
    await signIn(page);
    await page.goto('/policies');
    await page.getByRole('button', { name: 'Block a version' }).click();
    const patterns = page.getByLabel(/^Pattern \d+/);
    await patterns.last().fill('.');
    await page.getByLabel('Reason').last().fill('stop everything');
    const summary = page.getByTestId('forecast-impact-summary');
    await expect(summary).toContainText(/\d+ of \d+ clusters change: \d+ no longer reaches the target/);
    const table = page.getByRole('table', { name: 'Forecast changes' });
    await expect(table.locator('tbody tr').first()).toContainText('no longer reaches the target');
    await expect(table.locator('tbody tr').first()).toContainText('does not reach the target');
    await page.screenshot({ path: 'test-results/screenshots/forecast-impact.png', fullPage: true });
    // nothing is saved: discarding leaves the stored policies as they were
    await page.getByRole('button', { name: 'Discard' }).click();
    await expect(page.getByText('saved', { exact: true })).toBeVisible();
    // and the discarded draft's lint warnings go with it
    await expect(page.getByText('BLOCKED_VERSION_BLOCKS_ALL')).toHaveCount(0);
  });
});
