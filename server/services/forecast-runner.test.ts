import { describe, expect, it } from 'vitest';
import { testCluster, testPlanInput } from '@/server/domain/plan/test-plan-input';
import { forecastRollout } from '@/server/domain/forecast/forecast-rollout';
import { runForecastSliced } from './forecast-runner';

const input = testPlanInput([testCluster('a'), testCluster('b', { version: '4.12.18' }, { soakDays: 2 })]);
const options = { targetVersion: '4.12.19', horizonDays: 30, upgradeMinutes: 60 };

describe('runForecastSliced', () => {
  it('gives what the forecast gives in one go', async () => {
    expect(await runForecastSliced(input, options)).toEqual(forecastRollout(input, options));
  });

  it('stops between slices once its signal aborts (a preview the browser gave up on)', async () => {
    const controller = new AbortController();
    const run = runForecastSliced(input, options, controller.signal);
    controller.abort(new Error('the editor moved on'));
    await expect(run).rejects.toThrow('the editor moved on');
  });
});
