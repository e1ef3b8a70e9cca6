// The remaining-soak gauge reads the engine's own verdicts (evaluateFleet): it used to compare the
// soak stored at the last tick with the threshold, so a version the engine already found soaked
// (soak accumulated up to now) still showed days remaining.
import { describe, expect, it, vi } from 'vitest';
import { openDatabase, type Db } from '@/db/open-database';
import { evaluateFleet, NO_GATES } from '@/server/domain/evaluation/evaluate-fleet';
import { collectFleetMetrics } from '@/server/metrics/collect-fleet-metrics';
import { getMetrics } from '@/server/metrics/registry';
import { saveVersionData } from '@/server/repositories/soak-repository';
import { insertTestFleet } from '@/server/scheduler/test-fleet';
import { createPolicyService } from '@/server/services/policies/policy-service';
import { evaluateStoredFleet } from '@/server/services/stored-fleet-evaluation';

const NOW = new Date('2021-08-30T18:00:00Z');
const DAY = 86_400_000;

async function remaining(): Promise<Record<string, number>> {
  const values = (await getMetrics().remainingSoak.get()).values;
  return Object.fromEntries(values.map((v) => [`${v.labels.cluster} ${v.labels.soaking_version}`, v.value]));
}

async function gauges(): Promise<{ frozen: number[]; health: Record<string, number> }> {
  const m = getMetrics();
  return {
    frozen: (await m.frozen.get()).values.map((v) => v.value),
    health: Object.fromEntries((await m.clusterHealth.get()).values.map((v) => [String(v.labels.cluster), v.value])),
  };
}

function smallFleet(db: Db, names: string[]): void {
  insertTestFleet(db, { clusters: names.map((name) => ({ name, version: '4.13.1', releases: ['4.13.2'], soakDays: 1 })) }, NOW);
}

describe('fleet metrics', () => {
  it('remaining soak is 0 when the engine finds the version soaked, and counts blocked versions as -4', async () => {
    const db = openDatabase(':memory:');
    const { organizationId } = insertTestFleet(
      db,
      {
        blocked: ['^4\\.13\\.3$'],
        clusters: [
          { name: 'runner', version: '4.13.2', releases: [], soakDays: 0 },
          { name: 'waiter', version: '4.13.1', releases: ['4.13.2', '4.13.3'], soakDays: 1 },
        ],
      },
      NOW,
    );
    // stored at the last tick, a day ago: 0.5 days of soak, runner already reporting
    const lastTick = new Date(NOW.getTime() - DAY);
    saveVersionData(
      db,
      organizationId,
      { versions: { '4.13.2': { workloads: { wl: { soakDays: 0.5, reporting: ['runner'] } } } } },
      lastTick,
    );

    collectFleetMetrics(db, NOW);
    expect(await remaining()).toEqual({ 'waiter 4.13.3': -4, 'waiter 4.13.2': 0 });
    // and the engine agrees: it upgrades waiter to 4.13.2 now
    const stored = evaluateStoredFleet(db, { id: organizationId, frozen: false }, NOW);
    expect(stored.ok && evaluateFleet(stored.input, NO_GATES).decisions.find((d) => d.cluster === 'waiter')).toMatchObject({
      action: 'upgrade',
      version: '4.13.2',
    });
  });

  it('a scrape in the same fleet minute with nothing written keeps the gauges as filled; a write, the next minute or another database fills them again', async () => {
    const db = openDatabase(':memory:');
    smallFleet(db, ['a', 'b']);
    const clock = () => NOW;
    const policies = createPolicyService(db, clock, clock);
    const refills = vi.spyOn(getMetrics().clusterHealth, 'reset');

    collectFleetMetrics(db, NOW);
    const filled = await gauges();
    expect(filled).toEqual({ frozen: [0], health: { a: 1, b: 1 } });
    expect(refills).toHaveBeenCalledTimes(1);

    collectFleetMetrics(db, new Date(NOW.getTime() + 30_000));
    expect(refills).toHaveBeenCalledTimes(1);
    expect(await gauges()).toEqual(filled);

    policies.setFreeze('admin', { frozen: true, reason: 'incident' });
    collectFleetMetrics(db, NOW);
    expect(refills).toHaveBeenCalledTimes(2);
    expect(await gauges()).toEqual({ frozen: [1], health: { a: 1, b: 1 } });

    collectFleetMetrics(db, new Date(NOW.getTime() + 60_000));
    expect(refills).toHaveBeenCalledTimes(3);

    const other = openDatabase(':memory:');
    smallFleet(other, ['c']);
    collectFleetMetrics(other, NOW);
    expect(await gauges()).toEqual({ frozen: [0], health: { c: 1 } });
    collectFleetMetrics(db, new Date(NOW.getTime() + 60_000));
    expect(await gauges()).toEqual({ frozen: [1], health: { a: 1, b: 1 } });
    refills.mockRestore();
  });
});
