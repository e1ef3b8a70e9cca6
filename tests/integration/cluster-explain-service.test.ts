// The cluster "why not" explains what the scheduler does: it runs evaluateFleet with the stored
// gates. It used to run the bare engine, so it promised upgrades a gate stops and showed mutexes
// as held by clusters the gate had stopped.
import { organizationScope } from '@/server/services/organization-scope';
import { expect, it } from 'vitest';
import type { Db } from '@/db/open-database';
import { tablesOf } from '@/server/repositories/dialect';
import { insertTestFleet } from '@/server/scheduler/test-fleet';
import { createClusterExplainService } from '@/server/services/cluster-explain-service';
import { onBothDatabases } from '@/tests/support/both-databases';

const NOW = new Date('2021-08-30T18:00:00Z');

async function setup(db: Db, opts: { exclude?: string; sick?: boolean; frozen?: boolean }) {
  const { organizationId } = await insertTestFleet(
    db,
    {
      frozen: opts.frozen ?? false,
      clusters: [
        {
          name: 'a',
          version: '4.13.1',
          releases: ['4.13.2'],
          soakDays: 0,
          mutexes: ['m'],
          ...(opts.sick ? { healthIssues: ['ClusterOperator dns Degraded'] } : {}),
        },
        { name: 'b', version: '4.13.1', releases: ['4.13.2'], soakDays: 0, mutexes: ['m'] },
      ],
    },
    NOW,
  );
  if (opts.exclude)
    await db.insert(tablesOf(db).maintenanceExclusions).values({
      organizationId,
      scope: 'cluster',
      subject: opts.exclude,
      startsAt: new Date(NOW.getTime() - 3_600_000),
      endsAt: new Date(NOW.getTime() + 86_400_000),
      reason: 'customer go-live',
      createdBy: 'test',
      createdAt: NOW,
    });
  return createClusterExplainService(db, () => NOW, organizationScope(db));
}

onBothDatabases('cluster explain service', (open) => {
  it('an exclusion on a: a is EXCLUDED by its exclusion gate, b gets the mutex and the upgrade', async () => {
    const service = await setup(await open(), { exclude: 'a' });
    const a = (await service.explain('a')).explanation!;
    expect(a.decision).toMatchObject({ action: 'skip', reason: 'EXCLUDED' });
    expect(a.gates.find((g) => g.gate === 'exclusion')).toMatchObject({ pass: false });
    expect(a.gates.find((g) => g.gate === 'exclusion')!.message).toContain('customer go-live');
    const b = (await service.explain('b')).explanation!;
    expect(b.decision).toMatchObject({ action: 'upgrade', version: '4.13.2' });
    expect(b.checks.find((k) => k.rule === 'mutex')?.pass).toBe(true);
  });

  it('the health gate: an unhealthy cluster is UNHEALTHY, not promised an upgrade', async () => {
    const a = (await (await setup(await open(), { sick: true })).explain('a')).explanation!;
    expect(a.decision).toMatchObject({ action: 'skip', reason: 'UNHEALTHY' });
    expect(a.gates.find((g) => g.gate === 'health')).toMatchObject({ pass: false, message: 'health gate: ClusterOperator dns Degraded' });
  });

  it('a freeze: FROZEN with the freeze gate failing', async () => {
    const a = (await (await setup(await open(), { frozen: true })).explain('a')).explanation!;
    expect(a.decision).toMatchObject({ action: 'skip', reason: 'FROZEN' });
    expect(a.gates.filter((g) => !g.pass).map((g) => g.gate)).toEqual(['freeze']);
  });

  it('without gates the explanation is the engine’s: a upgrades, b waits for the mutex, every gate passes', async () => {
    const service = await setup(await open(), {});
    expect((await service.explain('a')).explanation!.decision).toMatchObject({ action: 'upgrade' });
    expect((await service.explain('a')).explanation!.gates.every((g) => g.pass)).toBe(true);
    expect((await service.explain('b')).explanation!.decision).toMatchObject({ action: 'skip', reason: 'MUTEX_LOCKED' });
  });
});
