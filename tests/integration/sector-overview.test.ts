// The sector overview reads the engine's rules (evaluateFleet). Its own copy of sector gating
// looked only at the organization's blocked versions, so a version every cluster of a sector
// blocks for itself showed as the sector's next version and the dependency as holding it back.
import { organizationScope } from '@/server/services/organization-scope';
import { expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { tablesOf } from '@/server/repositories/dialect';
import { insertTestFleet } from '@/server/scheduler/test-fleet';
import { createSectorService } from '@/server/services/sector-service';
import { onBothDatabases } from '@/tests/support/both-databases';

const NOW = new Date('2021-08-30T18:00:00Z');

onBothDatabases('sector overview', (open) => {
  it('skips versions the sector’s clusters block for themselves, as the engine does', async () => {
    const db = await open();
    const t = tablesOf(db);
    await insertTestFleet(
      db,
      {
        sectors: [{ name: 'dev' }, { name: 'prod', dependencies: ['dev'] }],
        clusters: [
          { name: 'dev-1', version: '4.13.2', releases: ['4.13.3'], sector: 'dev', soakDays: 0 },
          { name: 'prod-1', version: '4.13.1', releases: ['4.13.2', '4.13.3'], sector: 'prod', soakDays: 0 },
        ],
      },
      NOW,
    );
    // prod-1 blocks 4.13.3 in its own policy
    const [row] = await db.select().from(t.clusters).where(eq(t.clusters.name, 'prod-1'));
    const policy = row!.upgradePolicy as { conditions: Record<string, unknown> };
    await db
      .update(t.clusters)
      .set({ upgradePolicy: { ...policy, conditions: { ...policy.conditions, blockedVersions: ['^4\\.13\\.3$'] } } })
      .where(eq(t.clusters.id, row!.id));

    const prod = (await createSectorService(db, () => NOW, organizationScope(db)).overview()).sectors.find((s) => s.name === 'prod')!;
    expect(prod.workloads[0]).toMatchObject({ workload: 'wl', nextVersion: '4.13.2', waitsFor: null });
    expect(prod.waits).toEqual([]);
  });
});
