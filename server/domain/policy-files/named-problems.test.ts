import { describe, expect, it } from 'vitest';
import { nameProblem } from './named-problems';

describe('nameProblem', () => {
  const names = ['a', 'b', 'c'];
  it('names the cluster and gives the field inside its policy', () => {
    expect(nameProblem({ path: 'clusters[2].upgradePolicy.conditions.soakDays', message: 'm' }, names)).toEqual({
      path: 'clusters[name=c].upgradePolicy.conditions.soakDays',
      message: 'm',
      cluster: 'c',
      field: 'conditions.soakDays',
    });
    expect(nameProblem({ path: 'clusters[1].name', message: 'm' }, names)).toEqual({
      path: 'clusters[name=b].name',
      message: 'm',
      cluster: 'b',
    });
  });

  it("maps onto the caller's own input when asked", () => {
    const mapping = {
      clusterPolicyPath: (n: string) => (n === 'b' ? 'policy' : undefined),
      blockedVersionPath: (i: number) => `organization.blockedVersions[${i}].pattern`,
    };
    expect(nameProblem({ path: 'clusters[1].upgradePolicy.workloads[0]', message: 'm' }, names, mapping).path).toBe('policy.workloads[0]');
    expect(nameProblem({ path: 'clusters[1].upgradePolicy', message: 'm' }, names, mapping)).toMatchObject({ path: 'policy', field: '' });
    expect(nameProblem({ path: 'organization.blockedVersions[3]', message: 'm' }, names, mapping).path).toBe(
      'organization.blockedVersions[3].pattern',
    );
    expect(nameProblem({ path: 'organization.sectors', message: 'm' }, names, { organizationPrefix: '' }).path).toBe('sectors');
    expect(nameProblem({ path: 'now', message: 'm', code: 'X' }, names)).toEqual({ path: 'now', message: 'm', code: 'X' });
  });
});
