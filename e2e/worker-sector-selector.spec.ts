// A sector whose clusters come from its label selector (issue 14 item 5): three hive-production
// clusters lose the sector their policy named and carry the label a new sector `pool` selects.
// The Sectors page counts them under `pool`, as the engine does, and shows the selector. Runs late
// (file order, worker-*): it rewrites stored clusters and adds a sector.
import { expect, test } from '@playwright/test';
import { signIn } from './helpers';
import { openE2eDatabase } from './pages/seeded-fleet';

test('a selector-only sector shows the clusters its selector takes', async ({ page }) => {
  const db = openE2eDatabase({ readonly: false });
  let moved: string[];
  let hiveBefore: number;
  try {
    const hive = db
      .prepare(
        "select name, upgrade_policy as p from clusters where sector = 'hive-production' and upgrade_policy is not null order by name",
      )
      .all() as { name: string; p: string }[];
    if (hive.length < 4) throw new Error('the seeded demo fleet has fewer than four hive-production clusters');
    hiveBefore = hive.length;
    moved = hive.slice(0, 3).map((c) => c.name);
    const org = (db.prepare("select organization_id as id from sectors where name = 'hive-production'").get() as { id: number }).id;
    db.transaction(() => {
      for (const c of hive.slice(0, 3)) {
        const policy = JSON.parse(c.p) as { conditions: Record<string, unknown> };
        delete policy.conditions.sector;
        db.prepare(
          `update clusters set sector = null, upgrade_policy = ?, fleetplan_labels = json('{"pool":"shared"}') where name = ?`,
        ).run(JSON.stringify(policy), c.name);
      }
      const position = (db.prepare('select max(position) + 1 as p from sectors where organization_id = ?').get(org) as { p: number }).p;
      db.prepare(
        "insert into sectors (organization_id, name, position, dependencies, selector) values (?, 'pool', ?, '[]', 'pool=shared')",
      ).run(org, position);
    })();
  } finally {
    db.close();
  }

  await page.setViewportSize({ width: 1440, height: 900 });
  await signIn(page);
  await page.goto('/sectors');
  const pool = page.locator('.react-flow__node[data-id="pool"]');
  await expect(pool).toContainText('3 clusters');
  await expect(pool.getByTestId('sector-selector-pool')).toHaveText('selects pool=shared');
  await expect(page.locator('.react-flow__node[data-id="hive-production"]')).toContainText(`${hiveBefore - 3} clusters`);
  await page.screenshot({ path: 'test-results/screenshots/sectors-selector-only.png', fullPage: true });
  expect(moved).toHaveLength(3);
});
