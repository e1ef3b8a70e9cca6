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

describe('upgradePolicy.lifecycle.eusControlPlaneOnly', () => {
  const parse = (value: unknown) =>
    validatePlanInput({
      now: TEST_NOW,
      organization: { name: 'org' },
      clusters: [testCluster('a', { upgradePolicy: policy({ eusControlPlaneOnly: value }) })],
    });

  it.each([
    [true, { workerRolloutTimeoutMs: 12 * 3_600_000 }],
    [{ workerRolloutTimeout: '6h' }, { workerRolloutTimeoutMs: 6 * 3_600_000 }],
    [false, null],
  ])('%j → %j', (value, expected) => {
    const r = parse(value);
    expect(r.ok && r.input.clusters[0]?.upgradePolicy?.lifecycle?.eusControlPlaneOnly).toEqual(expected);
  });

  it.each([
    ['yes', 'clusters[0].upgradePolicy.lifecycle.eusControlPlaneOnly', "must be true, false or {workerRolloutTimeout}, got 'yes'"],
    [
      { workerRolloutTimout: '6h' },
      'clusters[0].upgradePolicy.lifecycle.eusControlPlaneOnly.workerRolloutTimout',
      'unknown key (known: workerRolloutTimeout)',
    ],
    [
      { workerRolloutTimeout: '30s' },
      'clusters[0].upgradePolicy.lifecycle.eusControlPlaneOnly.workerRolloutTimeout',
      'must be from 1m to 720h, got 30s',
    ],
  ])('refuses %j with its path', (value, path, message) => {
    const r = parse(value);
    expect(r.ok ? [] : r.problems.map((p) => ({ path: p.path, message: p.message }))).toEqual([{ path, message }]);
  });

  it('roundtrips through the policy files as written', () => {
    const doc = policy({ eusControlPlaneOnly: { workerRolloutTimeout: '6h' } });
    expect(policySpecToDocument(policySpecFromDocument(doc))).toEqual(doc);
  });
});
