// An approval gate as an operator meets it: the dev sector declares approval.before, a tick holds
// its clusters with AWAITING_APPROVAL (the cluster page says so, the Sectors graph shows the gate
// pending), the operator approves on the Sectors page with a reason (confirm dialog; audited), and
// the next tick decides the upgrade; then the operator revokes it there (with a reason; audited). Ticks go through "Run now" (the e2e server's loop is off), so
// this file runs late (file order), as worker-run-now.spec.ts does: its ticks record decisions.
import { expect, test } from '@playwright/test';
import { runTick, signIn } from './helpers';
import { openE2eDatabase } from './pages/seeded-fleet';

function devDecisions(): { name: string; action: string | null; reason: string | null; version: string | null }[] {
  const db = openE2eDatabase();
  try {
    return db
      .prepare(
        "select name, last_decision_action as action, last_decision_reason as reason, last_decision_version as version from clusters where sector = 'dev' order by name",
      )
      .all() as { name: string; action: string | null; reason: string | null; version: string | null }[];
  } finally {
    db.close();
  }
}

test('a gated sector waits with AWAITING_APPROVAL until an operator approves on the Sectors page; the next tick upgrades', async ({
  page,
}) => {
  const db = openE2eDatabase({ readonly: false });
  try {
    db.prepare("update sectors set approval_before = 1 where name = 'dev'").run();
  } finally {
    db.close();
  }
  await signIn(page);
  await runTick(page);

  const held = devDecisions().filter((d) => d.reason === 'AWAITING_APPROVAL');
  expect(held.length).toBeGreaterThan(0);
  expect(devDecisions().filter((d) => d.action === 'upgrade')).toEqual([]);
  const cluster = held[0]!;

  await page.goto(`/clusters/${encodeURIComponent(cluster.name)}`);
  const decision = page.getByRole('region', { name: 'Engine decision' });
  await expect(decision.getByText('AWAITING_APPROVAL')).toBeVisible();
  await expect(decision).toContainText(`into sector dev awaits approval`);

  await page.goto('/sectors');
  const gates = page.locator('.react-flow__node[data-id="dev"]').getByTestId('sector-gates-dev');
  await expect(gates).toContainText('approval before');
  const pending = gates.locator('li[data-gate-state="pending"]').first();
  await expect(pending).toBeVisible();
  const version = (await pending.getAttribute('data-gate-version'))!;
  expect(version).toMatch(/^4\.\d+\.\d+$/);
  await page.screenshot({ path: 'test-results/screenshots/sectors-approval-gate.png' });
  await pending.getByRole('button', { name: 'Approve…' }).click();
  const dialog = page.getByRole('dialog', { name: `Approve ${version} into the sector dev?` });
  await expect(dialog).toBeVisible();
  await dialog.getByLabel('Reason (optional)').fill('CAB-2026-11 e2e');
  await dialog.getByRole('button', { name: 'Approve', exact: true }).click();
  await expect(dialog).toBeHidden();
  await expect(gates.locator(`li[data-gate-state="approved"][data-gate-version="${version}"]`)).toContainText('by demo');

  const after = openE2eDatabase();
  try {
    expect(
      after.prepare('select sector, version, kind, approved_by as approvedBy, reason, revoked_at as revokedAt from approvals').all(),
    ).toEqual([{ sector: 'dev', version, kind: 'before', approvedBy: 'demo', reason: 'CAB-2026-11 e2e', revokedAt: null }]);
    expect(after.prepare("select actor, target from audit_log where action = 'approval.approve'").all()).toEqual([
      { actor: 'demo', target: `organization:app-sre sector:dev version:${version} before` },
    ]);
  } finally {
    after.close();
  }

  await runTick(page);
  const upgraded = devDecisions().filter((d) => d.action === 'upgrade');
  expect(upgraded.length).toBeGreaterThan(0);
  expect(upgraded.every((d) => d.version === version)).toBe(true);
  await page.goto(`/activity?tab=changes`);
  await expect(page.getByRole('table').getByRole('row').filter({ hasText: 'approval.approve' })).toHaveCount(1);

  // the operator takes the approval back on the Sectors page, with a reason: audited, and gone from the gate
  await page.goto('/sectors');
  const approved = gates.locator(`li[data-gate-state="approved"][data-gate-version="${version}"]`);
  await approved.getByRole('button', { name: 'Revoke…' }).click();
  const revokeDialog = page.getByRole('dialog', { name: `Revoke the approval of ${version} into the sector dev?` });
  await expect(revokeDialog).toContainText('Approved by demo (CAB-2026-11 e2e)');
  await revokeDialog.getByLabel('Reason (optional)').fill('INC-4711 regression');
  await revokeDialog.getByRole('button', { name: 'Revoke', exact: true }).click();
  await expect(revokeDialog).toBeHidden();
  await expect(page.getByTestId('sector-message')).toHaveText(`Revoked the approval of ${version} for dev.`);
  await expect(approved).toHaveCount(0);
  const revoked = openE2eDatabase();
  try {
    expect(revoked.prepare('select revoked_by as revokedBy, revoked_at is not null as hasRevokedAt from approvals').all()).toEqual([
      { revokedBy: 'demo', hasRevokedAt: 1 },
    ]);
    const audit = revoked.prepare("select actor, target, after from audit_log where action = 'approval.revoke'").all() as {
      actor: string;
      target: string;
      after: string;
    }[];
    expect(audit.map((a) => ({ ...a, after: JSON.parse(a.after) as unknown }))).toEqual([
      {
        actor: 'demo',
        target: `organization:app-sre sector:dev version:${version} before`,
        after: { approved: false, reason: 'INC-4711 regression' },
      },
    ]);
  } finally {
    revoked.close();
  }
});
