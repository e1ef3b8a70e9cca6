// After a tick that changed a few clusters, the stored fleet's cache reads only those rows and puts
// them in place (server/services/stored-fleet-evaluation.ts, migration 0022). Whatever the
// changes, what it answers must be what a process with no cache would answer: random tick-like
// updates (versions, offers, health, upgrades in flight, labels a sector selector reads, policies,
// operators and version gates that hold upgrades, clusters going and coming back, an invalid row,
// a sector edit) are applied in turn, and after
// each the cached evaluation is compared with a cold one on a fresh connection.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '@/db/open-database';
import { findFirstOrganization as findOrganization } from '@/server/repositories/organization-repository';
import { seedDemo } from '@/server/services/demo-seed-service';
import {
  evaluateStoredFleet,
  storedFleetChangedClusterLoads,
  storedFleetLoadCounts,
  type StoredFleetEvaluation,
} from '@/server/services/stored-fleet-evaluation';

const NOW = new Date('2024-07-10T08:00:00Z');
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => fs.rmSync(d, { recursive: true, force: true })));
afterAll(() => template && fs.rmSync(path.dirname(template), { recursive: true, force: true }));

/** the seeded demo fleet, made once: each run starts from a copy of it */
let template: string | undefined;

async function fleetFile(): Promise<{ file: string; db: Db }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fleetplan-changed-clusters-'));
  dirs.push(dir);
  const file = path.join(dir, 'fleet.db');
  if (!template) {
    const seeded = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'fleetplan-changed-template-')), 'fleet.db');
    const db = openDatabase(seeded);
    await seedDemo(db, NOW);
    // a sector that takes, by their labels, the managed clusters whose policy names none
    db.$client.prepare("UPDATE sectors SET selector = 'tier=green' WHERE name = 'prod-green'").run();
    db.$client.pragma('wal_checkpoint(TRUNCATE)');
    db.$client.close();
    template = seeded;
  }
  fs.copyFileSync(template, file);
  return { file, db: openDatabase(file) };
}

/** what a view sees: the engine's input, gates (but the route finder, one per connection) and decisions, or the problems */
function seen(result: StoredFleetEvaluation) {
  if (!result.ok) return { problems: result.problems };
  const { routes, ...gates } = result.gates;
  // the version view is asked before the evaluation, as the Fleet table asks it (its own engine run)
  const view = result.view;
  const names = result.input.clusters.map((c) => c.name);
  return {
    input: result.input,
    gates,
    routed: routes !== undefined,
    never: [...view.allNeverUpgrades()],
    soaking: names.map((n) => view.candidateSoak(n)),
    newest: names.map((n) => view.newestUnblocked(n)),
    decisions: result.evaluation.decisions,
  };
}

async function cold(file: string, when: Date) {
  const fresh = openDatabase(file);
  try {
    return seen(await evaluateStoredFleet(fresh, (await findOrganization(fresh))!, when));
  } finally {
    fresh.$client.close();
  }
}

/** one row write of the kind a tick (or an operator) makes: [what, which cluster, which value] */
type Change = { kind: number; cluster: number; value: number };

const HEALTH_ISSUES = ['[]', '["ClusterOperator dns Degraded"]', '["ClusterOperator ingress Degraded","Node pressure"]'];
const LABELS = ['{}', '{"tier":"green"}', '{"tier":"blue"}'];

function apply(db: Db, names: readonly string[], versions: readonly string[], { kind, cluster, value }: Change): void {
  const name = names[cluster % names.length]!;
  const version = versions[value % versions.length]!;
  const run = (sql: string, ...params: unknown[]) => db.$client.prepare(sql).run(...params);
  switch (kind) {
    case 0: // an upgrade completed: a new version
      return void run('UPDATE clusters SET version = ?, current_upgrade = NULL WHERE name = ?', version, name);
    case 1: // the provider offers other versions
      return void run('UPDATE clusters SET available_upgrades = ? WHERE name = ?', JSON.stringify(versions.slice(value % 3)), name);
    case 2: // health
      return void run(
        'UPDATE clusters SET healthy = ?, health_issues = ? WHERE name = ?',
        value % 2,
        HEALTH_ISSUES[value % HEALTH_ISSUES.length],
        name,
      );
    case 3: // an upgrade scheduled, started or cleared
      return void run(
        'UPDATE clusters SET current_upgrade = ? WHERE name = ?',
        value % 3 === 0
          ? null
          : JSON.stringify({ version, nextRun: '2024-07-10T09:00:00Z', state: value % 3 === 1 ? 'scheduled' : 'started' }),
        name,
      );
    case 4: // labels (a sector selector reads them)
      return void run(`UPDATE clusters SET ${value % 2 ? 'labels' : 'fleetplan_labels'} = ? WHERE name = ?`, LABELS[value % 3], name);
    case 5: // a policy that names its sector, or leaves it to the selectors
      return void run(
        value % 2
          ? "UPDATE clusters SET upgrade_policy = json_remove(upgrade_policy, '$.conditions.sector') WHERE name = ? AND upgrade_policy IS NOT NULL"
          : "UPDATE clusters SET upgrade_policy = json_set(upgrade_policy, '$.conditions.sector', 'dev') WHERE name = ? AND upgrade_policy IS NOT NULL",
        name,
      );
    case 6: // the provider stops or starts reporting the cluster
      return void run('UPDATE clusters SET upgrade_state = ? WHERE name = ?', value % 2 ? 'gone' : 'idle', name);
    case 7: // a row the engine refuses, then put right by a later write of its kind 0
      return void run("UPDATE clusters SET version = 'not-a-version' WHERE name = ?", name);
    case 8: // something else in the structure: a sector's limit
      return void run("UPDATE sectors SET max_parallel_upgrades = ? WHERE name = 'prod-blue'", String(1 + (value % 4)));
    case 9: // operators that hold some upgrades (Kubernetes provider), or none reported
      return void run(
        'UPDATE clusters SET inhibitors = ? WHERE name = ?',
        value % 3 === 0
          ? null
          : JSON.stringify({
              operators: [{ name: 'legacy-operator', namespace: 'ops', maxOpenShiftVersion: value % 3 === 1 ? '4.13' : '4.99' }],
              removedApis: [],
            }),
        name,
      );
    case 10: // a version gate not agreed to (OCM), or agreed
      return void run(
        'UPDATE clusters SET pending_version_gates = ? WHERE name = ?',
        value % 2 ? JSON.stringify([{ id: 'gate-1', minor: '4.14', description: 'API removals', documentationUrl: null }]) : '[]',
        name,
      );
    default: // several clusters in one statement, as a tick's snapshot writes them
      return void run('UPDATE clusters SET health_issues = ? WHERE id % 7 = ?', HEALTH_ISSUES[value % HEALTH_ISSUES.length], cluster % 7);
  }
}

const change = fc.record({ kind: fc.integer({ min: 0, max: 11 }), cluster: fc.nat(), value: fc.nat() });
/** a tick's writes: mostly a few row changes, sometimes none */
const tick = fc.array(change, { minLength: 0, maxLength: 4 });

describe('the stored fleet after some clusters changed', () => {
  it('answers what a cold load answers after any run of tick-like changes, reading only the changed rows when it can', async () => {
    const patchesBefore = storedFleetChangedClusterLoads();
    await fc.assert(
      fc.asyncProperty(fc.array(tick, { minLength: 1, maxLength: 8 }), async (ticks) => {
        const { file, db } = await fleetFile();
        try {
          const names = (db.$client.prepare('SELECT name FROM clusters ORDER BY id').all() as { name: string }[]).map((r) => r.name);
          const versions = (
            db.$client.prepare('SELECT DISTINCT version FROM clusters ORDER BY version').all() as { version: string }[]
          ).map((r) => r.version);
          const org = (await findOrganization(db))!;
          await evaluateStoredFleet(db, org, NOW);
          for (const [i, writes] of ticks.entries()) {
            for (const w of writes) apply(db, names, versions, w);
            // on the hour: the demo's schedules are hourly, so the gates decide who upgrades
            const when = new Date(NOW.getTime() + (i + 1) * HOUR);
            expect(seen(await evaluateStoredFleet(db, org, when))).toEqual(await cold(file, when));
          }
        } finally {
          db.$client.close();
        }
      }),
      { numRuns: 20, seed: 20261127 },
    );
    // the runs went through the patching path, not only through whole loads
    expect(storedFleetChangedClusterLoads()).toBeGreaterThan(patchesBefore + 15);
    // 20 runs of up to 8 ticks, each with a cold load beside it: seconds alone, more on a shared machine
  }, 120_000);

  it('reads only the changed rows for a change of one cluster, and the whole fleet for a cluster gone', async () => {
    const { file, db } = await fleetFile();
    const org = (await findOrganization(db))!;
    const first = await evaluateStoredFleet(db, org, NOW);
    if (!first.ok) throw new Error('the demo fleet does not validate');
    const name = first.input.clusters[3]!.name;
    const before = { loads: storedFleetLoadCounts(), patches: storedFleetChangedClusterLoads() };
    db.$client.prepare(`UPDATE clusters SET health_issues = '["etcd Degraded"]', available_upgrades = '[]' WHERE name = ?`).run(name);
    const patched = await evaluateStoredFleet(db, org, new Date(NOW.getTime() + MINUTE));
    expect(storedFleetLoadCounts().full).toBe(before.loads.full);
    expect(storedFleetChangedClusterLoads()).toBe(before.patches + 1);
    expect(patched.ok && patched.input.clusters[3]).toMatchObject({ name, availableUpgrades: [] });
    // the other clusters are the very objects loaded before: nothing else was read or validated
    expect(patched.ok && patched.input.clusters[4]).toBe(first.input.clusters[4]);
    expect(seen(patched)).toEqual(await cold(file, new Date(NOW.getTime() + MINUTE)));
    // explain knows the fleet's names from the positions the patch kept
    expect(patched.ok && patched.explain(name)?.cluster).toBe(name);
    expect(patched.ok && patched.explain('no-such-cluster')).toBeNull();

    const fullLoads = storedFleetLoadCounts().full;
    db.$client.prepare("UPDATE clusters SET upgrade_state = 'gone' WHERE name = ?").run(name);
    const gone = await evaluateStoredFleet(db, org, new Date(NOW.getTime() + 2 * MINUTE));
    expect(storedFleetLoadCounts().full).toBe(fullLoads + 1);
    expect(gone.ok && gone.input.clusters.some((c) => c.name === name)).toBe(false);
    expect(gone.ok && gone.explain(name)).toBeNull();
    expect(gone.ok && gone.explain(first.input.clusters[4]!.name)).not.toBeNull();
  });

  it("moves the 'cluster_rows' revision for exactly the structure trigger's cluster columns", async () => {
    const { db } = await fleetFile();
    const sqlOf = (name: string) =>
      (db.$client.prepare("SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = ?").get(name) as { sql: string }).sql;
    const columns = (sql: string, pattern: RegExp) => [...sql.matchAll(pattern)].map((m) => m[1]!).sort();
    const changedIn = /OLD\.`(\w+)` IS NOT NEW\.`\w+`/g;
    const structure = columns(sqlOf('plan_structure_clusters_update'), changedIn);
    const rows = sqlOf('plan_cluster_rows_update');
    const staying = ['name', 'organization_id', 'position'];
    expect(columns(rows, /OLD\.`(\w+)` IS NEW\.`\w+`/g)).toEqual(staying);
    expect(columns(rows, changedIn)).toEqual(structure.filter((c) => !staying.includes(c)));
  });
});
