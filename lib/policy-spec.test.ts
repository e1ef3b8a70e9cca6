import { describe, expect, it } from 'vitest';
import { closestKey, KNOWN_POLICY_KEYS, policySpecFromDocument, unknownPolicyKeys } from './policy-spec';

describe('unknownPolicyKeys', () => {
  it('refuses a misspelt key with the key it probably meant', () => {
    const spec = policySpecFromDocument({ workloads: ['hive'], schedule: '0 13 * * 1-5', conditions: { soakdays: 2 } });
    expect(unknownPolicyKeys(spec)).toEqual([{ path: 'conditions.soakdays', message: "unknown key 'soakdays': did you mean 'soakDays'?" }]);
  });

  it('knows the reference schema’s own optional keys and every modelled key', () => {
    const spec = policySpecFromDocument({
      workloads: ['hive'],
      schedule: { cron: '0 13 * * 1-5', location: 'Europe/Zurich', isoWeek: '@odd', suspend: false },
      versionGateApprovals: ['api.openshift.com/gate-ocp'],
      conditions: { soakDays: 2, mutexes: ['m'], sector: 'prod', blockedVersions: ['^4\\.14\\.0$'] },
    });
    expect(unknownPolicyKeys(spec)).toEqual([]);
  });

  it('says where a known key belongs, and lists the known keys when nothing is close', () => {
    const spec = policySpecFromDocument({ workloads: ['hive'], schedule: { cron: '0 13 * * 1-5', mutexes: [] }, colour: 'blue' });
    expect(unknownPolicyKeys(spec)).toEqual([
      { path: 'colour', message: `unknown key 'colour' (known here: ${KNOWN_POLICY_KEYS.policy.join(', ')})` },
      { path: 'schedule.mutexes', message: "unknown key 'mutexes' here: it belongs under conditions" },
    ]);
  });
});

describe('closestKey', () => {
  it('matches case-insensitively, then by a few letters, else nothing', () => {
    expect(closestKey('SECTOR', ['sector', 'mutexes'])).toBe('sector');
    expect(closestKey('mutexs', ['sector', 'mutexes'])).toBe('mutexes');
    expect(closestKey('wrokloads', ['workloads'])).toBe('workloads');
    expect(closestKey('window', ['sector', 'mutexes'])).toBeUndefined();
  });
});
