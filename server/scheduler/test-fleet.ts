// Builds small fleets straight into a database (SQLite or PostgreSQL), with a matching fake
// provider: used by the scheduler's tests, the crash test's child process and the tick benchmark.
import { asc, eq } from 'drizzle-orm';
import type { Db } from '@/db/open-database';
import type { FakeCluster } from '@/server/integrations/providers/fake-provider';
import { tablesOf } from '@/server/repositories/dialect';
import { withTransaction } from '@/server/repositories/transaction';
import { chunksOf } from '@/lib/chunks-of';

export interface TestCluster {
  name: string;
  version: string;
  releases: string[];
  workloads?: string[];
  schedule?: string;
  soakDays?: number;
  mutexes?: string[];
  sector?: string;
  healthIssues?: string[];
  managed?: boolean;
  /** the policy's `lifecycle` value, as written */
  lifecycle?: Record<string, unknown>;
  /** the policy's own targetVersion (below the organization's, it stops the cluster first) */
  targetVersion?: string;
  /** the update channel (default stable-4.13) */
  channel?: string;
}

export interface TestFleet {
  sectors?: { name: string; dependencies?: string[]; maxParallelUpgrades?: string }[];
  blocked?: string[];
  clusters: TestCluster[];
  frozen?: boolean;
  /** the organization's name (default `test-org`) */
  organization?: string;
  /** the organization's targetVersion (every cluster's target) */
  targetVersion?: string;
  /** update graph documents stored for the routes (Cincinnati JSON text) */
  graphs?: string[];
}

/** rows per insert statement: far below either database's limit on bound parameters (SQLite 32,766; PostgreSQL 65,535) */
const ROWS_PER_INSERT = 500;

/**
 * Writes `fleet` into `db` (SQLite or PostgreSQL) in one unit of work. Set-based, a few statements
 * per table rather than one per row: the tick benchmark seeds 10,000 clusters through it.
 */
export async function insertTestFleet(
  db: Db,
  fleet: TestFleet,
  now: Date,
): Promise<{ organizationId: number; fakeClusters: FakeCluster[] }> {
  const t = tablesOf(db);
  // a provider's cluster ids are unique across organizations
  const externalId = (name: string) => (fleet.organization ? `ext-${fleet.organization}-${name}` : `ext-${name}`);
  const policies = fleet.clusters.map((c) =>
    c.managed === false
      ? null
      : {
          workloads: c.workloads ?? ['wl'],
          schedule: c.schedule ?? '* * * * *',
          conditions: {
            ...(c.soakDays !== undefined ? { soakDays: c.soakDays } : {}),
            ...(c.mutexes ? { mutexes: c.mutexes } : {}),
            ...(c.sector ? { sector: c.sector } : {}),
            ...(c.targetVersion ? { targetVersion: c.targetVersion } : {}),
          },
          ...(c.lifecycle ? { lifecycle: c.lifecycle } : {}),
        },
  );
  const organizationId = await withTransaction(db, async (tx) => {
    const [org] = await tx
      .insert(t.organizations)
      .values({
        name: fleet.organization ?? 'test-org',
        updatedAt: now,
        frozen: fleet.frozen ?? false,
        ...(fleet.targetVersion ? { targetVersion: fleet.targetVersion } : {}),
      })
      .returning({ id: t.organizations.id });
    const orgId = org!.id;
    const sectors = fleet.sectors ?? [];
    if (sectors.length > 0) {
      await tx.insert(t.sectors).values(
        sectors.map((s, position) => ({
          organizationId: orgId,
          name: s.name,
          position,
          dependencies: s.dependencies ?? [],
          maxParallelUpgrades: s.maxParallelUpgrades ?? null,
        })),
      );
    }
    const graphs = fleet.graphs ?? [];
    if (graphs.length > 0) {
      await tx.insert(t.updateGraphs).values(
        graphs.map((document, i) => ({
          name: `test-graph-${i}`,
          channel: null,
          architecture: 'amd64',
          capturedAt: now,
          source: 'test fleet',
          nodeCount: 0,
          edgeCount: 0,
          document,
          importedAt: now,
        })),
      );
    }
    const blocked = fleet.blocked ?? [];
    if (blocked.length > 0) {
      await tx.insert(t.blockedVersions).values(blocked.map((pattern) => ({ organizationId: orgId, pattern, createdAt: now })));
    }
    const rows = fleet.clusters.map((c, position) => ({
      organizationId: orgId,
      name: c.name,
      externalId: externalId(c.name),
      provider: 'fake' as const,
      position,
      version: c.version,
      channel: c.channel ?? 'stable-4.13',
      availableUpgrades: c.releases.filter((v) => compare(v, c.version) > 0),
      healthy: (c.healthIssues ?? []).length === 0,
      healthIssues: c.healthIssues ?? [],
      upgradePolicy: policies[position] ?? null,
      sector: c.sector ?? null,
      observedAt: now,
    }));
    const idOf = new Map<string, number>();
    for (const chunk of chunksOf(rows, ROWS_PER_INSERT)) {
      const inserted = await tx.insert(t.clusters).values(chunk).returning({ id: t.clusters.id, name: t.clusters.name });
      for (const r of inserted) idOf.set(r.name, r.id);
    }
    const workloads = fleet.clusters.flatMap((c, position) =>
      (policies[position]?.workloads ?? []).map((workload) => ({ clusterId: idOf.get(c.name)!, workload })),
    );
    for (const chunk of chunksOf(workloads, ROWS_PER_INSERT)) await tx.insert(t.clusterWorkloads).values(chunk);
    return orgId;
  });
  const fakeClusters: FakeCluster[] = fleet.clusters.map((c) => ({
    externalId: externalId(c.name),
    name: c.name,
    version: c.version,
    channel: c.channel ?? 'stable-4.13',
    releases: c.releases,
    healthIssues: c.healthIssues,
  }));
  return { organizationId, fakeClusters };
}

/**
 * Reads, for tests, of what a fleet and its ticks wrote, on either database (the awaited query
 * builder): every list in insertion order, so both give the same order.
 */
export function fleetRows(db: Db) {
  const t = tablesOf(db);
  const attempts = () => db.select().from(t.upgradeLifecycles).orderBy(asc(t.upgradeLifecycles.id));
  return {
    /** the handle's tables, for the writes a test makes itself */
    t,
    organizations: () => db.select().from(t.organizations).orderBy(asc(t.organizations.id)),
    clusters: () => db.select().from(t.clusters).orderBy(asc(t.clusters.id)),
    cluster: async (name: string) => {
      const [row] = await db.select().from(t.clusters).where(eq(t.clusters.name, name));
      if (!row) throw new Error(`no cluster ${name}`);
      return row;
    },
    decisions: () => db.select().from(t.decisions).orderBy(asc(t.decisions.id)),
    attempts,
    /** the first attempt (the only one, in most tests) */
    attempt: async () => (await attempts())[0],
    transitions: () => db.select().from(t.upgradeLifecycleTransitions).orderBy(asc(t.upgradeLifecycleTransitions.id)),
    intents: () => db.select().from(t.actionIntents).orderBy(asc(t.actionIntents.id)),
    ticks: () => db.select().from(t.schedulerTicks).orderBy(asc(t.schedulerTicks.id)),
    soak: () => db.select().from(t.versionSoak).orderBy(asc(t.versionSoak.version), asc(t.versionSoak.workload)),
    soakSamples: () => db.select().from(t.soakSamples),
    history: () => db.select().from(t.clusterUpgrades).orderBy(asc(t.clusterUpgrades.id)),
    webhookDeliveries: () => db.select().from(t.webhookDeliveries).orderBy(asc(t.webhookDeliveries.id)),
  };
}

function compare(a: string, b: string): number {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < 3; i++) if ((pa[i] ?? 0) !== (pb[i] ?? 0)) return (pa[i] ?? 0) - (pb[i] ?? 0);
  return 0;
}
