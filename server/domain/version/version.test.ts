import fc from 'fast-check';
import semverCompare from 'semver/functions/compare';
import { describe, expect, it } from 'vitest';
import { compareVersions, isSemver, normalizeVersion, parseVersion } from './version';

describe('normalizeVersion', () => {
  it.each([
    ['4.9.6+amd64', '4.9.6'],
    ['4.9.0-rc.0+arm64', '4.9.0-rc.0'],
    ['4.0.0-0.1+amd64', '4.0.0-0.1'],
    ['4.7', null],
    ['v4.7.1', null],
    ['04.7.1', null],
    ['4.7.1-', null],
  ])('%s → %s', (input, expected) => {
    expect(normalizeVersion(input)).toBe(expected);
  });
});

describe('compareVersions', () => {
  it('sorts by SemVer precedence, ignoring build suffixes', () => {
    const sorted = ['4.10.0', '4.9.9', '4.9.0', '4.9.0-rc.10', '4.9.0-rc.9', '4.9.0-fc.1', '4.9.0-rc.9+arm64', '4.9.0-0.1'].sort(
      compareVersions,
    );
    expect(sorted).toEqual(['4.9.0-0.1', '4.9.0-fc.1', '4.9.0-rc.9', '4.9.0-rc.9+arm64', '4.9.0-rc.10', '4.9.0', '4.9.9', '4.10.0']);
    expect(compareVersions('4.9.6+amd64', '4.9.6+arm64')).toBe(0);
  });
});

describe('parseVersion', () => {
  it.each(['v4.7.1', ' 4.7.1', '4.7.1 ', '4.7.1\n', '=4.7.1', '4.7', '4.7.1-01', '4.7.1-a..b', '9007199254740992.0.0'])(
    'rejects %j (the semver package alone would take some of these)',
    (text) => {
      expect(parseVersion(text)).toBeNull();
      expect(isSemver(text)).toBe(false);
    },
  );

  it('splits a version into its parts, numeric pre-release identifiers as numbers', () => {
    expect(parseVersion('4.9.0-rc.0+arm64')).toMatchObject({
      version: '4.9.0-rc.0',
      major: 4,
      minor: 9,
      patch: 0,
      prerelease: ['rc', 0],
      build: 'arm64',
    });
    expect(parseVersion('4.9.0')?.build).toBeNull();
  });

  it('normalizeVersion also drops surrounding white space', () => {
    expect(normalizeVersion(' 4.9.6+amd64\n')).toBe('4.9.6');
  });
});

describe('compareVersions on invalid strings', () => {
  it('puts invalid strings first, ordered by their text', () => {
    expect(['4.1.0', 'b', '4.0.0', 'a'].sort(compareVersions)).toEqual(['a', 'b', '4.0.0', '4.1.0']);
  });
});

describe('compareVersions against the semver package', () => {
  it('orders any two versions as semver.compare does, -1, 0 or 1 (release parts compared first here)', () => {
    const part = fc.constantFrom(0, 1, 2, 9, 10, 11, 100, 9_007_199_254_740_991);
    const identifier = fc.oneof(fc.constantFrom('rc', 'alpha', 'beta', 'x-1', '0', '1', '2', '10'), fc.nat({ max: 20 }).map(String));
    const version = fc
      .record({
        major: part,
        minor: part,
        patch: part,
        pre: fc.array(identifier, { maxLength: 3 }),
        build: fc.option(fc.constantFrom('amd64', 'b.1'), { nil: undefined }),
      })
      .map(
        (v) => `${v.major}.${v.minor}.${v.patch}${v.pre.length ? `-${v.pre.join('.')}` : ''}${v.build === undefined ? '' : `+${v.build}`}`,
      );
    fc.assert(
      fc.property(version, version, (a, b) => {
        expect(compareVersions(a, b)).toBe(semverCompare(a, b));
      }),
      { numRuns: 20_000 },
    );
  });
});
