// The stored fleet's evaluation is kept across writes that leave its structure alone (a tick's
// soak figures, a row written again with the same values, an exclusion): only the soak figures
// and the gates are read again, and the result is what a cold load would give. A change of a
// cluster, a sector, a blocked version or the organization, from this connection or another
// process, loads it whole; a change of some clusters' own rows reads only those
// (stored-fleet-changed-clusters.test.ts).
import { eq, sql } from 'drizzle-orm';
import { expect, it } from 'vitest';
import type { Db } from '@/db/open-database';
import { tablesOf } from '@/server/repositories/dialect';
import { insertExclusion } from '@/server/repositories/exclusion-repository';
import { findFirstOrganization as findOrganization } from '@/server/repositories/organization-repository';
import { saveVersionData } from '@/server/repositories/soak-repository';
import { seedDemo } from '@/server/services/demo-seed-service';
import {
  evaluateStoredFleet,
  storedFleetChangedClusterLoads,
  storedFleetLoadCounts,
  type StoredFleetEvaluation,
} from '@/server/services/stored-fleet-evaluation';
import { anotherConnection, onBothDatabases } from '@/tests/support/both-databases';

const NOW = new Date('2024-07-10T08:00:00Z');
const MINUTE = 60_000;

const seedDemoFleet = (db: Db) => seedDemo(db, NOW);
const at = (minutes: number) => new Date(NOW.getTime() + minutes * MINUTE);

async function evaluate(db: Db, when: Date): Promise<StoredFleetEvaluation & { ok: true }> {
  const result = await evaluateStoredFleet(db, (await findOrganization(db))!, when);
  if (!result.ok) throw new Error(`the stored fleet is invalid: ${JSON.stringify(result.problems)}`);
  return result;
}

/** what a process with no cache would see: a fresh connection to the same database */
async function cold(db: Db, when: Date) {
  const e = await evaluate(anotherConnection(db), when);
  return { input: e.input, decisions: e.evaluation.decisions };
}

const loads = () => storedFleetLoadCounts();

onBothDatabases('the stored fleet evaluation across writes', (_open, _kind, openTwice) => {
  /** the demo fleet (seeded once: each test has a copy), and a second connection to its database (another process) */
  async function demoFleet(): Promise<{ db: Db; other: Db }> {
    const [db, other] = await openTwice(seedDemoFleet);
    return { db, other };
  }

  it("keeps the validated clusters through a tick's soak write and rows written again unchanged, and agrees with a cold load", async () => {
    const { db } = await demoFleet();
    await evaluate(db, at(1));
    const before = loads();
    // what a tick writes when the fleet did not move: accumulated soak and its check-in, the
    // clusters' rows with the same values, its own bookkeeping
    const input = (await evaluate(db, at(1))).input;
    const later = { ...input.versionData, versions: structuredClone(input.versionData.versions) };
    for (const entry of Object.values(later.versions)) for (const w of Object.values(entry.workloads)) w.soakDays += 0.5;
    await saveVersionData(db, (await findOrganization(db))!.id, later, at(2));
    const { clusters } = tablesOf(db);
    await db.update(clusters).set({ version: sql`${clusters.version}`, healthy: sql`${clusters.healthy}`, observedAt: at(2) });
    const after = await evaluate(db, at(3));
    expect(loads()).toEqual({ full: before.full, soakAndGates: before.soakAndGates + 1 });
    expect(after.input.versionData).not.toEqual(input.versionData);
    expect({ input: after.input, decisions: after.evaluation.decisions }).toEqual(await cold(db, at(3)));
  });

  it('sees an exclusion at once without loading the clusters again', async () => {
    const { db } = await demoFleet();
    const first = await evaluate(db, at(1));
    // a cluster the engine would upgrade now: the exclusion must hold it
    const cluster = first.evaluation.decisions.find((d) => d.action === 'upgrade')!.cluster;
    const before = loads();
    await insertExclusion(db, {
      organizationId: (await findOrganization(db))!.id,
      scope: 'cluster',
      subject: cluster,
      startsAt: at(0),
      endsAt: at(600),
      reason: 'change freeze for this one',
      createdBy: 'alice',
      createdAt: at(1),
    });
    const after = await evaluate(db, at(2));
    expect(loads().full).toBe(before.full);
    expect(after.evaluation.decisions).toEqual((await cold(db, at(2))).decisions);
    const held = after.evaluation.decisions.find((d) => d.cluster === cluster)!;
    expect(held.action).not.toBe('upgrade');
    expect(held.message).toContain('change freeze for this one');
  });

  it('reads the changed cluster again when one changes, here or in another process, and the whole fleet when a blocked version does', async () => {
    const { db, other } = await demoFleet();
    const first = await evaluate(db, at(1));
    const name = first.input.clusters[0]!.name;
    const t = tablesOf(db);
    {
      const before = { loads: loads(), patches: storedFleetChangedClusterLoads() };
      await other.update(t.clusters).set({ availableUpgrades: [] }).where(eq(t.clusters.name, name));
      const after = await evaluate(db, at(2));
      // only that row was read and put in place (migration 0022's revision)
      expect(loads().full).toBe(before.loads.full);
      expect(storedFleetChangedClusterLoads()).toBe(before.patches + 1);
      expect(after.input.clusters.find((c) => c.name === name)!.availableUpgrades).toEqual([]);
      expect({ input: after.input, decisions: after.evaluation.decisions }).toEqual(await cold(db, at(2)));
    }
    const before = loads();
    for (const { id } of await db.select({ id: t.organizations.id }).from(t.organizations)) {
      await db.insert(t.blockedVersions).values({ organizationId: id, pattern: '^4\\.99\\..*', reason: 'test', createdAt: new Date(0) });
    }
    const blocked = await evaluate(db, at(3));
    expect(loads().full).toBe(before.full + 1);
    expect(blocked.input.organization.blockedVersions).toContain('^4\\.99\\..*');
    expect({ input: blocked.input, decisions: blocked.evaluation.decisions }).toEqual(await cold(db, at(3)));
  });
});
