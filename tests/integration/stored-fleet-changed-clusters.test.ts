// After a tick that changed a few clusters, the stored fleet's cache reads only those rows and puts
// them in place (server/services/stored-fleet-evaluation.ts, migration 0022). Whatever the
// changes, what it answers must be what a process with no cache would answer: random tick-like
// updates (versions, offers, health, upgrades in flight, labels a sector selector reads, policies,
// operators and version gates that hold upgrades, clusters going and coming back, an invalid row,
// a sector edit) are applied in turn, and after
// each the cached evaluation is compared with a cold one on a fresh connection.
import fc from 'fast-check';
import { asc, eq, isNotNull, and, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '@/db/open-database';
import { tablesOf } from '@/server/repositories/dialect';
import { findFirstOrganization as findOrganization } from '@/server/repositories/organization-repository';
import { seedDemo } from '@/server/services/demo-seed-service';
import {
  evaluateStoredFleet,
  storedFleetChangedClusterLoads,
  storedFleetLoadCounts,
  type StoredFleetEvaluation,
} from '@/server/services/stored-fleet-evaluation';
import { anotherConnection, closeConnection, onBothDatabases, type OpenTwice } from '@/tests/support/both-databases';

const NOW = new Date('2024-07-10T08:00:00Z');
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
async function seedFleet(db: Db): Promise<void> {
  await seedDemo(db, NOW);
  // a sector that takes, by their labels, the managed clusters whose policy names none
  const { sectors } = tablesOf(db);
  await db.update(sectors).set({ selector: 'tier=green' }).where(eq(sectors.name, 'prod-green'));
}

/** the seeded demo fleet (made once: each run starts from a copy of it), in a database a second connection can reach (cold loads) */
async function demoFleet(openTwice: OpenTwice): Promise<Db> {
  const [db, spare] = await openTwice(seedFleet);
  await closeConnection(spare);
  return db;
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

/** what a process with no cache answers: a fresh connection to the same database */
async function cold(db: Db, when: Date) {
  const fresh = anotherConnection(db);
  try {
    return seen(await evaluateStoredFleet(fresh, (await findOrganization(fresh))!, when));
  } finally {
    await closeConnection(fresh);
  }
}

/** one row write of the kind a tick (or an operator) makes: [what, which cluster, which value] */
type Change = { kind: number; cluster: number; value: number };

const HEALTH_ISSUES = [[], ['ClusterOperator dns Degraded'], ['ClusterOperator ingress Degraded', 'Node pressure']];
const LABELS: Record<string, string>[] = [{}, { tier: 'green' }, { tier: 'blue' }];

async function apply(db: Db, names: readonly string[], versions: readonly string[], { kind, cluster, value }: Change): Promise<void> {
  const { clusters, sectors } = tablesOf(db);
  const name = names[cluster % names.length]!;
  const version = versions[value % versions.length]!;
  const update = (set: Partial<typeof clusters.$inferInsert>) => db.update(clusters).set(set).where(eq(clusters.name, name));
  switch (kind) {
    case 0: // an upgrade completed: a new version
      return void (await update({ version, currentUpgrade: null }));
    case 1: // the provider offers other versions
      return void (await update({ availableUpgrades: versions.slice(value % 3) }));
    case 2: // health
      return void (await update({ healthy: value % 2 === 1, healthIssues: HEALTH_ISSUES[value % HEALTH_ISSUES.length]! }));
    case 3: // an upgrade scheduled, started or cleared
      return void (await update({
        currentUpgrade:
          value % 3 === 0 ? null : { version, nextRun: '2024-07-10T09:00:00Z', state: value % 3 === 1 ? 'scheduled' : 'started' },
      }));
    case 4: // labels (a sector selector reads them)
      return void (await update(value % 2 ? { labels: LABELS[value % 3]! } : { fleetplanLabels: LABELS[value % 3]! }));
    case 5: {
      // a policy that names its sector, or leaves it to the selectors (the row's own policy, rewritten)
      const [row] = await db
        .select({ policy: clusters.upgradePolicy })
        .from(clusters)
        .where(and(eq(clusters.name, name), isNotNull(clusters.upgradePolicy)));
      if (!row) return;
      const policy = structuredClone(row.policy!) as { conditions?: Record<string, unknown> };
      if (policy.conditions && typeof policy.conditions === 'object') {
        if (value % 2) delete policy.conditions.sector;
        else policy.conditions.sector = 'dev';
      }
      return void (await update({ upgradePolicy: policy }));
    }
    case 6: // the provider stops or starts reporting the cluster
      return void (await update({ upgradeState: value % 2 ? 'gone' : 'idle' }));
    case 7: // a row the engine refuses, then put right by a later write of its kind 0
      return void (await update({ version: 'not-a-version' }));
    case 8: // something else in the structure: a sector's limit
      return void (await db
        .update(sectors)
        .set({ maxParallelUpgrades: String(1 + (value % 4)) })
        .where(eq(sectors.name, 'prod-blue')));
    case 9: // operators that hold some upgrades (Kubernetes provider), or none reported
      return void (await update({
        inhibitors:
          value % 3 === 0
            ? null
            : {
                operators: [{ name: 'legacy-operator', namespace: 'ops', maxOpenShiftVersion: value % 3 === 1 ? '4.13' : '4.99' }],
                removedApis: [],
              },
      }));
    case 10: // a version gate not agreed to (OCM), or agreed
      return void (await update({
        pendingVersionGates: value % 2 ? [{ id: 'gate-1', minor: '4.14', description: 'API removals', documentationUrl: null }] : [],
      }));
    default: // several clusters in one statement, as a tick's snapshot writes them
      return void (await db
        .update(clusters)
        .set({ healthIssues: HEALTH_ISSUES[value % HEALTH_ISSUES.length]! })
        .where(sql`${clusters.id} % 7 = ${cluster % 7}`));
  }
}

const change = fc.record({ kind: fc.integer({ min: 0, max: 11 }), cluster: fc.nat(), value: fc.nat() });
/** a tick's writes: mostly a few row changes, sometimes none */
const tick = fc.array(change, { minLength: 0, maxLength: 4 });

onBothDatabases('the stored fleet after some clusters changed', (_open, _kind, openTwice) => {
  it('answers what a cold load answers after any run of tick-like changes, reading only the changed rows when it can', async () => {
    const patchesBefore = storedFleetChangedClusterLoads();
    await fc.assert(
      fc.asyncProperty(fc.array(tick, { minLength: 1, maxLength: 8 }), async (ticks) => {
        const db = await demoFleet(openTwice);
        const { clusters } = tablesOf(db);
        try {
          const names = (await db.select({ name: clusters.name }).from(clusters).orderBy(asc(clusters.id))).map((r) => r.name);
          const versions = (await db.selectDistinct({ version: clusters.version }).from(clusters).orderBy(asc(clusters.version))).map(
            (r) => r.version,
          );
          const org = (await findOrganization(db))!;
          await evaluateStoredFleet(db, org, NOW);
          for (const [i, writes] of ticks.entries()) {
            for (const w of writes) await apply(db, names, versions, w);
            // on the hour: the demo's schedules are hourly, so the gates decide who upgrades
            const when = new Date(NOW.getTime() + (i + 1) * HOUR);
            expect(seen(await evaluateStoredFleet(db, org, when))).toEqual(await cold(db, when));
          }
        } finally {
          await closeConnection(db);
        }
      }),
      { numRuns: 20, seed: 20261127 },
    );
    // the runs went through the patching path, not only through whole loads
    expect(storedFleetChangedClusterLoads()).toBeGreaterThan(patchesBefore + 15);
    // 20 runs of up to 8 ticks, each with a cold load beside it: seconds alone, more on a shared machine
  }, 120_000);

  it('reads only the changed rows for a change of one cluster, and the whole fleet for a cluster gone', async () => {
    const db = await demoFleet(openTwice);
    const { clusters } = tablesOf(db);
    const org = (await findOrganization(db))!;
    const first = await evaluateStoredFleet(db, org, NOW);
    if (!first.ok) throw new Error('the demo fleet does not validate');
    const name = first.input.clusters[3]!.name;
    const before = { loads: storedFleetLoadCounts(), patches: storedFleetChangedClusterLoads() };
    await db
      .update(clusters)
      .set({ healthIssues: ['etcd Degraded'], availableUpgrades: [] })
      .where(eq(clusters.name, name));
    const patched = await evaluateStoredFleet(db, org, new Date(NOW.getTime() + MINUTE));
    expect(storedFleetLoadCounts().full).toBe(before.loads.full);
    expect(storedFleetChangedClusterLoads()).toBe(before.patches + 1);
    expect(patched.ok && patched.input.clusters[3]).toMatchObject({ name, availableUpgrades: [] });
    // the other clusters are the very objects loaded before: nothing else was read or validated
    expect(patched.ok && patched.input.clusters[4]).toBe(first.input.clusters[4]);
    expect(seen(patched)).toEqual(await cold(db, new Date(NOW.getTime() + MINUTE)));
    // explain knows the fleet's names from the positions the patch kept
    expect(patched.ok && patched.explain(name)?.cluster).toBe(name);
    expect(patched.ok && patched.explain('no-such-cluster')).toBeNull();

    const fullLoads = storedFleetLoadCounts().full;
    await db.update(clusters).set({ upgradeState: 'gone' }).where(eq(clusters.name, name));
    const gone = await evaluateStoredFleet(db, org, new Date(NOW.getTime() + 2 * MINUTE));
    expect(storedFleetLoadCounts().full).toBe(fullLoads + 1);
    expect(gone.ok && gone.input.clusters.some((c) => c.name === name)).toBe(false);
    expect(gone.ok && gone.explain(name)).toBeNull();
    expect(gone.ok && gone.explain(first.input.clusters[4]!.name)).not.toBeNull();
  });
});

describe('the stored fleet after some clusters changed (SQLite triggers)', () => {
  it("moves the 'cluster_rows' revision for exactly the structure trigger's cluster columns", () => {
    const db = openDatabase(':memory:');
    const sqlOf = (name: string) =>
      (db.$client.prepare("SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = ?").get(name) as { sql: string }).sql;
    const columns = (sql: string, pattern: RegExp) => [...sql.matchAll(pattern)].map((m) => m[1]!).sort();
    const changedIn = /OLD\.`(\w+)` IS NOT NEW\.`\w+`/g;
    const structure = columns(sqlOf('plan_structure_clusters_update'), changedIn);
    const rows = sqlOf('plan_cluster_rows_update');
    const staying = ['name', 'organization_id', 'position'];
    expect(columns(rows, /OLD\.`(\w+)` IS NEW\.`\w+`/g)).toEqual(staying);
    expect(columns(rows, changedIn)).toEqual(structure.filter((c) => !staying.includes(c)));
    db.$client.close();
  });
});
