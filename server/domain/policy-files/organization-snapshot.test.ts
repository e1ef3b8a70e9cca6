import { describe, expect, it } from 'vitest';
import {
  describeClusterChange,
  describeOrganizationChange,
  normalizeSettings,
  organizationFileProblems,
  planOrganizationOf,
  settingsFromOrganizationFile,
  type OrganizationSnapshot,
} from './organization-snapshot';
import { organizationFilePath } from './parse-policy-files';

const base: OrganizationSnapshot = {
  name: 'acme',
  sectors: [
    { name: 'dev', maxParallelUpgrades: null, maxConcurrentUpgrades: null, targetVersion: null, maxVersion: null, dependencies: [] },
  ],
  blockedVersions: [{ pattern: '^4\\.13\\.0$', reason: 'bug' }],
  upgradePolicyAllowedWorkloads: null,
  upgradePolicyAllowedMutexes: null,
  targetVersion: null,
  maxVersion: null,
  frozen: false,
  frozenReason: null,
};

describe('normalizeSettings', () => {
  it('turns a blank sector limit into no limit and trims the others', () => {
    const s = normalizeSettings({
      sectors: [
        { name: 'a', maxParallelUpgrades: '  ', dependencies: [] },
        { name: 'b', maxParallelUpgrades: ' 20% ', dependencies: ['a'] },
        { name: 'c', dependencies: [] },
      ],
      blockedVersions: [],
      upgradePolicyAllowedWorkloads: null,
      upgradePolicyAllowedMutexes: ['m'],
    });
    expect(s.sectors.map((x) => x.maxParallelUpgrades)).toEqual([null, '20%', null]);
    expect(s.upgradePolicyAllowedMutexes).toEqual(['m']);
  });
});

describe('settingsFromOrganizationFile', () => {
  it('keeps stored reasons for patterns it still blocks and names the file for new ones', () => {
    const s = settingsFromOrganizationFile(
      {
        name: 'acme',
        blockedVersions: ['^4\\.13\\.0$', 'rc'],
        sectors: [{ name: 'dev', maxParallelUpgrades: 2, dependencies: [] }],
        upgradePolicyClusters: [],
      },
      new Map([['^4\\.13\\.0$', 'bug']]),
    );
    expect(s.blockedVersions).toEqual([
      { pattern: '^4\\.13\\.0$', reason: 'bug' },
      { pattern: 'rc', reason: 'imported from an organization file' },
    ]);
    expect(s.sectors[0]?.maxParallelUpgrades).toBe('2');
  });
});

describe('planOrganizationOf', () => {
  it('gives the engine patterns only, and leaves out absent limits and allow-lists', () => {
    expect(planOrganizationOf({ ...base, upgradePolicyAllowedMutexes: ['m'] })).toEqual({
      name: 'acme',
      blockedVersions: ['^4\\.13\\.0$'],
      upgradePolicyAllowedMutexes: ['m'],
      sectors: [{ name: 'dev', dependencies: [] }],
    });
  });
});

describe('describeOrganizationChange', () => {
  it('names every kind of change, or says there is none', () => {
    expect(describeOrganizationChange(base, base)).toBe('no change');
    const after: OrganizationSnapshot = {
      ...base,
      name: 'acme2',
      sectors: [
        { name: 'prod', maxParallelUpgrades: null, maxConcurrentUpgrades: null, targetVersion: null, maxVersion: null, dependencies: [] },
      ],
      blockedVersions: [{ pattern: 'rc', reason: 'r' }],
      upgradePolicyAllowedWorkloads: ['w'],
      frozen: true,
      frozenReason: 'x',
    };
    expect(describeOrganizationChange(base, after)).toBe(
      'added sector prod; removed sector dev; blocked rc; unblocked ^4\\.13\\.0$; changed allowed workloads; froze upgrades; renamed to acme2',
    );
  });
});

describe('describeClusterChange', () => {
  it('names up to four changed paths', () => {
    expect(describeClusterChange(null, { a: 1 })).toBe('added a policy (now managed)');
    expect(describeClusterChange({ a: 1 }, { a: 1 })).toBe('no change');
    expect(describeClusterChange({ a: 1, b: 1, c: 1, d: 1, e: 1 }, { a: 2, b: 2, c: 2, d: 2, e: 2 })).toMatch(/^changed .+ and 1 more$/);
  });
});

describe('organizationFileProblems', () => {
  it("names a listed cluster's problems by the file's entry and keeps the cluster", () => {
    const named = organizationFileProblems(
      [
        { path: 'clusters[1].upgradePolicy.workloads', message: 'bad' },
        { path: 'clusters[0].upgradePolicy', message: 'unlisted' },
      ],
      ['a', 'b'],
      new Map([['b', 3]]),
    );
    expect(named[0]).toEqual({ path: 'upgradePolicyClusters[3].upgradePolicy.workloads', message: 'bad', cluster: 'b' });
    // not listed by the file: the organization file's own naming of the engine path
    expect(named[1]).toEqual({ path: organizationFilePath('clusters[0].upgradePolicy'), message: 'unlisted', cluster: 'a' });
  });
});
