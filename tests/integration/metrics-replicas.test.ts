// Two fleetplan processes on one database serve the same counters, whichever of them ticked: the
// scheduler runs in the process holding the lease, and Prometheus may scrape any replica. (With
// in-process counters the replica that never ticked showed none of the other's ticks.)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '@/db/open-database';
import { createFakeProvider } from '@/server/integrations/providers/fake-provider';
import { renderFleetMetrics } from '@/server/metrics/collect-fleet-metrics';
import { runTick } from '@/server/scheduler/run-tick';
import { insertTestFleet } from '@/server/scheduler/test-fleet';
import { parseExposition, type ParsedSample } from './fixtures/prometheus-text';
import { REPLICA_FLEET, REPLICA_NOW } from './fixtures/replica-fleet';
import { runFixture } from './fixtures/spawn-process';

const FIXTURE = path.join(__dirname, 'fixtures', 'metrics-replica.ts');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fleetplan-metrics-'));
const file = path.join(dir, 'fleet.db');
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** the counter samples (and the histogram's), which must not depend on the process */
function counters(body: string): ParsedSample[] {
  const parsed = parseExposition(body);
  const counterFamilies = [...parsed.types].filter(([, type]) => type === 'counter' || type === 'histogram').map(([name]) => name);
  expect(counterFamilies.length).toBeGreaterThan(5);
  return parsed.samples.filter((s) => counterFamilies.some((f) => s.name.startsWith(f)));
}

function value(samples: ParsedSample[], name: string, labels: Record<string, string> = {}): number | undefined {
  return samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;
}

describe('metrics across two processes on one database', () => {
  it('a tick in either process shows in both scrapes, with equal counter values', async () => {
    const child = await runFixture(FIXTURE, ['tick'], { DATABASE_URL: file });
    expect(child.stderr).toBe('');
    expect(child.code).toBe(0);
    const childCounters = counters(child.stdout);

    const db = openDatabase(file);
    try {
      const here = counters(await renderFleetMetrics(db, REPLICA_NOW, { providerName: 'simulator' }));
      expect(here).toEqual(childCounters);
      expect(value(here, 'fleetplan_scheduler_ticks_total', { status: 'succeeded' })).toBe(1);
      expect(value(here, 'aus_organization_reconciled_total')).toBe(1);
      // 'one' (soak 0) is upgraded, 'two' waits for its soak
      expect(value(here, 'fleetplan_scheduler_decisions_total', { action: 'upgrade' })).toBe(1);

      // now this process ticks (later: the child's lease has expired) and the child only scrapes
      const later = new Date(REPLICA_NOW.getTime() + 3_600_000);
      const { fakeClusters } = await insertTestFleet(openDatabase(':memory:'), REPLICA_FLEET, REPLICA_NOW);
      const tick = await runTick({
        db,
        provider: createFakeProvider({ clusters: fakeClusters }),
        now: later,
        holder: 'parent',
        realNow: () => later,
      });
      expect(tick.status).toBe('succeeded');
      const mine = counters(await renderFleetMetrics(db, later, { providerName: 'simulator' }));
      const scrapeOnly = await runFixture(FIXTURE, ['scrape'], { DATABASE_URL: file });
      expect(scrapeOnly.code).toBe(0);
      expect(counters(scrapeOnly.stdout)).toEqual(mine);
      expect(value(mine, 'fleetplan_scheduler_ticks_total', { status: 'succeeded' })).toBe(2);
      expect(value(mine, 'aus_organization_reconciled_total')).toBe(2);
      expect(value(mine, 'fleetplan_scheduler_tick_duration_seconds_count', { status: 'succeeded' })).toBe(2);
    } finally {
      db.$client.close();
    }
  }, 60_000);
});
