// A failed upgrade as an operator meets it: the Activity page's Upgrades tab lists its
// transitions with the reason explained, the cluster page asks for an acknowledgement with a
// comment, and the acknowledgement is audited and lifts the failure (the version is no longer
// halted for the sector).
import { expect, test } from '@playwright/test';
import { signIn } from './helpers';
import { managedCluster, openE2eDatabase } from './pages/seeded-fleet';

/** A failed attempt of a demo cluster, as the scheduler would have written it (this server runs without one). */
function recordFailedUpgrade(cluster: { name: string; version: string }): { toVersion: string } {
  const db = openE2eDatabase({ readonly: false });
  try {
    const row = db.prepare('select id, sector from clusters where name = ?').get(cluster.name) as { id: number; sector: string | null };
    const toVersion = cluster.version.replace(/\.(\d+)$/, (_, patch: string) => `.${Number(patch) + 1}`);
    const t0 = Date.now() - 3 * 3_600_000;
    const id = db
      .prepare(
        `insert into upgrade_lifecycles (cluster_id, cluster_name, sector, from_version, to_version, slot, state, reason, message,
           halts_on_failure, created_at, updated_at, start_requested_at, start_confirmed_at, running_at, finished_at)
         values (?, ?, ?, ?, ?, ?, 'failed', 'PROVIDER_FAILED', 'ClusterOperator machine-config failed to roll out (e2e)', 1, ?, ?, ?, ?, ?, ?)`,
      )
      .run(row.id, cluster.name, row.sector, cluster.version, toVersion, t0, t0, t0, t0, t0, t0 + 60_000, t0 + 3_600_000).lastInsertRowid;
    const step = db.prepare(
      'insert into upgrade_lifecycle_transitions (lifecycle_id, at, from_state, to_state, reason, message, actor) values (?, ?, ?, ?, ?, ?, ?)',
    );
    step.run(id, t0 - 600_000, null, 'scheduled', null, 'engine decision: upgrade', 'scheduler:e2e');
    step.run(id, t0, 'scheduled', 'started', null, `start of the upgrade to ${toVersion} requested`, 'scheduler:e2e');
    step.run(id, t0 + 60_000, 'started', 'upgrading', null, 'the provider reports the upgrade running', 'scheduler:e2e');
    step.run(
      id,
      t0 + 3_600_000,
      'upgrading',
      'failed',
      'PROVIDER_FAILED',
      'ClusterOperator machine-config failed to roll out (e2e)',
      'scheduler:e2e',
    );
    return { toVersion };
  } finally {
    db.close();
  }
}

test('a failed upgrade is listed in Activity, acknowledged on its cluster page with a comment, and audited', async ({ page }) => {
  const cluster = managedCluster();
  const { toVersion } = recordFailedUpgrade(cluster);
  await signIn(page);

  await page.goto(`/activity?tab=upgrades&cluster=${encodeURIComponent(cluster.name)}`);
  const transitions = page.getByRole('table', { name: 'Upgrade lifecycle transitions' });
  await expect(transitions.getByRole('row')).toHaveCount(5); // header + 4 transitions
  const failed = transitions.getByRole('row').filter({ hasText: 'PROVIDER_FAILED' });
  await expect(failed).toContainText(`${cluster.version} → ${toVersion}`);
  await expect(failed).toContainText('machine-config failed to roll out');
  await expect(failed.getByText('PROVIDER_FAILED')).toHaveAttribute('title', /\S/);

  await page.goto(`/clusters/${encodeURIComponent(cluster.name)}`);
  const comment = page.getByRole('textbox', { name: `Why the failure of the upgrade to ${toVersion} is acknowledged` });
  const acknowledge = page.getByRole('button', { name: 'Acknowledge failure' });
  await expect(acknowledge).toBeDisabled(); // a comment is required
  await comment.fill('MCO bug OCPBUGS-0000; worker pool rolled back by hand');
  await acknowledge.click();
  await expect(page.getByText(/acknowledged by demo: MCO bug OCPBUGS-0000/)).toBeVisible();
  await expect(acknowledge).toHaveCount(0);

  const db = openE2eDatabase();
  try {
    expect(
      db
        .prepare(
          "select acknowledged_by as by, acknowledge_comment as comment from upgrade_lifecycles where state = 'failed' and cluster_name = ?",
        )
        .get(cluster.name),
    ).toEqual({ by: 'demo', comment: 'MCO bug OCPBUGS-0000; worker pool rolled back by hand' });
  } finally {
    db.close();
  }

  await page.goto(`/activity?tab=changes&cluster=${encodeURIComponent(cluster.name)}`);
  await expect(page.getByRole('table').getByRole('row').filter({ hasText: 'lifecycle.acknowledge-failure' })).toHaveCount(1);
});
