import { describe, expect, it } from 'vitest';
import { blockingPatternOf } from './blocked-versions';

describe('blockingPatternOf: the instance list, then the organization, then the cluster', () => {
  const org = { blockedVersions: ['^4\\.14\\.1$'], instanceBlockedVersions: ['^4\\.14\\.'] };

  it('names a pattern of the instance list as blocked instance-wide, before the organization', () => {
    expect(blockingPatternOf('4.14.1', org)).toBe('^4\\.14\\. (blocked instance-wide)');
    expect(blockingPatternOf('4.14.1', { blockedVersions: org.blockedVersions })).toBe('^4\\.14\\.1$');
  });

  it("applies the organization's and the cluster's lists as before, and nothing blocks what none matches", () => {
    const none = { blockedVersions: ['^4\\.13\\.2$'], instanceBlockedVersions: [] };
    expect(blockingPatternOf('4.13.2', none)).toBe('^4\\.13\\.2$');
    expect(blockingPatternOf('4.13.3', none, ['4\\.13\\.3'])).toBe('4\\.13\\.3');
    expect(blockingPatternOf('4.15.0', org, ['^4\\.13'])).toBeUndefined();
  });
});
