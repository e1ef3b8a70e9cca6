import { describe, expect, it } from 'vitest';
import { lintPolicies } from './lint-policies';
import { testCluster, TEST_NOW } from './test-plan-input';
import { validatePlanInput } from './validate-plan-input';

function input() {
  const r = validatePlanInput({
    now: TEST_NOW,
    organization: { name: 'org' },
    clusters: [
      testCluster('plain'),
      testCluster('eus', {
        upgradePolicy: { workloads: ['wl'], schedule: '* * * * *', conditions: { soakDays: 0 }, lifecycle: { eusControlPlaneOnly: true } },
      }),
    ],
  });
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.input;
}

describe('lint: lifecycle.eusControlPlaneOnly where the provider has no MachineConfigPools', () => {
  it('warns on OCM, naming the option of the policy that sets it', () => {
    const warnings = lintPolicies(input(), { provider: 'ocm' }).filter((w) => w.code === 'EUS_PROCEDURE_UNSUPPORTED');
    expect(warnings.map((w) => w.path)).toEqual(['clusters[1].upgradePolicy.lifecycle.eusControlPlaneOnly']);
    expect(warnings[0]?.message).toMatch(/^the ocm provider cannot pause MachineConfigPools/);
  });

  it.each(['kubernetes', 'simulator', undefined])('says nothing for %s', (provider) => {
    expect(lintPolicies(input(), { provider }).filter((w) => w.code === 'EUS_PROCEDURE_UNSUPPORTED')).toEqual([]);
  });
});
