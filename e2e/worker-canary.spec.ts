// Canaries as an operator meets them (issue 14 item 4): the demo's hive-production sector has one
// canary (the first of its clusters by name, soakHours 24). A tick holds the rest of the sector
// with AWAITING_CANARY; then the canary's upgrade fails (the simulator fails upgrades only at
// random, so the failed attempt is written as the lifecycle records one: state failed,
// PROVIDER_FAILED, onFailure continue — a canary failure halts the sector whatever its policy);
// the next tick holds the whole sector with CANARY_FAILED naming the canary, the cluster page says
// so, the operator acknowledges the failure on the canary's page (audited), and the next tick
// releases the sector back to waiting for its canary. Ticks go through "Run now" (the e2e server's
// loop is off), so this file runs late (file order), as worker-approval-gate.spec.ts does.
import { expect, test } from '@playwright/test';
import { runTick, signIn } from './helpers';
import { openE2eDatabase } from './pages/seeded-fleet';

const SECTOR = 'hive-production';

type Row = { id: number; name: string; version: string; action: string | null; reason: string | null; decided: string | null };

function sectorClusters(): Row[] {
  const db = openE2eDatabase();
  try {
    return db
      .prepare(
        `select id, name, version, last_decision_action as action, last_decision_reason as reason, last_decision_version as decided
         from clusters where sector = ? and upgrade_policy is not null order by name`,
      )
      .all(SECTOR) as Row[];
  } finally {
    db.close();
  }
}

test('a failed canary halts its sector with CANARY_FAILED until an operator acknowledges the failure', async ({ page }) => {
  // every minute, no soak or mutex of their own and no sector to follow, so the canary rule is what
  // the sector meets first
  const setup = openE2eDatabase({ readonly: false });
  try {
    expect(setup.prepare('select canary from sectors where name = ?').get(SECTOR)).toEqual({ canary: '{"count":1,"soakHours":24}' });
    setup
      .prepare(
        `update clusters set upgrade_policy = json_set(upgrade_policy, '$.schedule', '* * * * *', '$.conditions.soakDays', 0, '$.conditions.mutexes', json('[]'))
         where sector = ? and upgrade_policy is not null`,
      )
      .run(SECTOR);
    setup.prepare("update sectors set dependencies = '[]' where name = ?").run(SECTOR);
  } finally {
    setup.close();
  }
  await signIn(page);
  await runTick(page);

  const [canary, ...rest] = sectorClusters();
  expect(rest.length).toBeGreaterThan(0);
  const waiting = rest.filter((c) => c.reason === 'AWAITING_CANARY');
  expect(waiting.length).toBeGreaterThan(0);
  expect(rest.filter((c) => c.action === 'upgrade')).toEqual([]);
  const version = waiting[0]!.decided!;
  expect(version).toMatch(/^4\.\d+\.\d+$/);

  const failing = openE2eDatabase({ readonly: false });
  try {
    const at = Date.now();
    failing
      .prepare(
        `insert into upgrade_lifecycles (cluster_id, cluster_name, sector, from_version, to_version, slot, state, reason, message,
           halts_on_failure, created_at, updated_at, finished_at)
         values (?, ?, ?, ?, ?, ?, 'failed', 'PROVIDER_FAILED', 'etcd member failed to rejoin', 0, ?, ?, ?)`,
      )
      .run(canary!.id, canary!.name, SECTOR, canary!.version, version, at - 3 * 3_600_000, at, at, at);
  } finally {
    failing.close();
  }
  await runTick(page);

  const halted = sectorClusters().filter((c) => c.reason === 'CANARY_FAILED');
  expect(halted.map((c) => c.name)).toEqual(expect.arrayContaining(waiting.map((c) => c.name)));
  expect(sectorClusters().filter((c) => c.action === 'upgrade' && c.decided === version)).toEqual([]);

  await page.goto(`/clusters/${encodeURIComponent(waiting[0]!.name)}`);
  const decision = page.getByRole('region', { name: 'Engine decision' });
  await expect(decision.getByText('CANARY_FAILED')).toBeVisible();
  await expect(decision).toContainText(`canary ${canary!.name} of sector ${SECTOR} failed the upgrade to ${version}`);
  await page.screenshot({ path: 'test-results/screenshots/cluster-canary-failed.png' });

  await page.goto(`/clusters/${encodeURIComponent(canary!.name)}`);
  await page.getByLabel(`Why the failure of the upgrade to ${version} is acknowledged`).fill('etcd fixed, INC-4711');
  await page.getByRole('button', { name: 'Acknowledge failure' }).click();
  await expect(page.getByText('acknowledged by demo: etcd fixed, INC-4711')).toBeVisible();

  const audited = openE2eDatabase();
  try {
    // this canary's acknowledgement (other specs acknowledge other failures on the shared database)
    expect(
      audited
        .prepare("select actor from audit_log where action = 'lifecycle.acknowledge-failure' and target = ?")
        .all(`${canary!.name}@${version}`),
    ).toEqual([{ actor: 'demo' }]);
  } finally {
    audited.close();
  }

  await runTick(page);
  const released = sectorClusters();
  expect(released.filter((c) => c.reason === 'CANARY_FAILED')).toEqual([]);
  // back to waiting for the canary to complete (and soak) the version
  expect(released.filter((c) => waiting.some((w) => w.name === c.name)).map((c) => c.reason)).toEqual(waiting.map(() => 'AWAITING_CANARY'));
});
