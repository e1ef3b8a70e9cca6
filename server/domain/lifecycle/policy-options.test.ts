// The lifecycle options are a known key of an upgrade policy: validated with the fleet (a bad
// value refuses the document with its path), kept through the policy files, never in `extra`.
import { describe, expect, it } from 'vitest';
import { policySpecFromDocument, policySpecToDocument } from '@/lib/policy-spec';
import { testCluster, TEST_NOW } from '@/server/domain/plan/test-plan-input';
import { validatePlanInput } from '@/server/domain/plan/validate-plan-input';

const policy = (lifecycle: unknown) => ({ workloads: ['wl'], schedule: '* * * * *', lifecycle });

describe('upgradePolicy.lifecycle', () => {
  it('validates with the fleet and reaches the policy as options', () => {
    const r = validatePlanInput({
      now: TEST_NOW,
      organization: { name: 'org' },
      clusters: [testCluster('a', { upgradePolicy: policy({ upgradeTimeout: '2h', onFailure: 'continue' }) })],
    });
    expect(r.ok && r.input.clusters[0]?.upgradePolicy?.lifecycle).toMatchObject({ upgradeTimeoutMs: 7_200_000, onFailure: 'continue' });
  });

  it('refuses a bad value with its path', () => {
    const r = validatePlanInput({
      now: TEST_NOW,
      organization: { name: 'org' },
      clusters: [testCluster('a', { upgradePolicy: policy({ maxUpgradeStartDelay: 'later' }) })],
    });
    expect(r.ok ? [] : r.problems.map((p) => p.path)).toEqual(['clusters[0].upgradePolicy.lifecycle.maxUpgradeStartDelay']);
  });

  it('is a known key of the policy files (kept as written, not in extra)', () => {
    const doc = policy({ preCheckLead: '30m', healthChecks: { excludeOperators: ['openshift-monitoring'] } });
    const spec = policySpecFromDocument(doc);
    expect(spec.extra).toBeUndefined();
    expect(spec.lifecycle).toEqual(doc.lifecycle);
    expect(policySpecToDocument(spec)).toEqual(doc);
  });
});
