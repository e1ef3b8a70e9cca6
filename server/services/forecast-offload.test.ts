// With the server's forecast thread, the services pick the organization (with the request's
// rights) and hand the computation over; nothing is simulated in the request's thread.
import { describe, expect, it } from 'vitest';
import { openDatabase } from '@/db/open-database';
import { insertEmptyOrganization } from '@/server/repositories/organization-repository';
import { seedDemo } from './demo-seed-service';
import { createForecastService, type ForecastOffload } from './forecast-service';
import { organizationScope } from './organization-scope';
import { createPolicyService } from './policies/policy-service';

const NOW = new Date('2026-03-02T10:00:00Z');

function recordingOffload() {
  const calls: unknown[][] = [];
  const offload: ForecastOffload = {
    run: (...args) => {
      calls.push(['run', ...args]);
      return Promise.resolve({ answered: 'run' } as never);
    },
    impact: (...args) => {
      calls.push(['impact', ...args]);
      return Promise.resolve({ answered: 'impact' } as never);
    },
  };
  return { calls, offload };
}

describe('forecasts handed to the forecast thread', () => {
  it('sends the request’s organization and fleet time, and answers with what the thread answered', async () => {
    const db = openDatabase(':memory:');
    await seedDemo(db, NOW);
    const second = await insertEmptyOrganization(db, 'second', NOW);
    const { calls, offload } = recordingOffload();
    const scope = organizationScope(db, { name: 'second' });
    const input = { horizonDays: 30, upgradeMinutes: 60, offset: 0, limit: 10 };
    await expect(createForecastService(db, () => NOW, scope, { offload }).run(input)).resolves.toEqual({ answered: 'run' });
    await expect(
      createPolicyService(
        db,
        () => NOW,
        () => NOW,
        scope,
        offload,
      ).previewForecastImpact({}),
    ).resolves.toEqual({
      answered: 'impact',
    });
    expect(calls).toEqual([
      ['run', second.id, input, NOW.getTime()],
      ['impact', second.id, {}, NOW.getTime()],
    ]);
  });

  it('refuses an unknown organization before anything is sent', async () => {
    const db = openDatabase(':memory:');
    await seedDemo(db, NOW);
    const { calls, offload } = recordingOffload();
    const scope = organizationScope(db, { name: 'nope' });
    await expect(
      createForecastService(db, () => NOW, scope, { offload }).run({ horizonDays: 1, upgradeMinutes: 60, offset: 0, limit: 1 }),
    ).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    await expect(
      async () =>
        await createPolicyService(
          db,
          () => NOW,
          () => NOW,
          scope,
          offload,
        ).previewForecastImpact({}),
    ).rejects.toThrow(/no organization named/);
    expect(calls).toEqual([]);
  });
});
