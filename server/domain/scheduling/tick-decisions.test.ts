import { describe, expect, it } from 'vitest';
import type { GatedDecision } from './apply-gates';
import { planDecisionOutcomes, type LastDecisionState } from './tick-decisions';

const idle: LastDecisionState = {
  lastDecisionAction: null,
  lastDecisionReason: null,
  lastDecisionVersion: null,
  nextRun: null,
  currentUpgrade: null,
};
const upgrade: GatedDecision = { cluster: 'a', action: 'upgrade', version: '4.13.2', nextRun: '2021-08-30T19:00:00Z', message: 'upgrade' };
const cancel: GatedDecision = { cluster: 'a', action: 'cancel', version: '4.13.2', reason: 'EXCLUDED', message: 'excluded' };
const skip: GatedDecision = { cluster: 'a', action: 'skip', reason: 'NOT_SOAKED', message: 'soaking' };

describe('planDecisionOutcomes', () => {
  it.each([
    {
      name: 'an upgrade schedules, keyed by cluster, version and start',
      d: upgrade,
      s: idle,
      key: 'schedule:a:4.13.2:2021-08-30T19:00:00Z',
    },
    {
      name: 'a cancel is keyed by the start of the upgrade it cancels',
      d: cancel,
      s: { ...idle, currentUpgrade: { nextRun: '2021-08-31T01:00:00Z' } },
      key: 'cancel:a:4.13.2:2021-08-31T01:00:00Z',
    },
    { name: 'a skip acts on nothing', d: skip, s: idle, key: null },
    { name: 'a cluster not stored yet gets no intent', d: upgrade, s: undefined, key: null },
  ])('$name', ({ d, s, key }) => {
    const [o] = planDecisionOutcomes([d], new Map(s ? [['a', s]] : []));
    expect(o!.intent?.key ?? null).toBe(key);
    expect(o!.changed).toBe(true);
  });

  it('a decision equal to the stored one is not new; another reason or start is', () => {
    const stored: LastDecisionState = {
      ...idle,
      lastDecisionAction: 'upgrade',
      lastDecisionVersion: '4.13.2',
      nextRun: Date.parse('2021-08-30T19:00:00Z'),
    };
    expect(planDecisionOutcomes([upgrade], new Map([['a', stored]]))[0]!.changed).toBe(false);
    expect(planDecisionOutcomes([{ ...upgrade, nextRun: '2021-08-30T19:10:00Z' }], new Map([['a', stored]]))[0]!.changed).toBe(true);
    expect(planDecisionOutcomes([skip], new Map([['a', stored]]))[0]!.record).toEqual({
      clusterName: 'a',
      action: 'skip',
      version: null,
      reason: 'NOT_SOAKED',
      message: 'soaking',
      nextRun: null,
    });
  });
});
