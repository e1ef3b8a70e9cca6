// The fleet's repositories (clusters, the plan document, gate state, sectors, soak, the data
// version, the demo fleet, organizations' contents) on SQLite and on a throw-away PostgreSQL: the
// same calls with the same expectations, and on each database the answers equal those of a SQLite
// database given the same writes (the reference).
import fs from 'node:fs';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, expect, it } from 'vitest';
import { openDatabase, type Db } from '@/db/open-database';
import { generateDemoFleet, type DemoFleet, type DemoGraphDocument } from '@/server/demo/demo-fleet';
import type { VersionData } from '@/server/domain/plan/types';
import {
  countByVersion,
  countClusters,
  distinctValues,
  findClusterById,
  findClusterByName,
  findClusterLabels,
  listClusterLabels,
  listClusterNamesInSector,
  listClusters,
  listClusterUpgrades,
  listGoneClusterNames,
  listPendingVersionGates,
  removePendingVersionGate,
  setFleetplanLabels,
  type ClusterFilter,
  type ClusterSortKey,
} from '@/server/repositories/cluster-repository';
import { countDatabaseContents } from '@/server/repositories/database-contents-repository';
import {
  readDataVersion,
  readForecastInputsRevision,
  readPlanRowRevisions,
  readPlanStructureRevision,
} from '@/server/repositories/data-version-repository';
import { insertDemoFleet, isDatabaseEmpty, wipeFleetData } from '@/server/repositories/demo-fleet-repository';
import { tablesOf, type Tables } from '@/server/repositories/dialect';
import { loadClusterLabels, loadHealthIssues, loadInhibitors, loadPendingVersionGates } from '@/server/repositories/gate-state-repository';
import { pingDatabase } from '@/server/repositories/health-repository';
import { organizationContents, readSoakCheckIn } from '@/server/repositories/organization-repository';
import { loadChangedPlanClusters, loadPlanDocument, loadVersionData } from '@/server/repositories/plan-document-repository';
import {
  countBySector,
  countBySectorWorkloadVersion,
  countDecisionsBySector,
  countSoakThresholdsBySector,
  listBlockedPatterns,
  listSectorRows,
  listSoakDays,
} from '@/server/repositories/sector-repository';
import {
  countHealthyRunning,
  countOffersByThreshold,
  findSoakTotal,
  listSoakSamples,
  listSoakTotals,
} from '@/server/repositories/soak-query-repository';
import { maybeSampleSoak, saveVersionData } from '@/server/repositories/soak-repository';
import { withTransaction } from '@/server/repositories/transaction';
import { onBothDatabases } from '@/tests/support/both-databases';

const NOW = new Date('2024-07-10T08:00:00.000Z');
const DAY_MS = 86_400_000;
const GRAPH = JSON.parse(
  fs.readFileSync(path.join(process.cwd(), 'server', 'demo', 'data', 'stable-4.13.json'), 'utf8'),
) as DemoGraphDocument;

/**
 * The demo fleet at `scale` (54 managed clusters per step). Without canaries: the plan document
 * reads a canary sector's upgrade results through the lifecycle repository, not one of these.
 */
function demoFleet(scale: number): DemoFleet {
  const fleet = generateDemoFleet(GRAPH, NOW, undefined, { holdBackReleases: 2, scale });
  return { ...fleet, organization: { ...fleet.organization, sectors: fleet.organization.sectors.map(({ canary: _, ...s }) => s) } };
}

const references: Db[] = [];
afterAll(() => references.forEach((db) => db.$client.close()));

/** `db` and a SQLite reference, each given the demo fleet at `scale`. */
async function seeded(open: () => Promise<Db>, scale = 10) {
  const fleet = demoFleet(scale);
  const db = await open();
  const reference = openDatabase(':memory:');
  references.push(reference);
  const { organizationId } = await insertDemoFleet(db, fleet, NOW);
  const { organizationId: referenceOrganizationId } = await insertDemoFleet(reference, fleet, NOW);
  expect(referenceOrganizationId).toBe(organizationId);
  /** the same call on both; `db`'s answer, after checking it equals the reference's */
  const same = async <T>(call: (db: Db) => Promise<T>): Promise<T> => {
    const answer = await call(db);
    expect(answer).toEqual(await call(reference));
    return answer;
  };
  /** the same write on both */
  const onBoth = async (write: (db: Db) => Promise<unknown>) => {
    await write(db);
    await write(reference);
  };
  return { db, reference, fleet, organizationId, same, onBoth };
}

/** A direct update of one cluster's columns (what a snapshot or a decision writes), through the shared builder. */
async function updateCluster(db: Db, name: string, set: Partial<Tables['clusters']['$inferInsert']>) {
  const { clusters } = tablesOf(db);
  await db.update(clusters).set(set).where(eq(clusters.name, name));
}

onBothDatabases('the fleet repositories', (open) => {
  it('seeds the demo fleet in bulk: every row, and the plan document read back as on SQLite', async () => {
    const { db, fleet, organizationId, same } = await seeded(open);
    const managed = fleet.clusters.filter((c) => c.upgradePolicy);
    expect(fleet.clusters.length).toBeGreaterThan(500);
    expect(await isDatabaseEmpty(db)).toBe(false);
    expect(await countClusters(db)).toBe(fleet.clusters.length);
    expect(await countClusters(db, organizationId)).toBe(fleet.clusters.length);
    expect(await countDatabaseContents(db)).toEqual({
      organizations: 1,
      clusters: fleet.clusters.length,
      policyRevisions: 0,
      users: 0,
      apiTokens: 0,
      webhooks: 0,
    });
    expect(await organizationContents(db, organizationId)).toEqual({
      clusters: fleet.clusters.length,
      managed: managed.length,
      simulated: fleet.clusters.length,
      sectors: fleet.organization.sectors.length,
      blockedVersions: fleet.organization.blockedVersions.length,
    });
    expect((await listSectorRows(db, organizationId)).map((s) => s.name)).toEqual(fleet.organization.sectors.map((s) => s.name));
    expect((await listBlockedPatterns(db, organizationId)).sort()).toEqual(fleet.organization.blockedVersions.map((b) => b.pattern).sort());
    expect(await readSoakCheckIn(db, organizationId)).toEqual(fleet.checkIn);

    const document = await same((d) => loadPlanDocument(d, organizationId, NOW));
    expect(document.clusters.map((c) => c.name)).toEqual(fleet.clusters.map((c) => c.name));
    expect(document.clusters.filter((c) => c.upgradePolicy)).toHaveLength(managed.length);
    expect(document.organization.sectors.map((s) => s.name)).toEqual(fleet.organization.sectors.map((s) => s.name));
    const soakEntries = Object.values(document.versionData.versions).flatMap((v) => Object.keys(v.workloads));
    expect(soakEntries).toHaveLength(fleet.versionSoak.length);
    expect(await same((d) => loadVersionData(d, organizationId, NOW))).toEqual(document.versionData);

    // every upgrade record of a cluster, newest first
    const withHistory = fleet.upgrades[0]!.cluster;
    const cluster = (await findClusterByName(db, withHistory, organizationId))!;
    const history = await same((d) => listClusterUpgrades(d, cluster.id));
    expect(history.map((u) => u.toVersion)).toEqual(
      fleet.upgrades
        .filter((u) => u.cluster === withHistory)
        .sort((a, b) => b.startedAt.getTime() - a.startedAt.getTime())
        .map((u) => u.toVersion),
    );
  });

  it('filters, sorts and pages clusters as SQLite does', async () => {
    const { db, fleet, organizationId, same, onBoth } = await seeded(open, 4);
    const [first, second, third] = fleet.clusters;
    await onBoth((d) => updateCluster(d, first!.name, { nextRun: new Date(NOW.getTime() + DAY_MS), region: 'Lab-West' }));
    await onBoth((d) => updateCluster(d, second!.name, { nextRun: new Date(NOW.getTime() + 2 * DAY_MS), upgradeState: 'gone' }));
    await onBoth(async (d) =>
      setFleetplanLabels(d, (await findClusterByName(d, third!.name))!.id, { tier: 'gold', 'api.openshift.com/x': 'y' }),
    );
    // byte order (SQLite's) puts `Zone` before `a-b`; a natural-language collation would not
    await onBoth(async (d) => setFleetplanLabels(d, (await findClusterByName(d, first!.name))!.id, { Zone: 'eu', 'a-b': 'x' }));

    const filters: ClusterFilter[] = [
      {},
      { organizationId },
      { search: 'lab-west' },
      { search: '%' },
      { sector: fleet.organization.sectors[0]!.name },
      { workload: fleet.organization.allowedWorkloads[0]! },
      { state: 'gone' },
      { state: 'no-such-state' },
      { version: '4.13.' },
      { version: first!.version },
      { managed: true },
      { managed: false },
      { names: [] },
      { names: [first!.name, third!.name] },
      { label: { key: 'tier' } },
      { label: { key: 'tier', value: 'gold' } },
      { label: { key: 'api.openshift.com/x', value: 'y' } },
      { region: 'Lab-West' },
    ];
    for (const filter of filters) {
      for (const sort of ['name', 'version', 'sector', 'nextRun'] satisfies ClusterSortKey[]) {
        for (const direction of ['asc', 'desc'] as const) {
          const page = await same((d) => listClusters(d, { filter, sort, direction, offset: 5, limit: 40 }));
          expect(page.rows.length).toBe(Math.max(0, Math.min(40, page.total - 5)));
        }
      }
    }
    const all = await listClusters(db, { filter: {}, sort: 'version', direction: 'asc', offset: 0, limit: 10_000 });
    expect(all.total).toBe(fleet.clusters.length);
    const versionKey = (v: string) =>
      v
        .split('.')
        .map((n) => n.padStart(5, '0'))
        .join('.');
    expect(all.rows.map((r) => versionKey(r.version))).toEqual(all.rows.map((r) => versionKey(r.version)).sort());
    expect((await listClusters(db, { filter: { search: 'LAB-west' }, sort: 'name', direction: 'asc', offset: 0, limit: 10 })).rows).toEqual(
      [expect.objectContaining({ name: first!.name, region: 'Lab-West' })],
    );
    expect(
      (await listClusters(db, { filter: { label: { key: 'tier', value: 'gold' } }, sort: 'name', direction: 'asc', offset: 0, limit: 10 }))
        .total,
    ).toBe(1);

    const counts = await same((d) => countByVersion(d, { organizationId }));
    expect(counts.reduce((n, c) => n + c.count, 0)).toBe(fleet.clusters.length);
    const values = await same((d) => distinctValues(d, organizationId));
    expect(values.labels).toEqual(expect.arrayContaining(['tier=gold', 'api.openshift.com/x=y', 'Zone=eu', 'a-b=x']));
    expect(values.labels.indexOf('Zone=eu')).toBeLessThan(values.labels.indexOf('a-b=x'));
    expect(values.states).toContain('gone');
    expect(values.regions).toContain('Lab-West');
    expect(await same((d) => listClusterLabels(d, organizationId))).toHaveLength(fleet.clusters.length - 1);
    const sector = fleet.organization.sectors[0]!.name;
    expect((await same((d) => listClusterNamesInSector(d, organizationId, sector))).sort()).toEqual(
      fleet.clusters
        .filter((c) => c.upgradePolicy?.conditions.sector === sector)
        .map((c) => c.name)
        .sort(),
    );
    expect(await findClusterLabels(db, organizationId, third!.name)).toMatchObject({ tier: 'gold', 'api.openshift.com/x': 'y' });
    expect(await findClusterLabels(db, organizationId, 'no-such-cluster')).toBeNull();
    expect(await listGoneClusterNames(db, organizationId)).toEqual([second!.name]);
    const byName = (await findClusterByName(db, first!.name, organizationId))!;
    expect(await findClusterById(db, byName.id)).toEqual(byName);
    expect(byName).toMatchObject({ region: 'Lab-West', nextRun: new Date(NOW.getTime() + DAY_MS), healthy: first!.healthy });
    expect(await findClusterByName(db, first!.name, organizationId + 1)).toBeUndefined();
  });

  it('keeps and takes off pending version gates, and loads what the gates read per cluster', async () => {
    const { db, fleet, organizationId, same, onBoth } = await seeded(open, 2);
    const [a, b, c] = fleet.clusters.map((x) => x.name);
    const gate = (id: string) => ({ id, minor: '4.14', description: `gate ${id}`, documentationUrl: null });
    const inhibitors = {
      operators: [{ name: 'old-operator', namespace: 'ops', maxOpenShiftVersion: '4.13' }],
      removedApis: [],
    };
    await onBoth((d) => updateCluster(d, a!, { pendingVersionGates: [gate('g1'), gate('g2')], healthIssues: ['etcd degraded'] }));
    await onBoth((d) => updateCluster(d, b!, { inhibitors, labels: { env: 'lab' }, fleetplanLabels: { env: 'prod', tier: 'gold' } }));
    await onBoth((d) => updateCluster(d, c!, { pendingVersionGates: [gate('g3')], upgradeState: 'gone' }));

    expect(await same((d) => listPendingVersionGates(d, organizationId))).toEqual([{ cluster: a, gates: [gate('g1'), gate('g2')] }]);
    expect(new Map(await same(async (d) => [...(await loadPendingVersionGates(d, organizationId))].sort()))).toEqual(
      new Map([
        [a, [gate('g1'), gate('g2')]],
        [c, [gate('g3')]],
      ]),
    );
    const healthIssues = await loadHealthIssues(db, organizationId);
    expect(healthIssues.get(a!)).toEqual(['etcd degraded']);
    expect([...healthIssues.keys()].sort()).toEqual(
      [a!, ...fleet.clusters.filter((x) => x.name !== a && x.healthIssues.length > 0).map((x) => x.name)].sort(),
    );
    expect([...(await loadInhibitors(db, organizationId))]).toEqual([[b, { operators: inhibitors.operators, removedApis: [] }]]);
    const labels = await loadClusterLabels(db, organizationId);
    expect(labels.size).toBe(fleet.clusters.length);
    expect(labels.get(b!)).toEqual({ env: 'prod', tier: 'gold' });

    const clusterA = (await findClusterByName(db, a!))!;
    expect(await removePendingVersionGate(db, clusterA.id, 'g1')).toBe(true);
    expect(await removePendingVersionGate(db, clusterA.id, 'g1')).toBe(false);
    expect(await removePendingVersionGate(db, 999_999, 'g2')).toBe(false);
    expect((await findClusterById(db, clusterA.id))!.pendingVersionGates).toEqual([gate('g2')]);
  });

  it('counts sectors by membership in SQL as SQLite does', async () => {
    const { db, fleet, organizationId, same, onBoth } = await seeded(open, 6);
    const managed = fleet.clusters.filter((c) => c.upgradePolicy);
    await onBoth((d) =>
      updateCluster(d, managed[0]!.name, { lastDecisionAction: 'skip', lastDecisionReason: 'SOAK_DAYS', upgradeState: 'scheduled' }),
    );
    // by the sector each policy names, then by a membership the engine computed (every managed cluster in 'all')
    const everyone = Object.fromEntries(managed.map((c) => [c.name, 'all']));
    for (const membership of [null, everyone]) {
      const bySector = await same((d) => countBySector(d, organizationId, membership));
      expect(bySector.reduce((n, s) => n + s.clusters, 0)).toBe(
        membership ? managed.length : managed.filter((c) => c.upgradePolicy!.conditions.sector).length,
      );
      for (const s of bySector) {
        expect(typeof s.clusters).toBe('number');
        expect(s.healthy).toBeLessThanOrEqual(s.clusters);
      }
      const byVersion = await same((d) => countBySectorWorkloadVersion(d, organizationId, membership));
      expect(byVersion.reduce((n, s) => n + s.clusters, 0)).toBe(
        managed.filter((c) => membership || c.upgradePolicy!.conditions.sector).reduce((n, c) => n + c.upgradePolicy!.workloads.length, 0),
      );
      const thresholds = await same((d) => countSoakThresholdsBySector(d, organizationId, membership));
      expect(thresholds.every((t) => t.soakDays === null || typeof t.soakDays === 'number')).toBe(true);
      const decisions = await same((d) => countDecisionsBySector(d, organizationId, membership));
      expect(decisions).toContainEqual(expect.objectContaining({ action: 'skip', reason: 'SOAK_DAYS' }));
    }
    expect(await same((d) => listSoakDays(d, organizationId))).toHaveLength(fleet.versionSoak.length);
    expect(await countBySector(db, organizationId, {})).toEqual([]);
  });

  it('accumulates soak in bulk, samples it once a day, and answers the Soak page as SQLite does', async () => {
    const { db, fleet, organizationId, same, onBoth } = await seeded(open, 2);
    const versions = Array.from({ length: 200 }, (_, i) => `4.99.${i}`);
    const versionData = (days: number): VersionData => ({
      versions: Object.fromEntries(
        versions.map((v, i) => [
          v,
          { workloads: { alpha: { soakDays: days + i / 4, reporting: ['c1', 'c2'] }, beta: { soakDays: days, reporting: [] } } },
        ]),
      ),
    });
    await onBoth((d) => saveVersionData(d, organizationId, versionData(1), NOW));
    const later = new Date(NOW.getTime() + 3_600_000);
    await onBoth((d) => saveVersionData(d, organizationId, versionData(2), later));
    const totals = await same((d) => listSoakTotals(d, organizationId));
    expect(totals).toHaveLength(fleet.versionSoak.length + versions.length * 2);
    expect(totals).toContainEqual({ version: '4.99.8', workload: 'alpha', soakDays: 4 });
    expect(await findSoakTotal(db, organizationId, '4.99.8', 'alpha')).toEqual({ soakDays: 4, reportingCount: 2 });
    expect(await findSoakTotal(db, organizationId, '4.99.8', 'beta')).toEqual({ soakDays: 2, reportingCount: 0 });
    expect(await findSoakTotal(db, organizationId, '4.99.8', 'gamma')).toBeUndefined();
    expect(await readSoakCheckIn(db, organizationId)).toEqual(later);
    // first seen when first stored; the later save only updates the soak
    const { versionSoak } = tablesOf(db);
    const stored = await db.select().from(versionSoak).where(eq(versionSoak.version, '4.99.0'));
    expect(stored.map((s) => s.firstSeenAt)).toEqual([NOW, NOW]);

    const sampledAt = new Date(fleet.soakSamples.reduce((t, s) => Math.max(t, s.at.getTime()), 0) + DAY_MS);
    expect(await maybeSampleSoak(db, organizationId, versionData(2), sampledAt)).toBe(true);
    expect(await maybeSampleSoak(db, organizationId, versionData(3), new Date(sampledAt.getTime() + DAY_MS - 1))).toBe(false);
    expect(await maybeSampleSoak(db, organizationId, versionData(3), new Date(sampledAt.getTime() + DAY_MS))).toBe(true);
    expect(await listSoakSamples(db, organizationId, '4.99.4', 'alpha', sampledAt)).toEqual([
      { at: sampledAt, soakDays: 3, reportingCount: 2 },
      { at: new Date(sampledAt.getTime() + DAY_MS), soakDays: 4, reportingCount: 2 },
    ]);
    expect(await listSoakSamples(db, organizationId, '4.99.4', 'alpha', new Date(sampledAt.getTime() + 1))).toHaveLength(1);

    const offers = await same((d) => countOffersByThreshold(d, organizationId));
    expect(offers.length).toBeGreaterThan(0);
    const offer = offers[0]!;
    expect(await same((d) => countOffersByThreshold(d, organizationId, { version: offer.version, workload: offer.workload }))).toEqual(
      offers.filter((o) => o.version === offer.version && o.workload === offer.workload),
    );
    const running = fleet.clusters.find((c) => c.healthy && c.upgradePolicy)!;
    const workload = running.upgradePolicy!.workloads[0]!;
    expect(await same((d) => countHealthyRunning(d, organizationId, running.version, workload))).toBe(
      fleet.clusters.filter((c) => c.healthy && c.version === running.version && c.upgradePolicy?.workloads.includes(workload)).length,
    );
  });

  it("moves the revisions the triggers keep, the data version with any write, and reads none inside a transaction's writes", async () => {
    const { db, fleet, organizationId } = await seeded(open, 1);
    const [a, b] = fleet.clusters.map((c) => c.name);
    const clusterA = (await findClusterByName(db, a!))!;
    const rows0 = (await readPlanRowRevisions(db))!;
    const structure0 = (await readPlanStructureRevision(db))!;
    expect(rows0.structure).toBe(structure0);
    const tokens0 = (await readForecastInputsRevision(db, organizationId))!;
    const data0 = await readDataVersion(db);
    expect(data0).not.toBeNull();
    expect(await readDataVersion(db)).toBe(data0);

    // a planned column of one cluster: the structure and the cluster rows once each, the row stamped
    await setFleetplanLabels(db, clusterA.id, { tier: 'gold' });
    const rows1 = (await readPlanRowRevisions(db))!;
    expect(rows1).toEqual({ structure: rows0.structure + 1, clusterRows: rows0.clusterRows + 1 });
    expect(await readPlanStructureRevision(db)).toBe(structure0 + 1);
    expect((await findClusterById(db, clusterA.id))!.changedAtRevision).toBe(rows1.clusterRows);
    const changed = await loadChangedPlanClusters(db, organizationId, rows0.clusterRows);
    expect(changed.map((c) => [c.cluster.name, c.cluster.labels, c.gone])).toEqual([[a, { tier: 'gold' }, false]]);
    const data1 = await readDataVersion(db);
    expect(data1).not.toBe(data0);
    const tokens1 = (await readForecastInputsRevision(db, organizationId))!;
    expect(tokens1.configuration).not.toBe(tokens0.configuration);

    // what the fleet reports moves the observation only; a column no plan reads moves neither revision
    await updateCluster(db, b!, { version: '4.99.0' });
    const tokens2 = (await readForecastInputsRevision(db, organizationId))!;
    expect(tokens2.configuration).toBe(tokens1.configuration);
    expect(tokens2.observation).not.toBe(tokens1.observation);
    const rows2 = (await readPlanRowRevisions(db))!;
    await updateCluster(db, b!, { lastDecisionMessage: 'waiting' });
    expect(await readPlanRowRevisions(db)).toEqual(rows2);
    expect(await readDataVersion(db)).not.toBe(data1);

    // a write to another planned table moves the structure, not the cluster rows
    const { sectors } = tablesOf(db);
    await db.insert(sectors).values({ organizationId, name: 'extra', position: 99, dependencies: [] });
    expect(await readPlanRowRevisions(db)).toEqual({ structure: rows2.structure + 1, clusterRows: rows2.clusterRows });

    // inside a unit of work that wrote, nothing read may be kept
    await withTransaction(db, async (tx) => {
      await setFleetplanLabels(tx, clusterA.id, { tier: 'silver' });
      expect(await readDataVersion(tx)).toBeNull();
      expect(await readPlanStructureRevision(tx)).toBeNull();
      expect(await readPlanRowRevisions(tx)).toBeNull();
      expect(await readForecastInputsRevision(tx, organizationId)).toBeNull();
    });
    expect(await readDataVersion(db)).not.toBeNull();
  });

  it("moves each plan revision on the same writes as SQLite's triggers", async () => {
    const { db, reference, fleet, organizationId } = await seeded(open, 1);
    const revisions = async (d: Db) => {
      const { planRevisions } = tablesOf(d);
      const rows = await d.select().from(planRevisions);
      return Object.fromEntries(rows.map((r) => [r.scope, r.revision]));
    };
    const movedBy = async (write: (d: Db) => Promise<unknown>) => {
      const moves: Record<string, number>[] = [];
      for (const d of [db, reference]) {
        const before = await revisions(d);
        await write(d);
        const after = await revisions(d);
        moves.push(Object.fromEntries(Object.keys(after).map((scope) => [scope, after[scope]! - (before[scope] ?? 0)])));
      }
      expect(moves[0]).toEqual(moves[1]);
      return moves[0]!;
    };
    const cluster = fleet.clusters[0]!.name;
    const clusterWrites: Partial<Tables['clusters']['$inferInsert']>[] = [
      { version: '4.99.0' },
      { channel: 'fast-4.99' },
      { availableUpgrades: ['4.99.1'] },
      { healthy: false },
      { healthIssues: ['etcd degraded'] },
      { upgradePolicy: { workloads: ['x'], schedule: '* * * * *', conditions: {} } },
      { currentUpgrade: { version: '4.99.1', nextRun: '2024-07-11T00:00:00Z', state: 'scheduled' } },
      { upgradeState: 'gone' },
      { pendingVersionGates: [{ id: 'g', minor: '4.14', description: 'd', documentationUrl: null }] },
      { inhibitors: { operators: [], removedApis: [] } },
      { labels: { env: 'lab' } },
      { fleetplanLabels: { tier: 'gold' } },
      { sector: 'elsewhere' },
      { position: 999 },
      { lastDecisionMessage: 'not planned', nodeCount: 7, missedSnapshots: 2 },
      { name: 'renamed' },
    ];
    let current = cluster;
    const moved: Record<string, number>[] = [];
    for (const set of clusterWrites) {
      moved.push(await movedBy((d) => updateCluster(d, current, set)));
      current = set.name ?? current;
    }
    // the planned columns move the structure; the cluster's own ones the cluster rows too; none, a column no plan reads
    expect(moved[0]).toEqual({ structure: 1, configuration: 0, cluster_rows: 1 });
    expect(moved[11]).toEqual({ structure: 1, configuration: 1, cluster_rows: 1 });
    expect(moved[12]).toEqual({ structure: 0, configuration: 1, cluster_rows: 0 });
    expect(moved[14]).toEqual({ structure: 0, configuration: 0, cluster_rows: 0 });
    expect(moved[15]).toEqual({ structure: 1, configuration: 1, cluster_rows: 0 });

    const organizationWrite = (set: Partial<Tables['organizations']['$inferInsert']>) => (d: Db) =>
      d
        .update(tablesOf(d).organizations)
        .set(set)
        .where(eq(tablesOf(d).organizations.id, organizationId));
    expect(await movedBy(organizationWrite({ frozen: true }))).toEqual({ structure: 0, configuration: 1, cluster_rows: 0 });
    expect(await movedBy(organizationWrite({ targetVersion: '4.16.*' }))).toEqual({ structure: 1, configuration: 1, cluster_rows: 0 });
    expect(await movedBy(organizationWrite({ soakCheckIn: NOW }))).toEqual({ structure: 0, configuration: 0, cluster_rows: 0 });
    expect(await movedBy(async (d) => d.delete(tablesOf(d).clusters).where(eq(tablesOf(d).clusters.name, 'renamed')))).toEqual({
      structure: 1,
      configuration: 1,
      cluster_rows: 0,
    });
  });

  it('wipes the fleet data and answers the readiness probe', async () => {
    const { db } = await seeded(open, 1);
    await pingDatabase(db);
    await wipeFleetData(db);
    expect(await isDatabaseEmpty(db)).toBe(true);
    expect(await countDatabaseContents(db)).toMatchObject({ organizations: 0, clusters: 0 });
  });
});
