// Builds small fleets straight into a database, with a matching fake provider: used by the
// scheduler's tests, the crash test's child process and the tick benchmark.
import type { Db } from '@/db/open-database';
import * as t from '@/db/schema';
import type { FakeCluster } from '@/server/integrations/providers/fake-provider';

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

export function insertTestFleet(db: Db, fleet: TestFleet, now: Date): { organizationId: number; fakeClusters: FakeCluster[] } {
  return db.transaction((tx) => {
    const org = tx
      .insert(t.organizations)
      .values({
        name: fleet.organization ?? 'test-org',
        updatedAt: now,
        frozen: fleet.frozen ?? false,
        ...(fleet.targetVersion ? { targetVersion: fleet.targetVersion } : {}),
      })
      .returning({ id: t.organizations.id })
      .get();
    (fleet.sectors ?? []).forEach((s, position) => {
      tx.insert(t.sectors)
        .values({
          organizationId: org.id,
          name: s.name,
          position,
          dependencies: s.dependencies ?? [],
          maxParallelUpgrades: s.maxParallelUpgrades ?? null,
        })
        .run();
    });
    (fleet.graphs ?? []).forEach((document, i) =>
      tx
        .insert(t.updateGraphs)
        .values({
          name: `test-graph-${i}`,
          channel: null,
          architecture: 'amd64',
          capturedAt: now,
          source: 'test fleet',
          nodeCount: 0,
          edgeCount: 0,
          document,
          importedAt: now,
        })
        .run(),
    );
    for (const pattern of fleet.blocked ?? [])
      tx.insert(t.blockedVersions).values({ organizationId: org.id, pattern, createdAt: now }).run();
    const fakeClusters: FakeCluster[] = [];
    // a provider's cluster ids are unique across organizations
    const externalId = (name: string) => (fleet.organization ? `ext-${fleet.organization}-${name}` : `ext-${name}`);
    fleet.clusters.forEach((c, position) => {
      const available = c.releases.filter((v) => compare(v, c.version) > 0);
      const policy =
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
            };
      const row = tx
        .insert(t.clusters)
        .values({
          organizationId: org.id,
          name: c.name,
          externalId: externalId(c.name),
          provider: 'fake',
          position,
          version: c.version,
          channel: c.channel ?? 'stable-4.13',
          availableUpgrades: available,
          healthy: (c.healthIssues ?? []).length === 0,
          healthIssues: c.healthIssues ?? [],
          upgradePolicy: policy,
          sector: c.sector ?? null,
          observedAt: now,
        })
        .returning({ id: t.clusters.id })
        .get();
      for (const w of policy?.workloads ?? []) tx.insert(t.clusterWorkloads).values({ clusterId: row.id, workload: w }).run();
      fakeClusters.push({
        externalId: externalId(c.name),
        name: c.name,
        version: c.version,
        channel: c.channel ?? 'stable-4.13',
        releases: c.releases,
        healthIssues: c.healthIssues,
      });
    });
    return { organizationId: org.id, fakeClusters };
  });
}

function compare(a: string, b: string): number {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < 3; i++) if ((pa[i] ?? 0) !== (pb[i] ?? 0)) return (pa[i] ?? 0) - (pb[i] ?? 0);
  return 0;
}
