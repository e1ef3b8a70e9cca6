// The forecast's two input tokens: what people configure and what the fleet reports move apart,
// so a forecast may be shown stale after a fleet change but never after a configuration change.
import { describe, expect, it } from 'vitest';
import { openDatabase } from '@/db/open-database';
import { seedDemo } from '@/server/services/demo-seed-service';
import { readForecastInputsRevision } from './data-version-repository';

const NOW = new Date('2024-07-10T08:00:00Z');

async function seeded() {
  const db = openDatabase(':memory:');
  await seedDemo(db, NOW);
  const org = db.$client.prepare<[], { id: number }>('SELECT id FROM organizations ORDER BY id LIMIT 1').get()!.id;
  const cluster = db.$client.prepare<[], { name: string }>('SELECT name FROM clusters ORDER BY id LIMIT 1').get()!.name;
  const tokens = async () => (await readForecastInputsRevision(db, org))!;
  const update = (set: string, ...values: unknown[]) =>
    db.$client.prepare(`UPDATE clusters SET ${set} WHERE name = ?`).run(...values, cluster);
  return { db, org, tokens, update };
}

describe('the forecast input tokens', () => {
  it.each([
    ['a new version', 'version = ?', '4.99.0'],
    ['new offers', 'available_upgrades = ?', '["4.99.1"]'],
    ['health', 'healthy = ?', 0],
    ['health issues', 'health_issues = ?', '["etcd degraded"]'],
  ])('%s reported by the fleet moves the observation only', async (_what, set, value) => {
    const s = await seeded();
    const before = await s.tokens();
    expect(s.update(set, value).changes).toBe(1);
    const after = await s.tokens();
    expect(after.configuration).toBe(before.configuration);
    expect(after.observation).not.toBe(before.observation);
  });

  it.each([
    ['the cluster policy', 'upgrade_policy = ?', '{"schedule_type":"manual"}'],
    ['fleetplan labels', 'fleetplan_labels = ?', '{"tier":"gold"}'],
    ['the provider labels', 'labels = ?', '{"env":"lab"}'],
  ])('%s moves the configuration', async (_what, set, value) => {
    const s = await seeded();
    const before = await s.tokens();
    expect(s.update(set, value).changes).toBe(1);
    expect((await s.tokens()).configuration).not.toBe(before.configuration);
  });

  it("the soak check-in a tick writes is not configuration; the organization's target is", async () => {
    const s = await seeded();
    const before = await s.tokens();
    s.db.$client.prepare('UPDATE organizations SET soak_check_in = ? WHERE id = ?').run(NOW.getTime() + 60_000, s.org);
    expect((await s.tokens()).configuration).toBe(before.configuration);
    s.db.$client.prepare("UPDATE organizations SET target_version = '4.16.*' WHERE id = ?").run(s.org);
    expect((await s.tokens()).configuration).not.toBe(before.configuration);
  });

  it('an update graph moves both (routes are planned over the stored graphs)', async () => {
    const s = await seeded();
    const before = await s.tokens();
    expect(s.db.$client.prepare("UPDATE update_graphs SET source = 'refetched'").run().changes).toBeGreaterThan(0);
    const after = await s.tokens();
    expect(after.configuration).not.toBe(before.configuration);
    expect(after.observation).not.toBe(before.observation);
  });
});
