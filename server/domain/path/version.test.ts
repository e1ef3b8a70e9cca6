import { describe, expect, it } from 'vitest';
import { compareVersions, normalizeVersion } from './version';

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
