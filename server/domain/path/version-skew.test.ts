import { describe, expect, it } from 'vitest';
import { checkVersionSkew, maxKubeletSkew } from './version-skew';

describe('maxKubeletSkew', () => {
  it.each([
    [4, 6, 2],
    [4, 7, 1],
    [4, 16, 2],
    [4, 23, 1],
    [5, 2, 3],
    [5, 3, 1],
    [5, 4, 2],
  ])('allows workers %i.%i-minus-n with n = %i', (major, minor, allowed) => {
    expect(maxKubeletSkew({ major, minor })).toBe(allowed);
  });
});

describe('checkVersionSkew', () => {
  it.each<[string, string[], string | undefined, string[]]>([
    ['accepts EUS 4.6 → 4.8 with workers paused at 4.6', ['4.6.30', '4.7.60', '4.8.54'], undefined, []],
    ['accepts z-stream hops', ['4.12.1', '4.12.9', '4.12.40'], undefined, []],
    ['refuses 4.6 → 4.9 with workers paused at 4.6 (4.9 allows 1)', ['4.6.1', '4.7.1', '4.8.1', '4.9.1'], undefined, ['KUBELET_SKEW@3']],
    ['refuses 4.7 → 4.9 with workers paused at 4.7 (odd start)', ['4.7.1', '4.8.1', '4.9.1'], undefined, ['KUBELET_SKEW@2']],
    ['refuses a hop that skips a minor', ['4.6.1', '4.8.1'], undefined, ['MINOR_SKIP@1']],
    ['refuses a hop back', ['4.8.1', '4.7.1'], undefined, ['DOWNGRADE@1']],
    ['uses the given worker version', ['4.8.1', '4.9.1'], '4.6.9', ['KUBELET_SKEW@1']],
  ])('%s', (_rule, path, workerVersion, expected) => {
    const report = checkVersionSkew({ path, workerVersion });
    const got = report.ok ? [] : report.violations.map((v) => `${v.kind}@${v.index}`);
    expect(got).toEqual(expected);
    expect(report.points).toHaveLength(path.length);
  });

  it('reports skew and allowance at every point', () => {
    const report = checkVersionSkew({ path: ['4.6.1', '4.7.1', '4.8.1'] });
    expect(report.points.map((p) => [p.skew, p.allowed, p.ok])).toEqual([
      [0, 2, true],
      [1, 1, true],
      [2, 2, true],
    ]);
  });
});
